//===- argus_hip_moe_launch.h - the pipeline into a generated MoE kernel --===//
//
// A hip library's generated MoE kernels are the instances of
// templates/moe/moe_route.argus, moe_gather.argus, moe_gate_up_cdna.argus,
// moe_down_cdna.argus and moe_combine.argus that argus-gen emitted (parameters:
// argus_gpu_generated_moe.h); they serve every shape. The library's tables
// include the units with ARGUS_GPU_LAUNCH_ONLY and instantiate this launcher
// for each, as for the GEMMs (argus_hip_gemm_launch.h).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_MOE_LAUNCH_H
#define ARGUS_HIP_MOE_LAUNCH_H

#include "argus_hip_generated_launch.h"

#if __has_include("gpu/argus_gpu_generated_moe.h")
#include "gpu/argus_gpu_generated_moe.h"
#else
#include "../gpu/argus_gpu_generated_moe.h"
#endif

namespace argus_rt {

/// Enqueues the generated MoE kernel `symbol` (parameters Params, launch
/// function Launch, parameters filled by Fill: argus_gpu_generated_moe.h)
/// for the pipeline `pipeline` (an argus::gpu::MoeParams).
template <class Params, argus::gpu::tile::LaunchShape (*Launch)(Params &),
          Params (*Fill)(const argus::gpu::MoeParams &)>
argus_status launchGeneratedMoe(const void *pipeline, const char *symbol, void *stream) {
  Params p = Fill(*static_cast<const argus::gpu::MoeParams *>(pipeline));
  return launchGenerated<Params, Launch>("argus_moe", symbol, p, stream);
}

} // namespace argus_rt

#endif // ARGUS_HIP_MOE_LAUNCH_H
