//===- argus_hip_moe_params.h - the CDNA MoE pipeline's launches -----------===//
//
// argus_moe on CDNA is the GPU pipeline of gpu/argus_gpu_moe_params.h (its
// argument and workspace) in six launches, five of them generated from
// templates (argus_hip_moe_kernels): the route (templates/moe/
// moe_route.argus), the hand-written align, the gather (the tokens' rows
// into the blocks' order, which the expert GEMMs read densely;
// moe_gather.argus), the two expert GEMMs (moe_{gate_up,down}_cdna.argus)
// and the combine (moe_combine.argus).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_MOE_PARAMS_H
#define ARGUS_HIP_MOE_PARAMS_H

#include "gpu/argus_gpu_moe_params.h"

namespace argus::hip {

using argus::gpu::kMoeAlignThreads;
using argus::gpu::kMoeBlockRows;
using argus::gpu::MoeParams;

/// The launch of the hand-written align: grid in workgroups, workgroup size.
struct MoeLaunch {
  const char *kernel;
  unsigned gridX, gridY, threads;
};

/// The generated kernels, in pipeline order (argus_hip_moe_kernels): route,
/// then gather, gate_up, down and combine after the align.
inline constexpr int kMoeGeneratedKernels = 5;

/// Runs the pipeline in order: the align through `handWritten(const
/// MoeLaunch &)`, each generated kernel through `generated(int)` (its index
/// in argus_hip_moe_kernels). Stops at the first launch that returns
/// non-zero, and returns that.
template <class HandWritten, class Generated>
int runMoePipeline(HandWritten handWritten, Generated generated) {
  if (int s = generated(0))
    return s;
  if (int s = handWritten(MoeLaunch{"argus_hip_moe_align", 1, 1, kMoeAlignThreads}))
    return s;
  for (int kernel = 1; kernel < kMoeGeneratedKernels; ++kernel)
    if (int s = generated(kernel))
      return s;
  return 0;
}

} // namespace argus::hip

#endif // ARGUS_HIP_MOE_PARAMS_H
