//===- argus_hip_prefill_kernel.h - varlen prefill attention on CDNA MFMA --===//
//
// Flash-attention over a varlen batch, GQA, causal or not: the workgroup of
// (query block, head, sequence) holds 128 query rows, 32 per wave, and walks
// the sequence's keys 64 at a time with an online softmax, so the score
// matrix never exists. Per key block:
//
//   LDS <- K block (head_dim/64 tiles of 64 x 64, the GEMM's Sw<3,3,3>) and
//          V block transposed (value columns x 64 keys), by all four waves
//   S    = Q · Kᵀ on MFMA 32x32x8: Q stays in registers as A operands, K rows
//          are the B operands, exactly as in the GEMM main loop
//   softmax: scale, mask (past the sequence; causal, aligned bottom-right),
//          the row max across the 32 lanes that share a row (butterfly
//          shuffles), p = 2^(s - m); row sums stay per lane until the end
//   P -> LDS (in E, the same swizzle), read back as A operands
//   O   = O · 2^(m_old - m) + P · V on MFMA, V's transpose as the B operand
//
// Causal blocks past the diagonal of the workgroup's last row are never
// loaded. A row that sees no key gets zeros. head_dim a multiple of 64 up to
// 192 and value_dim a multiple of 32 up to 128 (MLA's 192/128 included); bf16
// or f16.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_PREFILL_KERNEL_H
#define ARGUS_HIP_PREFILL_KERNEL_H

#include "argus_hip_attention_params.h"
#include "argus_hip_mfma_tile.h"

