//===- argus_sm90_attention_rows.h - a thread's two query rows of flash attention -===//
//
// In both Hopper prefill kernels (mma.sync: argus_sm90_prefill_kernel.h; wgmma:
// argus_sm90_prefill_wgmma_kernel.h) a thread holds the accumulators of two
// query rows, g and g + 8 of its warp's 16, as mma.m16n8k16's C layout repeated
// over 8-column n-tiles: acc[n][2 half + e] is row `half`, column 8 n + 2 t + e
// (g = lane / 4, t = lane % 4: a row is spread over the 4 lanes of a quad).
// These are the per-row steps of the online softmax and the output, written
// once for both.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_SM90_ATTENTION_ROWS_H
#define ARGUS_SM90_ATTENTION_ROWS_H

#include "argus_cuda_kernel_device.h"
#include "gpu/argus_gpu_prefill_params.h"

namespace argus::cuda {

/// The running state of a thread's two rows: max (base 2) and sum of weights.
struct SoftmaxRows {
  float m[2] = {-__builtin_inff(), -__builtin_inff()};
  float sum[2] = {0.0f, 0.0f};
};

/// Which keys a row sees: those of its sequence, and for causal attention those
/// up to its own position aligned bottom-right (row i sees keys <= i + seqKv - seqQ).
struct KeyMask {
  int seqQ, seqKv;
  bool causal;
  ARGUS_CUDA_FN bool visible(int row, int key) const {
    return key < seqKv && row < seqQ && (!causal || key <= row + seqKv - seqQ);
  }
};

/// One block of scores, s[n][2 half + e] of row rows[half] and key key0 + 8 n + 2 t + e:
/// masked, scaled to base 2, turned into weights 2^(s - max) in place; the state
/// updated; alpha[half] the factor the row's previous output is rescaled by.
template <int Tiles>
ARGUS_CUDA_FN void softmaxBlock(float (&s)[Tiles][4], const int (&rows)[2], int key0, int t, const KeyMask &mask,
                                float scaleLog2, SoftmaxRows &state, float (&alpha)[2]) {
  constexpr float kNegInf = -__builtin_inff();
  ARGUS_CUDA_UNROLL
  for (int half = 0; half < 2; ++half) {
    float high = kNegInf;
    ARGUS_CUDA_UNROLL
    for (int n = 0; n < Tiles; ++n)
      ARGUS_CUDA_UNROLL
      for (int e = 0; e < 2; ++e) {
        float &score = s[n][2 * half + e];
        score = mask.visible(rows[half], key0 + 8 * n + 2 * t + e) ? score * scaleLog2 : kNegInf;
        high = score > high ? score : high;
      }
    ARGUS_CUDA_UNROLL
    for (int lanes = 1; lanes <= 2; lanes *= 2) {  // the 4 lanes of the row
      const float other = warpXor(high, lanes);
      high = other > high ? other : high;
    }
    const float next = state.m[half] > high ? state.m[half] : high;
    const float base = next == kNegInf ? 0.0f : next;  // no key seen yet: every weight is 0
    alpha[half] = exp2Fast(state.m[half] - base);
    float sum = 0.0f;
    ARGUS_CUDA_UNROLL
    for (int n = 0; n < Tiles; ++n)
      ARGUS_CUDA_UNROLL
      for (int e = 0; e < 2; ++e) {
        float &score = s[n][2 * half + e];
        score = exp2Fast(score - base);
        sum += score;
      }
    state.sum[half] = state.sum[half] * alpha[half] + sum;
    state.m[half] = next;
  }
}

/// The output: o[n][2 half + e] (value column 8 n + 2 t + e) over the row's sum
/// across its quad, as pairs of E into `out` rows (row r at out + r * pitch); rows
/// past seqQ are not written. Every lane of the warp must call it.
template <class E, int Tiles>
ARGUS_CUDA_FN void storeRows(const float (&o)[Tiles][4], const SoftmaxRows &state, const int (&rows)[2], int seqQ,
                             uint16_t *out, int64_t pitch, int t) {
  ARGUS_CUDA_UNROLL
  for (int half = 0; half < 2; ++half) {
    float total = state.sum[half];
    total += warpXor(total, 1);
    total += warpXor(total, 2);
    if (rows[half] >= seqQ)
      continue;
    const float scale = total > 0.0f ? 1.0f / total : 0.0f;
    uint16_t *row = out + int64_t(rows[half]) * pitch + 2 * t;
    ARGUS_CUDA_UNROLL
    for (int n = 0; n < Tiles; ++n)
      *reinterpret_cast<uint32_t *>(row + 8 * n) = packPair<E>(o[n][2 * half] * scale, o[n][2 * half + 1] * scale);
  }
}

} // namespace argus::cuda

#endif // ARGUS_SM90_ATTENTION_ROWS_H
