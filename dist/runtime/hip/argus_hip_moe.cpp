//===- argus_hip_moe.cpp - argus_moe of a hip library ----------------------===//
//
// The GPU front (gpu/argus_gpu_moe.h: validation, what the pipeline takes,
// the workspace), then the pipeline's eight generated kernels
// (argus_hip_registry.h: route, the three align steps, gather, gate_up,
// down, combine), in order, on the caller's stream.
//
//===----------------------------------------------------------------------===//
#include "argus_error.h"
#include "argus_gpu_moe.h"
#include "argus_hip_registry.h"
#include "argus_hip_runtime.h"

using namespace argus_rt;

extern "C" ARGUS_API argus_status argus_moe(const argus_moe_args *args, void *stream) {
  return guard("argus_moe", [&] {
    GpuMoeStep step;
    argus::gpu::MoeParams params{};
    if (argus_status s = prepareGpuMoe(args, &step, &params); s || step == GpuMoeStep::Noop)
      return s;
    for (const argus_hip_moe_kernel &k : argus_hip_moe_kernels)
      if (argus_status s = k.launch(&params, k.symbol, stream))
        return s;
    return ARGUS_OK;
  });
}
