//===- argus_hip_decode_launch.h - decode args into a generated decode kernel -===//
//
// A hip library's paged decode kernels are instances of
// templates/attention/attention_decode_cdna.argus that argus-gen emitted
// (parameters: argus_gpu_generated_decode.h), one per catalog attention
// configuration. The library's tables include each generated unit with
// ARGUS_GPU_LAUNCH_ONLY and instantiate launchGeneratedDecode for it, as for
// the GEMMs (argus_hip_gemm_launch.h).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_DECODE_LAUNCH_H
#define ARGUS_HIP_DECODE_LAUNCH_H

#include "argus_hip_generated_launch.h"

#if __has_include("gpu/argus_gpu_generated_decode.h")
#include "gpu/argus_gpu_generated_decode.h"
#else
#include "../gpu/argus_gpu_generated_decode.h"
#endif

namespace argus_rt {

/// Enqueues the generated kernel `symbol` (parameters Params, launch function
/// Launch) for the call `args`, which argus_hip_decode.cpp has validated.
template <class Params, argus::gpu::tile::LaunchShape (*Launch)(Params &)>
argus_status launchGeneratedDecode(const argus_attention_decode_args *args, float scale, const char *symbol,
                                   void *stream) {
  Params p = generatedDecodeParams<Params>(*args, scale);
  return launchGenerated<Params, Launch>("argus_attention_decode", symbol, p, stream);
}

} // namespace argus_rt

#endif // ARGUS_HIP_DECODE_LAUNCH_H