namespace argus::hip {

/// E: the element type of q, k, v and o.
template <Element E>
ARGUS_HIP_FN void prefillAttention(const PrefillParams &p) {
  constexpr int kThreads = kPrefillWaves * kWaveSize;
  constexpr int kHeadSteps = kMaxPrefillHeadDim / kTileK;   // 64-wide steps of head_dim, at most
  constexpr int kValueBlocks = kMaxPrefillValueDim / 32;    // 32-wide output blocks, at most
  constexpr float kNegInf = -__builtin_inff();
  ARGUS_LDS(ldsK, kPrefillKeys * kMaxPrefillHeadDim * 2);
  ARGUS_LDS(ldsVt, kMaxPrefillValueDim * kPrefillKeys * 2);
  ARGUS_LDS(ldsPAll, kPrefillWaves * 32 * kPrefillKeys * 2);
  char *const ldsP = ldsPAll + wave() * 32 * kLdsRowBytes;

  const int b = workGroup(2), h = workGroup(1), q0 = workGroup(0) * kPrefillRows;
  const int firstQ = p.cuSeqlensQ[b], seqQ = p.cuSeqlensQ[b + 1] - firstQ;
  const int firstKv = p.cuSeqlensKv[b], seqKv = p.cuSeqlensKv[b + 1] - firstKv;
  if (q0 >= seqQ)
    return;
  const int kvHead = h / (p.heads / p.kvHeads), d = p.headDim, dv = p.valueDim;
  const int headSteps = d / kTileK, valueBlocks = dv / 32;
  const int l = lane(), half = l / 32, r32 = l % 32;
  const int waveRow = q0 + wave() * 32;  // this wave's first query row in the sequence
  const int shift = seqKv - seqQ;        // causal: row i sees keys <= i + shift

  // Q rows as MFMA A operands: chunk 2s + half of each 64-wide step, per lane its row l % 32.
  u32x4 q[kHeadSteps][4];
  const int myRow = waveRow + r32;
  const uint16_t *qRow = p.q + (int64_t(firstQ) + myRow) * p.heads * d + int64_t(h) * d;
  for (int ks = 0; ks < kHeadSteps; ++ks)
    for (int s = 0; s < 4; ++s)
      q[ks][s] = ks < headSteps && myRow < seqQ
                     ? *reinterpret_cast<const u32x4 *>(qRow + ks * kTileK + (2 * s + half) * 8)
                     : u32x4{0, 0, 0, 0};

  f32x16 o[kValueBlocks];
  for (int n = 0; n < kValueBlocks; ++n)
    o[n] = f32x16{};
  float m[16], rowSum[16];
  for (int e = 0; e < 16; ++e) {
    m[e] = kNegInf;
    rowSum[e] = 0.0f;
  }

  int keys = seqKv;  // keys any row of this workgroup may see
  if (p.causal) {
    const int lastRow = (q0 + kPrefillRows < seqQ ? q0 + kPrefillRows : seqQ) - 1;
    keys = lastRow + shift + 1 < keys ? lastRow + shift + 1 : keys;
  }
  for (int kv0 = 0; kv0 < keys; kv0 += kPrefillKeys) {
    // Stage K (head_dim / 64 tiles of 64 keys x 64) and V transposed.
    for (int c = workItem(); c < kPrefillKeys * d / 8; c += kThreads) {
      const int key = c / (d / 8), first = (c % (d / 8)) * 8;
      const u32x4 v = kv0 + key < seqKv ? *reinterpret_cast<const u32x4 *>(
                                              p.k + ((int64_t(firstKv) + kv0 + key) * p.kvHeads + kvHead) * d + first)
                                        : u32x4{0, 0, 0, 0};
      *reinterpret_cast<u32x4 *>(ldsK + (first / kTileK) * kPrefillKeys * kLdsRowBytes +
                                 ldsByte(key, (first % kTileK) / 8)) = v;
    }
    for (int c = workItem(); c < kPrefillKeys * dv / 8; c += kThreads) {
      const int key = c / (dv / 8), first = (c % (dv / 8)) * 8;
      const u32x4 v = kv0 + key < seqKv
                          ? *reinterpret_cast<const u32x4 *>(
                                p.v + ((int64_t(firstKv) + kv0 + key) * p.kvHeads + kvHead) * dv + first)
                          : u32x4{0, 0, 0, 0};
      for (int i = 0; i < 8; ++i)  // value column first + i, key `key`
        *reinterpret_cast<uint16_t *>(ldsVt + ldsByte(first + i, key / 8) + 2 * (key % 8)) =
            uint16_t(v[i / 2] >> (16 * (i % 2)));
    }
    barrier();

    // S = Q · Kᵀ: two 32x32 blocks of keys.
    // Loops run to the compile-time maxima with the run-time sizes as guards, so that every
    // register array is indexed by constants (a run-time index would put it in scratch).
    f32x16 s[2] = {f32x16{}, f32x16{}};
    ARGUS_UNROLL
    for (int ks = 0; ks < kHeadSteps; ++ks)
      ARGUS_UNROLL
      for (int c = 0; c < 4; ++c)
        for (int j = 0; j < 2 && ks < headSteps; ++j) {
          const u32x4 kf = *reinterpret_cast<const u32x4 *>(ldsK + ks * kPrefillKeys * kLdsRowBytes +
                                                            ldsByte(32 * j + r32, 2 * c + half));
          for (int hh = 0; hh < 2; ++hh)
            s[j] = mfma32x32x8<E>(operandHalf(q[ks][c], hh), operandHalf(kf, hh), s[j]);
        }

    // Online softmax, row by row of this lane's 16 result elements.
    ARGUS_UNROLL
    for (int e = 0; e < 16; ++e) {
      const int row = waveRow + mfmaResultRow(l, e);
      float high = kNegInf;
      for (int j = 0; j < 2; ++j) {
        const int key = kv0 + 32 * j + r32;
        const bool visible = key < seqKv && (!p.causal || key <= row + shift);
        s[j][e] = visible ? s[j][e] * p.scaleLog2 : kNegInf;
        high = s[j][e] > high ? s[j][e] : high;
      }
      for (int offset = 16; offset > 0; offset /= 2) {  // the 32 lanes of this row
        const float other = shuffle(high, l ^ offset);
        high = other > high ? other : high;
      }
      const float next = m[e] > high ? m[e] : high;
      const float base = next == kNegInf ? 0.0f : next;  // a row that has seen no key yet
      const float rescale = exp2(m[e] - base);
      rowSum[e] *= rescale;
      for (int n = 0; n < kValueBlocks; ++n)
        o[n][e] *= rescale;
      m[e] = next;
      for (int j = 0; j < 2; ++j) {
        const float prob = exp2(s[j][e] - base);
        rowSum[e] += prob;
        const int row32 = mfmaResultRow(l, e), key = 32 * j + r32;
        *reinterpret_cast<uint16_t *>(ldsP + ldsByte(row32, key / 8) + 2 * (key % 8)) = fromFloat<E>(prob);
      }
    }
    waveBarrier();

    // O += P · V: P rows as A operands, V's transpose rows (value columns) as B operands.
    ARGUS_UNROLL
    for (int c = 0; c < 4; ++c) {
      const u32x4 pf = *reinterpret_cast<const u32x4 *>(ldsP + ldsByte(r32, 2 * c + half));
      ARGUS_UNROLL
      for (int n = 0; n < kValueBlocks; ++n) {
        if (n >= valueBlocks)
          continue;
        const u32x4 vf = *reinterpret_cast<const u32x4 *>(ldsVt + ldsByte(32 * n + r32, 2 * c + half));
        for (int hh = 0; hh < 2; ++hh)
          o[n] = mfma32x32x8<E>(operandHalf(pf, hh), operandHalf(vf, hh), o[n]);
      }
    }
    barrier();  // every wave is done with K, V and its P before the next block
  }

  ARGUS_UNROLL
  for (int e = 0; e < 16; ++e) {
    float sum = rowSum[e];
    for (int offset = 16; offset > 0; offset /= 2)
      sum += shuffle(sum, l ^ offset);
    const int row = waveRow + mfmaResultRow(l, e);
    if (row >= seqQ)
      continue;
    uint16_t *out = p.o + (int64_t(firstQ) + row) * p.heads * dv + int64_t(h) * dv;
    ARGUS_UNROLL
    for (int n = 0; n < kValueBlocks; ++n)
      if (n < valueBlocks)
        out[32 * n + r32] = fromFloat<E>(sum > 0.0f ? o[n][e] / sum : 0.0f);
  }
}

} // namespace argus::hip

#endif // ARGUS_HIP_PREFILL_KERNEL_H
