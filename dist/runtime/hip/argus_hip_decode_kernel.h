//===- argus_hip_decode_kernel.h - paged decode attention on CDNA ----------===//
//
// One query token per sequence against a paged KV cache, GQA: the workgroup
// of (KV head h, sequence b) serves all G = heads / kv_heads query heads that
// read KV head h, so each K and V row is read once for all of them. Its
// Waves waves split the sequence's pages into contiguous runs
// (flash-decoding inside the workgroup: the C ABI gives decode no workspace
// for a cross-workgroup merge) and merge their partial softmaxes in LDS.
// templates/attention/attention_decode_cdna.argus is this schedule in the DSL.
//
// A wave walks its run 64 tokens at a time:
//   scores   lane t owns token t: s[g] = q_g · k_t, q from LDS (broadcast
//            reads), k_t's row in 16-byte loads;
//   softmax  online, per head: the wave's max and sum by butterfly shuffles,
//            in base 2 (q is pre-scaled by scale · log2 e);
//   values   lanes own output columns: o[g][c] += p[g][t] v_t[c] for the 64
//            tokens, p through LDS, v rows read coalesced.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_DECODE_KERNEL_H
#define ARGUS_HIP_DECODE_KERNEL_H

#include "argus_hip_device.h"
#include "argus_hip_attention_params.h"

