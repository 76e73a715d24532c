//===- argus_sm90_decode_params.h - the Hopper paged decode's arguments ----===//
//
// Shared by the kernel (argus_sm90_decode_kernel.h), its launcher and the host
// tests: the kernel's one argument, the limits it is compiled for, its shared
// memory layout and the rule that sizes its thread-block clusters. Plain C++
// (no CUDA header), so the rule is tested on any machine.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_SM90_DECODE_PARAMS_H
#define ARGUS_SM90_DECODE_PARAMS_H

#include "argus_host_device.h"
#include "gpu/argus_gpu_decode_params.h"

#include <cstdint>

namespace argus::cuda {

inline constexpr int kMaxDecodeGroup = 8;      // query heads per KV head
inline constexpr int kMaxDecodeHeadDim = 256;  // q and k, a multiple of 8
inline constexpr int kMaxDecodeValueDim = 256; // v and o, a multiple of 4 (8-byte value loads)
inline constexpr int kDecodeWarps = 8;         // per CTA
inline constexpr int kPortableDecodeCluster = 8;  // CTAs per (sequence, KV head) every sm_90 GPU schedules
inline constexpr int kMaxDecodeCluster = 16;      // Hopper's non-portable cluster size, where the GPU takes it

using DecodeParams = argus::gpu::DecodeParams;

/// The query heads per KV head the kernel is compiled for that hold `group`: 1, 2, 4 or 8. Its inner loops
/// run over that many rows unconditionally; the shared memory is laid out for it.
ARGUS_HOST_DEVICE constexpr int decodeGroupBound(int group) {
  return group <= 1 ? 1 : group <= 2 ? 2 : group <= 4 ? 4 : 8;
}

/// Where the kernel's pieces of dynamic shared memory start, in floats, for a
/// group bound (decodeGroupBound): the scaled queries (group x head_dim), each
/// warp's probabilities (32 per head), each warp's partial result (group x
/// (value_dim + 2): numerator, max, sum) and the CTA's, which the cluster's
/// CTA 0 reads to merge.
struct DecodeSharedLayout {
  int queries, probabilities, warpPartials, ctaPartial, floats;
  ARGUS_HOST_DEVICE constexpr int bytes() const { return floats * 4; }
};

ARGUS_HOST_DEVICE constexpr int alignedFloats(int floats) { return (floats + 3) / 4 * 4; }  // 16-byte pieces

ARGUS_HOST_DEVICE constexpr DecodeSharedLayout decodeSharedLayout(int group, int headDim, int valueDim, int warps) {
  const int partial = group * (valueDim + 2);
  DecodeSharedLayout l{};
  l.queries = 0;
  l.probabilities = alignedFloats(group * headDim);
  l.warpPartials = l.probabilities + alignedFloats(warps * group * 32);
  l.ctaPartial = l.warpPartials + alignedFloats(warps * partial);
  l.floats = l.ctaPartial + alignedFloats(partial);
  return l;
}

/// CTAs per cluster for `work` (sequence, KV head) pairs whose contexts hold
/// at most `capacityTokens` tokens on `multiprocessors` SMs: doubled while the
/// grid leaves SMs idle and each warp of the cluster still gets two 32-token
/// chunks of a full context, up to `largestCluster` (kMaxDecodeCluster where the
/// GPU can schedule clusters that large, else kPortableDecodeCluster).
inline int decodeClusterSize(int64_t work, int64_t capacityTokens, int multiprocessors,
                             int largestCluster = kMaxDecodeCluster) {
  int ctas = 1;
  while (ctas < largestCluster && work * ctas < multiprocessors &&
         capacityTokens >= int64_t(ctas) * 2 * kDecodeWarps * 2 * 32)
    ctas *= 2;
  return ctas;
}

} // namespace argus::cuda

#endif // ARGUS_SM90_DECODE_PARAMS_H
