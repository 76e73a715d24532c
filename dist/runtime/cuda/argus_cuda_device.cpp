//===- argus_cuda_device.cpp - is there a GPU these kernels run on --------===//
#include "argus_cuda_device.h"

#include "argus_error.h"

#include <cuda_runtime.h>

#include <atomic>

namespace argus_rt {
namespace {

constexpr int kCachedDevices = 64;
// Per device: 0 not asked yet, else the compute capability major * 10 + minor.
std::atomic<int> capability[kCachedDevices];

} // namespace

argus_status cudaStatus(const char *function, int error) {
  const auto e = static_cast<cudaError_t>(error);
  if (e == cudaSuccess)
    return ARGUS_OK;
  return fail(ARGUS_ERROR_DEVICE, "%s: CUDA error %s: %s", function, cudaGetErrorName(e), cudaGetErrorString(e));
}

argus_status cudaDeviceReady(const char *function) {
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) {
    cudaGetLastError();  // a failed query is not the caller's sticky error
    return fail(ARGUS_ERROR_DEVICE, "%s: no usable CUDA device (%s: %s); this library's kernels need an sm_90 GPU",
                function, cudaGetErrorName(e), cudaGetErrorString(e));
  }
  int known = device < kCachedDevices ? capability[device].load(std::memory_order_relaxed) : 0;
  if (known == 0) {
    int major = 0, minor = 0;
    if (cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
        e != cudaSuccess || cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
      cudaGetLastError();
      return fail(ARGUS_ERROR_DEVICE, "%s: cannot read the compute capability of CUDA device %d", function, device);
    }
    known = major * 10 + minor;
    if (device < kCachedDevices)
      capability[device].store(known, std::memory_order_relaxed);
  }
  if (known != 90)
    return fail(ARGUS_ERROR_DEVICE,
                "%s: CUDA device %d is sm_%d; this library holds sm_90a kernels (H100, H200)", function, device,
                known);
  return ARGUS_OK;
}

} // namespace argus_rt