namespace argus::hip {

/// E: the element type of q, the caches and o.
template <Element E, int Waves>
ARGUS_HIP_FN void decodeAttention(const DecodeParams &p) {
  constexpr int kThreads = Waves * kWaveSize;
  constexpr int kColumnsPerLane = kMaxDecodeValueDim / kWaveSize;
  constexpr float kNegInf = -__builtin_inff();
  ARGUS_LDS(qBytes, kMaxDecodeGroup * kMaxDecodeHeadDim * 4);
  ARGUS_LDS(pBytes, Waves * kMaxDecodeGroup * kWaveSize * 4);
  ARGUS_LDS(mergeBytes, Waves * kMaxDecodeGroup * (kMaxDecodeValueDim + 2) * 4);
  float *const qLds = reinterpret_cast<float *>(qBytes);
  float *const pLds = reinterpret_cast<float *>(pBytes) + wave() * kMaxDecodeGroup * kWaveSize;
  float *const mergeLds = reinterpret_cast<float *>(mergeBytes);

  const int h = workGroup(0), b = workGroup(1), l = lane();
  const int group = p.heads / p.kvHeads, d = p.headDim, dv = p.valueDim;
  // Tokens the block table can address: a longer (or negative) seqlens entry is clamped, as on the CPU.
  const int64_t capacity = p.maxPagesPerSeq * p.pageSize;
  const int seqlen = int(p.seqlens[b] < 0 ? 0 : p.seqlens[b] < capacity ? p.seqlens[b] : capacity);
  const int64_t firstHead = int64_t(b) * p.heads + int64_t(h) * group;

  for (int i = workItem(); i < group * d; i += kThreads)
    qLds[i] = toFloat<E>(p.q[firstHead * d + i]) * p.scaleLog2;
  barrier();

  float m[kMaxDecodeGroup], sum[kMaxDecodeGroup], acc[kMaxDecodeGroup][kColumnsPerLane];
  for (int g = 0; g < kMaxDecodeGroup; ++g) {
    m[g] = kNegInf;
    sum[g] = 0.0f;
    for (int c = 0; c < kColumnsPerLane; ++c)
      acc[g][c] = 0.0f;
  }
  // Whole pages per wave, so that a wave reads each of its pages alone.
  const int pagesPerWave = ((seqlen + p.pageSize - 1) / p.pageSize + Waves - 1) / Waves;
  const int first = wave() * pagesPerWave * p.pageSize, last = first + pagesPerWave * p.pageSize;
  const int begin = first < seqlen ? first : seqlen, end = last < seqlen ? last : seqlen;
  const int32_t *pages = p.blockTable + int64_t(b) * p.maxPagesPerSeq;
  auto cacheRow = [&](int token) {  // row of (token, h) in either cache, in rows of one head
    return (int64_t(pages[token / p.pageSize]) * p.pageSize + token % p.pageSize) * p.kvHeads + h;
  };

  for (int chunk = begin; chunk < end; chunk += kWaveSize) {
    const int token = chunk + l;
    float s[kMaxDecodeGroup];
    for (int g = 0; g < kMaxDecodeGroup; ++g)
      s[g] = token < end ? 0.0f : kNegInf;
    if (token < end) {
      const uint16_t *k = p.kCache + cacheRow(token) * d;
      for (int x = 0; x < d; x += 8) {
        const u32x4 chunk8 = *reinterpret_cast<const u32x4 *>(k + x);
        for (int i = 0; i < 8; ++i) {
          const float kv = toFloat<E>(uint16_t(chunk8[i / 2] >> (16 * (i % 2))));
          for (int g = 0; g < group; ++g)
            s[g] += qLds[g * d + x + i] * kv;
        }
      }
    }
    for (int g = 0; g < group; ++g) {
      const float high = waveMax(s[g]);
      const float next = m[g] > high ? m[g] : high;
      // Both -inf only when no token so far is valid, which a non-empty chunk rules out.
      const float rescale = exp2(m[g] - next);
      const float prob = exp2(s[g] - next);
      sum[g] = sum[g] * rescale + waveSum(prob);
      for (int c = 0; c < kColumnsPerLane; ++c)
        acc[g][c] *= rescale;
      m[g] = next;
      pLds[g * kWaveSize + l] = prob;
    }
    waveBarrier();
    const int tokens = end - chunk < kWaveSize ? end - chunk : kWaveSize;
    for (int t = 0; t < tokens; ++t) {
      const uint16_t *v = p.vCache + cacheRow(chunk + t) * dv;
      for (int c = 0; c < kColumnsPerLane; ++c) {
        const int column = l + kWaveSize * c;
        if (column >= dv)
          break;
        const float value = toFloat<E>(v[column]);
        for (int g = 0; g < group; ++g)
          acc[g][c] += pLds[g * kWaveSize + t] * value;
      }
    }
    waveBarrier();  // every lane has read p before the next chunk writes it
  }

  // Merge the waves' partial softmaxes: sum_w 2^(m_w - M) acc_w / sum_w 2^(m_w - M) sum_w.
  const int stride = kMaxDecodeValueDim + 2;
  for (int g = 0; g < group; ++g) {
    float *mine = mergeLds + (wave() * kMaxDecodeGroup + g) * stride;
    for (int c = 0; c < kColumnsPerLane; ++c)
      if (l + kWaveSize * c < dv)
        mine[l + kWaveSize * c] = acc[g][c];
    if (l == 0) {
      mine[kMaxDecodeValueDim] = m[g];
      mine[kMaxDecodeValueDim + 1] = sum[g];
    }
  }
  barrier();
  for (int i = workItem(); i < group * dv; i += kThreads) {
    const int g = i / dv, column = i % dv;
    float high = kNegInf;
    for (int w = 0; w < Waves; ++w) {
      const float mw = mergeLds[(w * kMaxDecodeGroup + g) * stride + kMaxDecodeValueDim];
      high = mw > high ? mw : high;
    }
    float numerator = 0.0f, denominator = 0.0f;
    if (high != kNegInf)  // else the sequence is empty: zeros
      for (int w = 0; w < Waves; ++w) {
        const float *theirs = mergeLds + (w * kMaxDecodeGroup + g) * stride;
        const float weight = exp2(theirs[kMaxDecodeValueDim] - high);
        numerator += weight * theirs[column];
        denominator += weight * theirs[kMaxDecodeValueDim + 1];
      }
    p.o[(firstHead + g) * dv + column] = fromFloat<E>(denominator > 0.0f ? numerator / denominator : 0.0f);
  }
}

} // namespace argus::hip

#endif // ARGUS_HIP_DECODE_KERNEL_H
