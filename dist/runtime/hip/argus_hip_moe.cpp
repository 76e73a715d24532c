//===- argus_hip_moe.cpp - argus_moe of a hip library ----------------------===//
//
// The GPU front (gpu/argus_gpu_moe.h: validation, what the pipeline takes,
// the workspace), then the five launches of argus_hip_moe_params.h, in
// order, on the caller's stream.
//
//===----------------------------------------------------------------------===//
#include "argus_error.h"
#include "argus_gpu_moe.h"
#include "argus_hip_moe_params.h"
#include "argus_hip_runtime.h"

using namespace argus_rt;
using namespace argus::hip;

extern "C" ARGUS_API argus_status argus_moe(const argus_moe_args *args, void *stream) {
  return guard("argus_moe", [&] {
    GpuMoeStep step;
    MoeParams params{};
    if (argus_status s = prepareGpuMoe(args, &step, &params); s || step == GpuMoeStep::Noop)
      return s;
    MoeLaunch launches[5];
    moeLaunches(params, launches);
    void *arguments[] = {&params};
    for (const MoeLaunch &l : launches)
      if (argus_status s = hipLaunch("argus_moe", {l.kernel, l.gridX, l.gridY, l.threads, arguments}, stream))
        return s;
    return ARGUS_OK;
  });
}
