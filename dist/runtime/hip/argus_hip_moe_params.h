//===- argus_hip_moe_params.h - the CDNA MoE pipeline's launches -----------===//
//
// argus_moe on CDNA is the GPU pipeline of gpu/argus_gpu_moe_params.h (its
// argument and workspace) in six launches: the hand-written route, align
// and gather (the tokens' rows into the blocks' order, which the generated
// expert GEMMs read densely), the two generated expert GEMMs
// (argus_hip_moe_kernels: templates/moe/moe_{gate_up,down}_cdna.argus),
// and the hand-written combine.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_MOE_PARAMS_H
#define ARGUS_HIP_MOE_PARAMS_H

#include "gpu/argus_gpu_moe_params.h"

namespace argus::hip {

using argus::gpu::kMoeAlignThreads;
using argus::gpu::kMoeBlockRows;
using argus::gpu::MoeParams;

inline constexpr int kMoeGatherThreads = 64;
inline constexpr int kMoeCombineThreads = 256;

/// One launch of a hand-written kernel: grid in workgroups, workgroup size.
struct MoeLaunch {
  const char *kernel;
  unsigned gridX, gridY, threads;
};

/// Runs the pipeline in order: each hand-written launch through
/// `handWritten(const MoeLaunch &)`, each generated expert GEMM (0:
/// gate_up, 1: down) through `generated(int)`. Stops at the first launch
/// that returns non-zero, and returns that.
template <class HandWritten, class Generated>
int runMoePipeline(const MoeParams &p, HandWritten handWritten, Generated generated) {
  const MoeLaunch before[] = {
      {"argus_hip_moe_route", unsigned(p.tokens), 1, 64},
      {"argus_hip_moe_align", 1, 1, kMoeAlignThreads},
      {"argus_hip_moe_gather", unsigned(p.maxBlocks) * kMoeBlockRows, 1, kMoeGatherThreads}};
  const MoeLaunch combine = {"argus_hip_moe_combine", unsigned(p.tokens),
                             unsigned((p.hidden + kMoeCombineThreads - 1) / kMoeCombineThreads), kMoeCombineThreads};
  for (const MoeLaunch &l : before)
    if (int s = handWritten(l))
      return s;
  for (int expertGemm = 0; expertGemm < 2; ++expertGemm)
    if (int s = generated(expertGemm))
      return s;
  return handWritten(combine);
}

} // namespace argus::hip

#endif // ARGUS_HIP_MOE_PARAMS_H
