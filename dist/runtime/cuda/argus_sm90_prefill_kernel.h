//===- argus_sm90_prefill_kernel.h - varlen prefill attention on mma.sync ---===//
//
// Flash-attention over a varlen batch, GQA, causal or not, on the tensor
// cores' warp-level mma.sync (m16n8k16, bf16 or f16 -> f32): the CTA of (query
// block, head, sequence) holds 64 query rows, 16 per warp, and walks the
// sequence's keys 64 at a time with an online softmax, so the score matrix
// never exists. Per key block:
//
//   shared <- K block (64 keys x D) and V block transposed (DV x 64 keys),
//             rows padded by 16 bytes (conflict-free fragment reads), by all
//             four warps
//   S    = Q · Kᵀ: Q stays in registers as A fragments, K rows give the B
//          fragments
//   softmax: scale (base 2), mask (past the sequence; causal, aligned
//          bottom-right), the row max across the 4 lanes that share a row,
//          p = 2^(s - m); row sums stay per lane until the end
//   O   = O · 2^(m_old - m) + P · V: S's accumulator fragments are, two
//          n-tiles at a time, exactly P's A fragments (no trip through
//          shared memory), Vᵀ rows give the B fragments
//
// Causal blocks past the diagonal of the CTA's last row are never loaded; a
// row that sees no key gets zeros. One instantiation per (D, DV), so the
// register arrays are exactly as large as the heads.
//
// This is the portable Ampere-style kernel, written against
// argus_cuda_kernel_device.h so that the cluster emulator checks its source
// on the host. FlashAttention-3's Hopper schedule (TMA, wgmma, warp
// specialisation; templates/attention/attention_prefill_sm90.argus) is the
// next step and needs a GPU to tune.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_SM90_PREFILL_KERNEL_H
#define ARGUS_SM90_PREFILL_KERNEL_H

#include "argus_cuda_kernel_device.h"
#include "argus_sm90_attention_rows.h"
#include "gpu/argus_gpu_prefill_params.h"

