//===- argus_cuda_prefill.cu - argus_attention_prefill of a cuda-sm90a library -===//
//
// The GPU front (argus_gpu_prefill.h), then one launch on the caller's
// stream over (query blocks of max_seqlen_q, heads, sequences):
//   - head dims 64/64 or 128/128 with total_q and total_kv given: the TMA and
//     wgmma kernel (argus_sm90_prefill_wgmma_kernel.h), its tensor maps over
//     the packed q, k and v (TMA needs their row counts from the host; the
//     prefix sums stay on the device);
//   - otherwise the mma.sync kernel prefillAttention<E, D, DV>
//     (argus_sm90_prefill_kernel.h): 64/64, 128/128 and multi-head latent
//     attention's 192/128.
// Both for bf16 and f16 (E).
// No sequence may be longer than max_seqlen_q (the C ABI's contract).
// Nothing synchronises.
//
//===----------------------------------------------------------------------===//
#include "argus_cuda_device.h"
#include "argus_error.h"
#include "argus_gpu_prefill.h"
#include "argus_sm90_prefill_kernel.h"
#include "argus_sm90_prefill_wgmma_kernel.h"
#include "argus_sm90_tensor_map.h"

#include <cuda_runtime.h>

namespace argus_rt {
namespace {

using namespace argus::cuda;

template <class E, int D, int DV>
__global__ void __launch_bounds__(kPrefillWarps * kWarpSize) argusSm90Prefill(const PrefillParams params) {
  prefillAttention<E, D, DV>(params);
}

struct PrefillKernel {
  bool f16;
  int headDim, valueDim;
  void (*kernel)(const PrefillParams);
};
constexpr PrefillKernel kKernels[] = {
    {false, 64, 64, argusSm90Prefill<Bf16, 64, 64>},    {false, 128, 128, argusSm90Prefill<Bf16, 128, 128>},
    {false, 192, 128, argusSm90Prefill<Bf16, 192, 128>}, {true, 64, 64, argusSm90Prefill<F16, 64, 64>},
    {true, 128, 128, argusSm90Prefill<F16, 128, 128>},   {true, 192, 128, argusSm90Prefill<F16, 192, 128>},
};

const PrefillKernel *kernelFor(bool f16, int headDim, int valueDim) {
  for (const PrefillKernel &k : kKernels)
    if (k.f16 == f16 && k.headDim == headDim && k.valueDim == valueDim)
      return &k;
  return nullptr;
}

bool compiledFor(int headDim, int valueDim) { return kernelFor(false, headDim, valueDim) != nullptr; }

template <class E, int D, int DV>
__global__ void __launch_bounds__(argus::sm90::kWgPrefillThreads, 1)
    argusSm90PrefillWgmma(const __grid_constant__ CUtensorMap mapQ, const __grid_constant__ CUtensorMap mapK,
                          const __grid_constant__ CUtensorMap mapV, const PrefillParams params) {
  argus::sm90::prefillWgmma<E, D, DV>(mapQ, mapK, mapV, params);
}

struct WgmmaPrefillKernel {
  bool f16;
  int headDim, valueDim;
  void (*kernel)(const CUtensorMap, const CUtensorMap, const CUtensorMap, const PrefillParams);
  int sharedBytes;
};
constexpr WgmmaPrefillKernel kWgmmaKernels[] = {
    {false, 64, 64, argusSm90PrefillWgmma<Bf16, 64, 64>, argus::sm90::WgPrefillLayout<64, 64>::kBytes},
    {false, 128, 128, argusSm90PrefillWgmma<Bf16, 128, 128>, argus::sm90::WgPrefillLayout<128, 128>::kBytes},
    {true, 64, 64, argusSm90PrefillWgmma<F16, 64, 64>, argus::sm90::WgPrefillLayout<64, 64>::kBytes},
    {true, 128, 128, argusSm90PrefillWgmma<F16, 128, 128>, argus::sm90::WgPrefillLayout<128, 128>::kBytes},
};

/// The TMA and wgmma kernel for the call, or null: it needs the packed tensors' row counts.
const WgmmaPrefillKernel *wgmmaKernelFor(const argus_attention_prefill_args &a) {
  if (a.total_q <= 0 || a.total_kv <= 0)
    return nullptr;
  for (const WgmmaPrefillKernel &k : kWgmmaKernels)
    if (k.f16 == (a.dtype == ARGUS_DTYPE_F16) && k.headDim == a.head_dim && k.valueDim == a.v_head_dim)
      return &k;
  return nullptr;
}

/// The packed [rows, heads, dim] bf16 or f16 tensor as TMA boxes of 64 rows by 64 elements.
cudaError_t packedMap(CUtensorMap *map, argus_dtype dtype, const void *base, int64_t rows, int64_t heads,
                      int64_t dim) {
  return argus::sm90::encodeTileMap(
      map, dtype == ARGUS_DTYPE_F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, rows,
      heads * dim, heads * dim, 64);
}

argus_status launchWgmma(const WgmmaPrefillKernel &k, const argus_attention_prefill_args &a,
                         const PrefillParams &params, cudaStream_t stream) {
  const char *function = "argus_attention_prefill";
  CUtensorMap mapQ, mapK, mapV;
  for (cudaError_t e : {packedMap(&mapQ, a.dtype, a.q, a.total_q, a.num_heads, a.head_dim),
                        packedMap(&mapK, a.dtype, a.k, a.total_kv, a.num_kv_heads, a.head_dim),
                        packedMap(&mapV, a.dtype, a.v, a.total_kv, a.num_kv_heads, a.v_head_dim)})
    if (argus_status s = cudaStatus(function, int(e)))
      return s;
  if (argus_status s = cudaStatus(function, int(cudaFuncSetAttribute(
                                                  k.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, k.sharedBytes))))
    return s;
  const dim3 grid(unsigned((a.max_seqlen_q + argus::sm90::kWgPrefillRows - 1) / argus::sm90::kWgPrefillRows),
                  unsigned(a.num_heads), unsigned(a.batch));
  k.kernel<<<grid, argus::sm90::kWgPrefillThreads, size_t(k.sharedBytes), stream>>>(mapQ, mapK, mapV, params);
  return cudaStatus(function, int(cudaGetLastError()));
}

} // namespace
} // namespace argus_rt

using namespace argus_rt;

extern "C" ARGUS_API argus_status argus_attention_prefill(const argus_attention_prefill_args *args, void *stream) {
  return guard("argus_attention_prefill", [&] {
    static constexpr GpuPrefillLimits kLimits{"the Hopper kernel", 16, 192, 16, 128, kPrefillRows, compiledFor,
                                              /*takesF16=*/true};
    argus_attention_prefill_args a;
    GpuPrefillStep step;
    PrefillParams params{};
    if (argus_status s = prepareGpuPrefill(args, kLimits, a, &step, &params); s || step == GpuPrefillStep::Noop)
      return s;
    if (argus_status s = cudaDeviceReady("argus_attention_prefill"))
      return s;
    if (const WgmmaPrefillKernel *k = wgmmaKernelFor(a))
      return launchWgmma(*k, a, params, static_cast<cudaStream_t>(stream));
    const PrefillKernel *k = kernelFor(a.dtype == ARGUS_DTYPE_F16, params.headDim, params.valueDim);
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
