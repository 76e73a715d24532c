//===- argus_cuda_device.h - is there a GPU these kernels run on ----------===//
//
// A cuda-sm90a library loads on any machine (it links the CUDA runtime
// statically and no libcuda); whether it can run is asked at each call, of
// the caller's current device, and answered from a per-device cache.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_CUDA_DEVICE_H
#define ARGUS_CUDA_DEVICE_H

#include "argus_kernels.h"

namespace argus_rt {

/// ARGUS_OK when the current CUDA device is an sm_90 GPU (H100, H200);
/// otherwise ARGUS_ERROR_DEVICE with "<function>: " and the reason (no
/// driver, no device, another architecture) as the last error.
argus_status cudaDeviceReady(const char *function);

/// ARGUS_OK for cudaSuccess (an int holding a cudaError_t); otherwise
/// ARGUS_ERROR_DEVICE with "<function>: CUDA error <name>: <message>".
argus_status cudaStatus(const char *function, int error);

} // namespace argus_rt

#endif // ARGUS_CUDA_DEVICE_H
