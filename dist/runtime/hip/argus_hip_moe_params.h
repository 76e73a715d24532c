//===- argus_hip_moe_params.h - the CDNA MoE pipeline's launches -----------===//
//
// argus_moe on CDNA is the GPU pipeline of gpu/argus_gpu_moe_params.h (its
// argument and workspace) in six launches: the hand-written route and align,
// then the four generated kernels (argus_hip_moe_kernels): the gather (the
// tokens' rows into the blocks' order, which the expert GEMMs read densely;
// templates/moe/moe_gather.argus), the two expert GEMMs
// (templates/moe/moe_{gate_up,down}_cdna.argus) and the combine
// (templates/moe/moe_combine.argus).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_MOE_PARAMS_H
#define ARGUS_HIP_MOE_PARAMS_H

#include "gpu/argus_gpu_moe_params.h"

namespace argus::hip {

using argus::gpu::kMoeAlignThreads;
using argus::gpu::kMoeBlockRows;
using argus::gpu::MoeParams;

/// One launch of a hand-written kernel: grid in workgroups, workgroup size.
struct MoeLaunch {
  const char *kernel;
  unsigned gridX, gridY, threads;
};

/// The generated kernels, in pipeline order (argus_hip_moe_kernels).
inline constexpr int kMoeGeneratedKernels = 4;

/// Runs the pipeline in order: each hand-written launch through
/// `handWritten(const MoeLaunch &)`, each generated kernel (0: gather, 1:
/// gate_up, 2: down, 3: combine) through `generated(int)`. Stops at the
/// first launch that returns non-zero, and returns that.
template <class HandWritten, class Generated>
int runMoePipeline(const MoeParams &p, HandWritten handWritten, Generated generated) {
  const MoeLaunch handWrittenLaunches[] = {{"argus_hip_moe_route", unsigned(p.tokens), 1, 64},
                                           {"argus_hip_moe_align", 1, 1, kMoeAlignThreads}};
  for (const MoeLaunch &l : handWrittenLaunches)
    if (int s = handWritten(l))
      return s;
  for (int kernel = 0; kernel < kMoeGeneratedKernels; ++kernel)
    if (int s = generated(kernel))
      return s;
  return 0;
}

} // namespace argus::hip

#endif // ARGUS_HIP_MOE_PARAMS_H
