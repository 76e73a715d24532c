//===- argus_cuda_moe.cu - argus_moe of a cuda-sm90a library ---------------===//
//
// The GPU front (gpu/argus_gpu_moe.h: validation, what the pipeline takes,
// the workspace), then the five launches of argus_sm90_moe_kernel.h, in
// order, on the caller's stream. The routing stays on the device: grids are
// sized for the most blocks any routing can need. Nothing synchronises.
//
//===----------------------------------------------------------------------===//
#include "argus_cuda_device.h"
#include "argus_error.h"
#include "argus_gpu_moe.h"
#include "argus_sm90_moe_kernel.h"

#include <cuda_runtime.h>

namespace argus_rt {
namespace {

using namespace argus::cuda;

__global__ void __launch_bounds__(kWarpSize) argusSm90MoeRoute(const MoeParams p) { moeRoute(p); }
__global__ void __launch_bounds__(kMoeAlignThreads) argusSm90MoeAlign(const MoeParams p) { moeAlign(p); }
// A minimum of one block lets ptxas use the registers it needs (114 for down, no spill; 96 without).
__global__ void __launch_bounds__(kMoeThreads, 1) argusSm90MoeGateUp(const MoeParams p) { moeGateUp(p); }
__global__ void __launch_bounds__(kMoeThreads, 1) argusSm90MoeDown(const MoeParams p) { moeDown(p); }
__global__ void __launch_bounds__(kMoeCombineThreads) argusSm90MoeCombine(const MoeParams p) { moeCombine(p); }

/// The kernel of each MoeStage, in enum order.
constexpr void (*kStageKernels[kMoeStages])(const MoeParams) = {argusSm90MoeRoute, argusSm90MoeAlign,
                                                                argusSm90MoeGateUp, argusSm90MoeDown,
                                                                argusSm90MoeCombine};

} // namespace
} // namespace argus_rt

using namespace argus_rt;

extern "C" ARGUS_API argus_status argus_moe(const argus_moe_args *args, void *stream) {
  return guard("argus_moe", [&] {
    GpuMoeStep step;
    MoeParams params{};
    if (argus_status s = prepareGpuMoe(args, &step, &params); s || step == GpuMoeStep::Noop)
      return s;
    if (argus_status s = cudaDeviceReady("argus_moe"))
      return s;
    MoeLaunch launches[kMoeStages];
    moeLaunches(params, launches);
    for (const MoeLaunch &l : launches) {
      kStageKernels[int(l.stage)]<<<dim3(l.gridX, l.gridY), l.threads, l.sharedBytes,
                                    static_cast<cudaStream_t>(stream)>>>(params);
      if (argus_status s = cudaStatus("argus_moe", int(cudaGetLastError())))
        return s;
    }
    return ARGUS_OK;
  });
}