namespace argus::cuda {

using PrefillParams = argus::gpu::PrefillParams;

inline constexpr int kPrefillWarps = 4;
inline constexpr int kPrefillRows = kPrefillWarps * 16;  // query rows per CTA
inline constexpr int kPrefillKeys = 64;                  // keys per block

/// Dynamic shared memory of prefillAttention<E, D, DV>: the key block and the
/// transposed value block, each row padded by 8 elements.
constexpr int prefillSharedBytes(int headDim, int valueDim) {
  return (kPrefillKeys * (headDim + 8) + valueDim * (kPrefillKeys + 8)) * 2;
}

/// E: the element type of q, k, v and o (Bf16 or F16).
template <class E, int D, int DV>
ARGUS_CUDA_FN void prefillAttention(const PrefillParams &p) {
  static_assert(D % 16 == 0 && DV % 16 == 0, "mma steps of 16 along head_dim and keys, n-tiles of 8 along values");
  constexpr int kThreads = kPrefillWarps * kWarpSize;
  constexpr int kKeyTiles = kPrefillKeys / 8;  // n-tiles of S
  constexpr int kHeadSteps = D / 16;           // k-steps of Q·Kᵀ
  constexpr int kValueTiles = DV / 8;          // n-tiles of O
  constexpr int kStrideK = D + 8, kStrideV = kPrefillKeys + 8;  // padded shared rows, in elements
  uint16_t *const sharedK = reinterpret_cast<uint16_t *>(dynamicShared());
  uint16_t *const sharedVt = sharedK + kPrefillKeys * kStrideK;

  const int b = blockIndex(2), h = blockIndex(1), q0 = blockIndex(0) * kPrefillRows;
  const int firstQ = p.cuSeqlensQ[b], seqQ = p.cuSeqlensQ[b + 1] - firstQ;
  const int firstKv = p.cuSeqlensKv[b], seqKv = p.cuSeqlensKv[b + 1] - firstKv;
  if (q0 >= seqQ)
    return;
  const int tid = threadIndex(), lane = tid % kWarpSize, g = lane / 4, t = lane % 4;
  const int kvHead = h / (p.heads / p.kvHeads);
  const int rows[2] = {q0 + (tid / kWarpSize) * 16 + g, q0 + (tid / kWarpSize) * 16 + g + 8};
  const int shift = seqKv - seqQ;  // causal: row i sees keys <= i + shift
  auto word = [](const uint16_t *pair) { return *reinterpret_cast<const uint32_t *>(pair); };

  // Q as A fragments: rows g and g + 8 of the warp's 16, columns 2t, 2t + 1 (+ 8) of each k-step.
  uint32_t q[kHeadSteps][4];
  ARGUS_CUDA_UNROLL
  for (int s = 0; s < kHeadSteps; ++s)
    ARGUS_CUDA_UNROLL
    for (int r = 0; r < 4; ++r) {
      const int row = rows[r % 2], column = 16 * s + 2 * t + 8 * (r / 2);
      q[s][r] = row < seqQ ? word(p.q + (int64_t(firstQ) + row) * p.heads * D + int64_t(h) * D + column) : 0u;
    }

  float o[kValueTiles][4];
  ARGUS_CUDA_UNROLL
  for (int j = 0; j < kValueTiles; ++j)
    ARGUS_CUDA_UNROLL
    for (int e = 0; e < 4; ++e)
      o[j][e] = 0.0f;
  SoftmaxRows state;
  const KeyMask mask{seqQ, seqKv, p.causal != 0};

  int keys = seqKv;  // keys any row of this CTA may see
  if (p.causal) {
    const int lastRow = (q0 + kPrefillRows < seqQ ? q0 + kPrefillRows : seqQ) - 1;
    keys = lastRow + shift + 1 < keys ? lastRow + shift + 1 : keys;
  }
  for (int kv0 = 0; kv0 < keys; kv0 += kPrefillKeys) {
    // Stage K rows and V transposed; keys past the sequence are zeros.
    for (int c = tid; c < kPrefillKeys * D / 8; c += kThreads) {
      const int key = c / (D / 8), first = (c % (D / 8)) * 8;
      const Bytes16 piece =
          kv0 + key < seqKv
              ? *reinterpret_cast<const Bytes16 *>(p.k + (int64_t(firstKv) + kv0 + key) * p.kvHeads * D +
                                                   int64_t(kvHead) * D + first)
              : Bytes16{{0, 0, 0, 0}};
      *reinterpret_cast<Bytes16 *>(sharedK + key * kStrideK + first) = piece;
    }
    for (int c = tid; c < kPrefillKeys * DV / 8; c += kThreads) {
      const int key = c / (DV / 8), first = (c % (DV / 8)) * 8;
      const Bytes16 piece =
          kv0 + key < seqKv
              ? *reinterpret_cast<const Bytes16 *>(p.v + (int64_t(firstKv) + kv0 + key) * p.kvHeads * DV +
                                                   int64_t(kvHead) * DV + first)
              : Bytes16{{0, 0, 0, 0}};
      for (int i = 0; i < 8; ++i)
        sharedVt[(first + i) * kStrideV + key] = uint16_t(piece.word[i / 2] >> (16 * (i % 2)));
    }
    syncThreads();

    // S = Q · Kᵀ: n-tile j is keys 8j .. 8j + 7; B[k][n] = K[8j + n][16s + k].
    float s[kKeyTiles][4];
    ARGUS_CUDA_UNROLL
    for (int j = 0; j < kKeyTiles; ++j) {
      ARGUS_CUDA_UNROLL
      for (int e = 0; e < 4; ++e)
        s[j][e] = 0.0f;
      const uint16_t *keyRow = sharedK + (8 * j + g) * kStrideK + 2 * t;
      ARGUS_CUDA_UNROLL
      for (int step = 0; step < kHeadSteps; ++step) {
        const uint32_t kFragment[2] = {word(keyRow + 16 * step), word(keyRow + 16 * step + 8)};
        E::mma(q[step], kFragment, s[j]);
      }
    }

    // Online softmax, rows g (e = 0, 1) and g + 8 (e = 2, 3).
    float alpha[2];
    softmaxBlock(s, rows, kv0, t, mask, p.scaleLog2, state, alpha);
    ARGUS_CUDA_UNROLL
    for (int j = 0; j < kValueTiles; ++j) {
      o[j][0] *= alpha[0], o[j][1] *= alpha[0];
      o[j][2] *= alpha[1], o[j][3] *= alpha[1];
    }

    // O += P · V: k-step ks is keys 16 ks .. 16 ks + 15, S's n-tiles 2 ks and 2 ks + 1;
    // B[k][n] = V[16 ks + k][8j + n] = Vᵀ[8j + n][16 ks + k].
    ARGUS_CUDA_UNROLL
    for (int ks = 0; ks < kPrefillKeys / 16; ++ks) {
      const uint32_t pFragment[4] = {packPair<E>(s[2 * ks][0], s[2 * ks][1]), packPair<E>(s[2 * ks][2], s[2 * ks][3]),
                                     packPair<E>(s[2 * ks + 1][0], s[2 * ks + 1][1]),
                                     packPair<E>(s[2 * ks + 1][2], s[2 * ks + 1][3])};
      ARGUS_CUDA_UNROLL
      for (int j = 0; j < kValueTiles; ++j) {
        const uint16_t *valueRow = sharedVt + (8 * j + g) * kStrideV + 16 * ks + 2 * t;
        const uint32_t vFragment[2] = {word(valueRow), word(valueRow + 8)};
        E::mma(pFragment, vFragment, o[j]);
      }
    }
    syncThreads();  // every warp has read the block before the next one overwrites it
  }

  storeRows<E>(o, state, rows, seqQ, p.o + int64_t(firstQ) * p.heads * DV + int64_t(h) * DV, int64_t(p.heads) * DV, t);
}

} // namespace argus::cuda

#endif // ARGUS_SM90_PREFILL_KERNEL_H
