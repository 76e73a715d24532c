//===- argus_hip_moe_launch.h - the pipeline into a generated expert kernel -===//
//
// A hip library's MoE expert GEMMs are the instances of
// templates/moe/moe_gate_up_cdna.argus and moe_down_cdna.argus that argus-gen
// emitted (parameters: argus_gpu_generated_moe.h); they serve every shape.
// The library's tables include both units with ARGUS_GPU_LAUNCH_ONLY and
// instantiate these launchers for them, as for the GEMMs
// (argus_hip_gemm_launch.h).
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

/// Enqueues the generated gate_up kernel `symbol` (parameters Params, launch
/// function Launch) for the pipeline `pipeline` (an argus::gpu::MoeParams).
template <class Params, argus::gpu::tile::LaunchShape (*Launch)(Params &)>
argus_status launchGeneratedGateUp(const void *pipeline, const char *symbol, void *stream) {
  Params p = generatedGateUpParams<Params>(*static_cast<const argus::gpu::MoeParams *>(pipeline));
  return launchGenerated<Params, Launch>("argus_moe", symbol, p, stream);
}

/// Likewise for the generated down kernel.
template <class Params, argus::gpu::tile::LaunchShape (*Launch)(Params &)>
argus_status launchGeneratedDown(const void *pipeline, const char *symbol, void *stream) {
  Params p = generatedDownParams<Params>(*static_cast<const argus::gpu::MoeParams *>(pipeline));
  return launchGenerated<Params, Launch>("argus_moe", symbol, p, stream);
}

} // namespace argus_rt

#endif // ARGUS_HIP_MOE_LAUNCH_H
