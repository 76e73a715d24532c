//===- argus_hip_attention_launch.h - attention args into a generated kernel -===//
//
// A hip library's varlen prefill and paged decode kernels are instances of
// templates/attention/attention_{prefill,decode}_cdna.argus that argus-gen
// emitted (parameters: argus_gpu_generated_{prefill,decode}.h), one per
// catalog attention configuration. The library's tables include each
// generated unit with ARGUS_GPU_LAUNCH_ONLY and instantiate
// launchGeneratedAttention for it, as for the GEMMs (argus_hip_gemm_launch.h).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_ATTENTION_LAUNCH_H
#define ARGUS_HIP_ATTENTION_LAUNCH_H

#include "argus_hip_generated_launch.h"

#if __has_include("gpu/argus_gpu_generated_decode.h")
#include "gpu/argus_gpu_generated_decode.h"
#include "gpu/argus_gpu_generated_prefill.h"
#else
#include "../gpu/argus_gpu_generated_decode.h"
#include "../gpu/argus_gpu_generated_prefill.h"
#endif

namespace argus_rt {

inline const char *entryPointOf(const argus_attention_prefill_args &) { return "argus_attention_prefill"; }
inline const char *entryPointOf(const argus_attention_decode_args &) { return "argus_attention_decode"; }

/// Enqueues the generated kernel `symbol` (parameters Params, launch function
/// Launch) for the call `args` (prefill or decode), which the entry point
/// has validated; `scale` is the softmax scale the kernel takes.
template <class Params, argus::gpu::tile::LaunchShape (*Launch)(Params &), class Args>
argus_status launchGeneratedAttention(const Args *args, float scale, const char *symbol, void *stream) {
  Params p = generatedAttentionParams<Params>(*args, scale);
  return launchGenerated<Params, Launch>(entryPointOf(*args), symbol, p, stream);
}

} // namespace argus_rt

#endif // ARGUS_HIP_ATTENTION_LAUNCH_H
