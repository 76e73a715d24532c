//===- argus_hip_gemm_launch.h - argus_gemm_args into a generated GEMM kernel -===//
//
// A hip library's GEMM kernels are instances of templates/gemm/gemm_tn_cdna.argus
// that argus-gen emitted (parameters: argus_gpu_generated_gemm.h). The library's tables include each
// generated unit with ARGUS_GPU_LAUNCH_ONLY (its parameter struct and launch
// function, host code) and instantiate launchGeneratedGemm for it, so the
// struct the kernel reads is the one its own unit declares.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_GEMM_LAUNCH_H
#define ARGUS_HIP_GEMM_LAUNCH_H

#include "argus_hip_generated_launch.h"

#if __has_include("gpu/argus_gpu_generated_gemm.h")
#include "gpu/argus_gpu_generated_gemm.h"
#else
#include "../gpu/argus_gpu_generated_gemm.h"
#endif

namespace argus_rt {

/// Enqueues the generated kernel `symbol` (parameters Params, launch function
/// Launch) for the call `args`, which argus_hip_gemm.cpp has validated.
template <class Params, argus::gpu::tile::LaunchShape (*Launch)(Params &)>
argus_status launchGeneratedGemm(const argus_gemm_args *args, const char *symbol, void *stream) {
  Params p = generatedGemmParams<Params>(*args);
  return launchGenerated<Params, Launch>("argus_gemm", symbol, p, stream);
}

} // namespace argus_rt

#endif // ARGUS_HIP_GEMM_LAUNCH_H
