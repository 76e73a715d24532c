//===- argus_cuda_prefill.cu - argus_attention_prefill of a cuda-sm90a library -===//
//
// The GPU front (argus_gpu_prefill.h), then one launch on the caller's
// stream over (query blocks of max_seqlen_q, heads, sequences) of the
// prefillAttention<D, DV> instantiation for the call's head dims
// (argus_sm90_prefill_kernel.h): 64/64, 128/128 and multi-head latent
// attention's 192/128. cu_seqlens stay on the device, and no sequence may be
// longer than max_seqlen_q (the C ABI's contract). Nothing synchronises.
//
//===----------------------------------------------------------------------===//
#include "argus_cuda_device.h"
#include "argus_error.h"
#include "argus_gpu_prefill.h"
#include "argus_sm90_prefill_kernel.h"

#include <cuda_runtime.h>

namespace argus_rt {
namespace {

using namespace argus::cuda;

template <int D, int DV>
__global__ void __launch_bounds__(kPrefillWarps * kWarpSize) argusSm90Prefill(const PrefillParams params) {
  prefillAttention<D, DV>(params);
}

struct PrefillKernel {
  int headDim, valueDim;
  void (*kernel)(const PrefillParams);
};
constexpr PrefillKernel kKernels[] = {
    {64, 64, argusSm90Prefill<64, 64>},
    {128, 128, argusSm90Prefill<128, 128>},
    {192, 128, argusSm90Prefill<192, 128>},
};

const PrefillKernel *kernelFor(int headDim, int valueDim) {
  for (const PrefillKernel &k : kKernels)
    if (k.headDim == headDim && k.valueDim == valueDim)
      return &k;
  return nullptr;
}

bool compiledFor(int headDim, int valueDim) { return kernelFor(headDim, valueDim) != nullptr; }

} // namespace
} // namespace argus_rt

using namespace argus_rt;

extern "C" ARGUS_API argus_status argus_attention_prefill(const argus_attention_prefill_args *args, void *stream) {
  return guard("argus_attention_prefill", [&] {
    static constexpr GpuPrefillLimits kLimits{"the Hopper kernel", 16, 192, 16, 128, kPrefillRows, compiledFor};
    argus_attention_prefill_args a;
    GpuPrefillStep step;
    PrefillParams params{};
    if (argus_status s = prepareGpuPrefill(args, kLimits, a, &step, &params); s || step == GpuPrefillStep::Noop)
      return s;
    if (argus_status s = cudaDeviceReady("argus_attention_prefill"))
      return s;
    const PrefillKernel *k = kernelFor(params.headDim, params.valueDim);
    const int sharedBytes = prefillSharedBytes(k->headDim, k->valueDim);
    // Past the 48 KiB a launch gets without asking (192/128 takes 50 KiB); asked at each call, which is cheap.
    if (argus_status s = cudaStatus("argus_attention_prefill",
                                    int(cudaFuncSetAttribute(k->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                             sharedBytes))))
      return s;
    const dim3 grid(unsigned((a.max_seqlen_q + kPrefillRows - 1) / kPrefillRows), unsigned(a.num_heads),
                    unsigned(a.batch));
    k->kernel<<<grid, kPrefillWarps * kWarpSize, size_t(sharedBytes), static_cast<cudaStream_t>(stream)>>>(params);
    return cudaStatus("argus_attention_prefill", int(cudaGetLastError()));
  });
}
