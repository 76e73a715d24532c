//===- argus_cuda_decode.cu - argus_attention_decode of a cuda-sm90a library -===//
//
// The GPU front (argus_gpu_decode.h), then one launch on the caller's stream:
// grid (cluster, KV heads, sequences) with thread-block clusters of
// decodeClusterSize CTAs along x, each cluster one (sequence, KV head) pair
// (argus_sm90_decode_kernel.h), for bf16 or f16. block_table and seqlens_kv stay on the
// device: the cluster size is sized from the block table's capacity, which
// the host knows, not from the lengths, which it would have to copy back.
// Nothing synchronises.
//
//===----------------------------------------------------------------------===//
#include "argus_cuda_device.h"
#include "argus_error.h"
#include "argus_gpu_decode.h"
#include "argus_sm90_decode_kernel.h"
#include "argus_sm90_gemm_launch.h"

#include <cuda_runtime.h>

#include <atomic>

namespace argus_rt {
namespace {

using namespace argus::cuda;

template <class E, int G>
__global__ void __launch_bounds__(kDecodeWarps * kWarpSize) argusSm90Decode(const DecodeParams params) {
  decodeAttention<E, kDecodeWarps, G>(params);
}

using DecodeKernel = void (*)(DecodeParams);

// One kernel per element type and group bound (decodeGroupBound): [f16][log2 of the bound].
constexpr DecodeKernel kDecodeKernels[2][4] = {
    {argusSm90Decode<Bf16, 1>, argusSm90Decode<Bf16, 2>, argusSm90Decode<Bf16, 4>, argusSm90Decode<Bf16, 8>},
    {argusSm90Decode<F16, 1>, argusSm90Decode<F16, 2>, argusSm90Decode<F16, 4>, argusSm90Decode<F16, 8>},
};

int log2Of(int bound) { return bound == 1 ? 0 : bound == 2 ? 1 : bound == 4 ? 2 : 3; }

// The largest dynamic shared memory the kernel takes (group 8, head dims 256).
constexpr int kMaxDecodeSharedBytes =
    decodeSharedLayout(kMaxDecodeGroup, kMaxDecodeHeadDim, kMaxDecodeValueDim, kDecodeWarps).bytes();
constexpr int kCachedDevices = 64;
std::atomic<int> largestClusters[kCachedDevices];  // 0: the device's kernels are not set up yet

// Once per device: every kernel may take kMaxDecodeSharedBytes and non-portable clusters; then the
// largest cluster the GPU schedules at that shared memory: 16 CTAs where it can (one (sequence,
// KV head) at batch 1 then covers 16 SMs: 1.35x at 16384 tokens on an H200), else the portable 8.
cudaError_t setUpKernels(int *largestCluster) {
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess)
    return e;
  if (device < kCachedDevices && (*largestCluster = largestClusters[device].load(std::memory_order_relaxed)))
    return cudaSuccess;
  cudaError_t e = cudaSuccess;
  for (const auto &kernels : kDecodeKernels)
    for (DecodeKernel kernel : kernels) {
      if (e == cudaSuccess)
        e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxDecodeSharedBytes);
      if (e == cudaSuccess)
        e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    }
  if (e != cudaSuccess)
    return e;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(kMaxDecodeCluster));
  config.blockDim = dim3(kDecodeWarps * kWarpSize);
  config.dynamicSmemBytes = size_t(kMaxDecodeSharedBytes);
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = unsigned(kMaxDecodeCluster);
  attribute.val.clusterDim.y = attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  int clusters = 0;  // of the heaviest kernel (group 8, bf16: the most registers)
  if (cudaOccupancyMaxActiveClusters(&clusters, kDecodeKernels[0][3], &config) != cudaSuccess) {
    cudaGetLastError();  // a refused query is no error of the caller's
    clusters = 0;
  }
  *largestCluster = clusters > 0 ? kMaxDecodeCluster : kPortableDecodeCluster;
  if (device < kCachedDevices)
    largestClusters[device].store(*largestCluster, std::memory_order_relaxed);
  return cudaSuccess;
}

} // namespace
} // namespace argus_rt

using namespace argus_rt;

extern "C" ARGUS_API argus_status argus_attention_decode(const argus_attention_decode_args *args, void *stream) {
  return guard("argus_attention_decode", [&] {
    static constexpr GpuDecodeLimits kLimits{"the Hopper kernel", kMaxDecodeGroup, kMaxDecodeHeadDim,
                                             kMaxDecodeValueDim, 4, 65535, /*takesF16=*/true};
    argus_attention_decode_args a;
    GpuDecodeStep step;
    float scaleLog2 = 0.0f;
    if (argus_status s = prepareGpuDecode(args, kLimits, a, &step, &scaleLog2); s || step == GpuDecodeStep::Noop)
      return s;
    if (argus_status s = cudaDeviceReady("argus_attention_decode"))
      return s;
    int largestCluster = kPortableDecodeCluster;
    if (argus_status s = cudaStatus("argus_attention_decode", int(setUpKernels(&largestCluster))))
      return s;
    const DecodeParams params{static_cast<const uint16_t *>(a.q), static_cast<const uint16_t *>(a.k_cache),
                              static_cast<const uint16_t *>(a.v_cache), a.block_table, a.seqlens_kv,
                              static_cast<uint16_t *>(a.o), a.max_pages_per_seq, int32_t(a.num_heads),
                              int32_t(a.num_kv_heads), int32_t(a.head_dim), int32_t(a.v_head_dim),
                              int32_t(a.page_size), scaleLog2};
    static const int multiprocessors = argus::sm90::multiprocessorCount();
    const int cluster = decodeClusterSize(a.num_kv_heads * a.batch, a.max_pages_per_seq * a.page_size,
                                          multiprocessors > 0 ? multiprocessors : 132, largestCluster);
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(unsigned(cluster), unsigned(a.num_kv_heads), unsigned(a.batch));
    config.blockDim = dim3(kDecodeWarps * kWarpSize);
    const int groupBound = decodeGroupBound(int(a.num_heads / a.num_kv_heads));
    config.dynamicSmemBytes =
        size_t(decodeSharedLayout(groupBound, int(a.head_dim), int(a.v_head_dim), kDecodeWarps).bytes());
    config.stream = static_cast<cudaStream_t>(stream);
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = unsigned(cluster);
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    const DecodeKernel kernel = kDecodeKernels[a.dtype == ARGUS_DTYPE_F16 ? 1 : 0][log2Of(groupBound)];
    return cudaStatus("argus_attention_decode", int(cudaLaunchKernelEx(&config, kernel, params)));
  });
}
