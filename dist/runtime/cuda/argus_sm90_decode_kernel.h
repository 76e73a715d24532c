//===- argus_sm90_decode_kernel.h - paged decode attention on Hopper -------===//
//
// One query token per sequence against a paged KV cache, GQA, flash-decoding
// with the split inside a thread-block cluster. The cluster of (sequence b,
// KV head h) serves all G = heads / kv_heads query heads that read KV head h,
// so each K and V row is read once for all of them; its C CTAs (grid x) and
// their warps split the sequence into contiguous runs of 32-token chunks. The
// C ABI gives decode no workspace, so the partial softmaxes meet in shared
// memory: a CTA merges its warps', then CTA 0 merges the CTAs' through
// distributed shared memory. templates/attention/attention_decode_sm90.argus
// is this schedule in the DSL.
//
// A warp walks its run 32 tokens at a time:
//   scores   lane t owns token t: s[g] = q_g · k_t, q from shared memory
//            (broadcast reads), k_t's row in 16-byte loads, kKeyPieces of them
//            issued before the first product;
//   softmax  online, per head: the warp's max and sum by XOR shuffles, in
//            base 2 (q is pre-scaled by scale · log2 e);
//   values   lanes own output columns, 4 adjacent ones per 128: o[g][c] +=
//            p[g][t] v_t[c] for the chunk's tokens, p through shared memory,
//            v rows read in 8-byte pieces, coalesced, kValueRows rows loaded
//            before the first is used.
// Decode is memory-bound at G <= 8 query rows per KV row, so CUDA cores do
// the arithmetic; the tensor cores would wait on the same loads.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_SM90_DECODE_KERNEL_H
#define ARGUS_SM90_DECODE_KERNEL_H

#include "argus_cuda_kernel_device.h"
#include "argus_sm90_decode_params.h"

