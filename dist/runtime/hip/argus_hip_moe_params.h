//===- argus_hip_moe_params.h - the CDNA MoE pipeline's launches -----------===//
//
// argus_moe on CDNA is the GPU pipeline of gpu/argus_gpu_moe_params.h (its
// argument and workspace), launched as five kernels of the shapes below.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_MOE_PARAMS_H
#define ARGUS_HIP_MOE_PARAMS_H

#include "gpu/argus_gpu_moe_params.h"

namespace argus::hip {

using argus::gpu::kMoeAlignThreads;
using argus::gpu::kMoeBlockRows;
using argus::gpu::MoeParams;

inline constexpr int kMoeGateUpColumns = 64;  // output columns of a gate_up tile (128 B rows)
inline constexpr int kMoeDownColumns = 128;
inline constexpr int kMoeThreads = 128;       // the two waves of the 32 x 128 MFMA tile
inline constexpr int kMoeCombineThreads = 256;

/// One kernel launch of the pipeline: grid in workgroups, workgroup size.
struct MoeLaunch {
  const char *kernel;
  unsigned gridX, gridY, threads;
};

/// The five launches, in order.
inline void moeLaunches(const MoeParams &p, MoeLaunch (&launches)[5]) {
  const unsigned blocks = unsigned(p.maxBlocks);
  launches[0] = {"argus_hip_moe_route", unsigned(p.tokens), 1, 64};
  launches[1] = {"argus_hip_moe_align", 1, 1, kMoeAlignThreads};
  launches[2] = {"argus_hip_moe_gate_up", unsigned((p.intermediate + kMoeGateUpColumns - 1) / kMoeGateUpColumns),
                 blocks, kMoeThreads};
  launches[3] = {"argus_hip_moe_down", unsigned((p.hidden + kMoeDownColumns - 1) / kMoeDownColumns), blocks,
                 kMoeThreads};
  launches[4] = {"argus_hip_moe_combine", unsigned(p.tokens),
                 unsigned((p.hidden + kMoeCombineThreads - 1) / kMoeCombineThreads), kMoeCombineThreads};
}

} // namespace argus::hip

#endif // ARGUS_HIP_MOE_PARAMS_H
