//===- argus_hip_moe.cpp - argus_moe of a hip library ----------------------===//
//
// The GPU front (gpu/argus_gpu_moe.h: validation, what the pipeline takes,
// the workspace), then the six launches of argus_hip_moe_params.h, in
// order, on the caller's stream: the hand-written align by name, the
// generated kernels through the library's table (argus_hip_registry.h).
//
//===----------------------------------------------------------------------===//
#include "argus_error.h"
#include "argus_gpu_moe.h"
#include "argus_hip_moe_params.h"
#include "argus_hip_registry.h"
#include "argus_hip_runtime.h"

using namespace argus_rt;
using namespace argus::hip;

static_assert(sizeof(argus_hip_moe_kernels) / sizeof(argus_hip_moe_kernels[0]) == kMoeGeneratedKernels,
              "the library's table holds every generated kernel of the pipeline");

extern "C" ARGUS_API argus_status argus_moe(const argus_moe_args *args, void *stream) {
  return guard("argus_moe", [&] {
    GpuMoeStep step;
    MoeParams params{};
    if (argus_status s = prepareGpuMoe(args, &step, &params); s || step == GpuMoeStep::Noop)
      return s;
    void *arguments[] = {&params};
    return argus_status(runMoePipeline(
        [&](const MoeLaunch &l) { return hipLaunch("argus_moe", {l.kernel, l.gridX, l.gridY, l.threads, arguments}, stream); },
        [&](int generated) {
          const argus_hip_moe_kernel &k = argus_hip_moe_kernels[generated];
          return k.launch(&params, k.symbol, stream);
        }));
  });
}