namespace argus::cuda {

namespace detail {

/// The largest of `v` over the warp's lanes, and the sum.
ARGUS_CUDA_FN float warpMax(float v) {
  ARGUS_CUDA_UNROLL
  for (int mask = kWarpSize / 2; mask > 0; mask /= 2) {
    const float other = warpXor(v, mask);
    v = other > v ? other : v;
  }
  return v;
}

ARGUS_CUDA_FN float warpSum(float v) {
  ARGUS_CUDA_UNROLL
  for (int mask = kWarpSize / 2; mask > 0; mask /= 2)
    v += warpXor(v, mask);
  return v;
}

/// 2^(m_i - top) numerator_i / sum_i 2^(m_i - top) sum_i over partials whose
/// (numerator, max, sum) the caller reads; 0 when no partial saw a token.
template <class Partial>
ARGUS_CUDA_FN void mergePartials(int count, Partial partial, int column, int valueDim, float *numerator,
                                 float *top, float *sum) {
  constexpr float kNegInf = -__builtin_inff();
  float high = kNegInf;
  for (int i = 0; i < count; ++i) {
    const float m = partial(i)[valueDim];
    high = m > high ? m : high;
  }
  float num = 0.0f, den = 0.0f;
  if (high != kNegInf)  // else no token at all: zeros
    for (int i = 0; i < count; ++i) {
      const float *theirs = partial(i);
      const float weight = exp2Fast(theirs[valueDim] - high);
      num += weight * theirs[column];
      den += weight * theirs[valueDim + 1];
    }
  *numerator = num, *top = high, *sum = den;
}

} // namespace detail

/// E: the element type of q, the caches and o (Bf16 or F16). G: decodeGroupBound of the query heads per KV
/// head, the rows the inner loops compute without a test per head (a test there made each multiply-add its
/// own branch, its shared-memory operand waited on alone); the rows past the group are zeros, never written
/// out. kKeyPieces and kValueRows: the loads a lane has in flight per key row (16 bytes each) and per value
/// group (rows of 8 bytes).
template <class E, int Warps, int G, int kKeyPieces = 8, int kValueRows = 8>
ARGUS_CUDA_FN void decodeAttention(const DecodeParams &p) {
  static_assert(G == decodeGroupBound(G) && G <= kMaxDecodeGroup, "G is a group bound");
  constexpr int kThreads = Warps * kWarpSize;
  constexpr int kColumnGroups = kMaxDecodeValueDim / (4 * kWarpSize);  // 4 adjacent columns per lane per group
  constexpr float kNegInf = -__builtin_inff();
  const int group = p.heads / p.kvHeads, d = p.headDim, dv = p.valueDim;
  const DecodeSharedLayout layout = decodeSharedLayout(G, d, dv, Warps);
  float *const shared = reinterpret_cast<float *>(dynamicShared());
  const int tid = threadIndex(), l = tid % kWarpSize, w = tid / kWarpSize;
  float *const qShared = shared + layout.queries;
  float *const pShared = shared + layout.probabilities + w * G * kWarpSize;
  const int stride = dv + 2;  // a partial row: value_dim numerators, then max and sum
  float *const warpPartials = shared + layout.warpPartials;
  float *const ctaPartial = shared + layout.ctaPartial;

  const int h = blockIndex(1), b = blockIndex(2), rank = clusterRank(), ranks = clusterSize();
  // Tokens the block table can address: a longer (or negative) seqlens entry is clamped, as on the CPU.
  const int64_t capacity = p.maxPagesPerSeq * p.pageSize;
  const int seqlen = int(p.seqlens[b] < 0 ? 0 : p.seqlens[b] < capacity ? p.seqlens[b] : capacity);
  const int64_t firstHead = int64_t(b) * p.heads + int64_t(h) * group;

  for (int i = tid; i < G * d; i += kThreads)
    qShared[i] = i < group * d ? E::toFloat(p.q[firstHead * d + i]) * p.scaleLog2 : 0.0f;
  syncThreads();

  float m[G], sum[G], acc[G][4 * kColumnGroups];
  ARGUS_CUDA_UNROLL
  for (int g = 0; g < G; ++g) {
    m[g] = kNegInf;
    sum[g] = 0.0f;
    ARGUS_CUDA_UNROLL
    for (int c = 0; c < 4 * kColumnGroups; ++c)
      acc[g][c] = 0.0f;
  }
  // The cluster's Warps x C warps take contiguous runs of whole 32-token chunks.
  const int chunks = (seqlen + kWarpSize - 1) / kWarpSize;
  const int perWarp = (chunks + Warps * ranks - 1) / (Warps * ranks);
  const int64_t worker = int64_t(rank) * Warps + w;
  const int begin = int(worker * perWarp * kWarpSize < seqlen ? worker * perWarp * kWarpSize : seqlen);
  const int end = int((worker + 1) * perWarp * kWarpSize < seqlen ? (worker + 1) * perWarp * kWarpSize : seqlen);
  const int32_t *pages = p.blockTable + int64_t(b) * p.maxPagesPerSeq;
  auto cacheRow = [&](int token) {  // row of (token, h) in either cache, in rows of one head
    return (int64_t(pages[token / p.pageSize]) * p.pageSize + token % p.pageSize) * p.kvHeads + h;
  };

  for (int chunk = begin; chunk < end; chunk += kWarpSize) {
    const int token = chunk + l;
    float s[G];
    ARGUS_CUDA_UNROLL
    for (int g = 0; g < G; ++g)
      s[g] = token < end ? 0.0f : kNegInf;
    if (token < end) {
      // kKeyPieces 16-byte loads in flight before the first product: one at a time, each waited
      // on, left decode bound by the memory latency (1-16% of the copy bandwidth on an H200).
      const uint16_t *k = p.kCache + cacheRow(token) * d;
      for (int x0 = 0; x0 < d; x0 += 8 * kKeyPieces) {
        Bytes16 piece[kKeyPieces] = {};
        ARGUS_CUDA_UNROLL
        for (int j = 0; j < kKeyPieces; ++j)
          if (x0 + 8 * j < d)
            piece[j] = *reinterpret_cast<const Bytes16 *>(k + x0 + 8 * j);
        ARGUS_CUDA_UNROLL
        for (int j = 0; j < kKeyPieces; ++j) {
          if (x0 + 8 * j >= d)
            break;
          ARGUS_CUDA_UNROLL
          for (int g = 0; g < G; ++g) {
            // q in two 16-byte shared-memory reads per 8 products (d is a multiple of 8).
            const Floats4 *q = reinterpret_cast<const Floats4 *>(qShared + g * d + x0 + 8 * j);
            const Floats4 low = q[0], high = q[1];
            ARGUS_CUDA_UNROLL
            for (int i = 0; i < 8; ++i)
              s[g] += (i < 4 ? low.f[i] : high.f[i - 4]) * elementOf<E>(piece[j].word, i);
          }
        }
      }
    }
    ARGUS_CUDA_UNROLL
    for (int g = 0; g < G; ++g) {
      const float high = detail::warpMax(s[g]);
      const float next = m[g] > high ? m[g] : high;
      // m and next are both -inf only before the first valid token, which every chunk has.
      const float rescale = exp2Fast(m[g] - next);
      const float prob = exp2Fast(s[g] - next);
      sum[g] = sum[g] * rescale + detail::warpSum(prob);
      ARGUS_CUDA_UNROLL
      for (int c = 0; c < 4 * kColumnGroups; ++c)
        acc[g][c] *= rescale;
      m[g] = next;
      pShared[g * kWarpSize + l] = prob;
    }
    syncWarp();
    const int tokens = end - chunk < kWarpSize ? end - chunk : kWarpSize;
    for (int t0 = 0; t0 < tokens; t0 += kValueRows) {
      // kValueRows rows of v loaded before they are used, as for k.
      Bytes8 piece[kValueRows][kColumnGroups] = {};
      ARGUS_CUDA_UNROLL
      for (int r = 0; r < kValueRows; ++r) {
        if (t0 + r >= tokens)
          break;
        const uint16_t *v = p.vCache + cacheRow(chunk + t0 + r) * dv;
        ARGUS_CUDA_UNROLL
        for (int j = 0; j < kColumnGroups; ++j)
          if (4 * l + 4 * kWarpSize * j < dv)
            piece[r][j] = *reinterpret_cast<const Bytes8 *>(v + 4 * l + 4 * kWarpSize * j);
      }
      ARGUS_CUDA_UNROLL
      for (int r = 0; r < kValueRows; ++r) {
        if (t0 + r >= tokens)
          break;
        ARGUS_CUDA_UNROLL
        for (int j = 0; j < kColumnGroups; ++j) {
          if (4 * l + 4 * kWarpSize * j >= dv)
            break;
          ARGUS_CUDA_UNROLL
          for (int g = 0; g < G; ++g) {
            const float prob = pShared[g * kWarpSize + t0 + r];
            ARGUS_CUDA_UNROLL
            for (int i = 0; i < 4; ++i)
              acc[g][4 * j + i] += prob * elementOf<E>(piece[r][j].word, i);
          }
        }
      }
    }
    syncWarp();  // every lane has read p before the next chunk writes it
  }

  // The warp's partial: numerators of its columns, then (lane 0) max and sum.
  ARGUS_CUDA_UNROLL
  for (int g = 0; g < G; ++g) {
    if (g >= group)
      break;
    float *mine = warpPartials + (w * group + g) * stride;
    ARGUS_CUDA_UNROLL
    for (int j = 0; j < kColumnGroups; ++j)
      ARGUS_CUDA_UNROLL
      for (int i = 0; i < 4; ++i)
        if (4 * l + 4 * kWarpSize * j + i < dv)
          mine[4 * l + 4 * kWarpSize * j + i] = acc[g][4 * j + i];
    if (l == 0) {
      mine[dv] = m[g];
      mine[dv + 1] = sum[g];
    }
  }
  syncThreads();
  // The CTA's partial, from its warps'.
  for (int i = tid; i < group * dv; i += kThreads) {
    const int g = i / dv, column = i % dv;
    float numerator, top, total;
    detail::mergePartials(
        Warps, [&](int warp) { return warpPartials + (warp * group + g) * stride; }, column, dv, &numerator, &top,
        &total);
    ctaPartial[g * stride + column] = numerator;
    if (column == 0) {
      ctaPartial[g * stride + dv] = top;
      ctaPartial[g * stride + dv + 1] = total;
    }
  }
  clusterSync();  // every CTA's partial is in its shared memory
  if (rank == 0)
    for (int i = tid; i < group * dv; i += kThreads) {
      const int g = i / dv, column = i % dv;
      float numerator, top, total;
      detail::mergePartials(
          ranks, [&](int r) { return peerShared(ctaPartial, r) + g * stride; }, column, dv, &numerator, &top,
          &total);
      p.o[(firstHead + g) * dv + column] = E::fromFloat(total > 0.0f ? numerator / total : 0.0f);
    }
  clusterSync();  // no CTA leaves (and frees its shared memory) before CTA 0 has read it
}

/// decodeAttention for the group bound of p's heads, chosen at run time (the host emulator's tests; the
/// launcher compiles one kernel per bound, so that each gets only the registers it needs).
template <class E, int Warps>
ARGUS_CUDA_FN void decodeAttentionAnyGroup(const DecodeParams &p) {
  switch (decodeGroupBound(p.heads / p.kvHeads)) {
  case 1: decodeAttention<E, Warps, 1>(p); break;
  case 2: decodeAttention<E, Warps, 2>(p); break;
  case 4: decodeAttention<E, Warps, 4>(p); break;
  default: decodeAttention<E, Warps, 8>(p); break;
  }
}

} // namespace argus::cuda

#endif // ARGUS_SM90_DECODE_KERNEL_H
