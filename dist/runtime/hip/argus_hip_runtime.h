//===- argus_hip_runtime.h - the HIP runtime, found at run time -----------===//
//
// A hip library links no ROCm library: it loads libamdhip64 with dlopen at
// the first call that needs the GPU ($ARGUS_HIP_RUNTIME names another file),
// loads its embedded code object once per device with hipModuleLoadData, and
// launches kernels by name with hipModuleLaunchKernel on the caller's stream.
// A machine without ROCm, without a GPU, or with a GPU of another
// architecture gets ARGUS_ERROR_DEVICE and a message that says which.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_RUNTIME_H
#define ARGUS_HIP_RUNTIME_H

#include "argus_kernels.h"

namespace argus_rt {

/// A kernel launch: grid in workgroups, workgroup size in work-items, the
/// kernel's arguments as hipModuleLaunchKernel's kernelParams.
struct HipLaunch {
  const char *kernel;
  unsigned gridX, gridY, threads;
  void **arguments;
  unsigned gridZ = 1;
};

/// Enqueues `launch` on `stream` (a hipStream_t; null for the default
/// stream) without synchronising. ARGUS_OK, or ARGUS_ERROR_DEVICE with
/// "<function>: " and what failed (no runtime, no device, no code object for
/// this GPU, the launch's own error) as the last error.
argus_status hipLaunch(const char *function, const HipLaunch &launch, void *stream);

/// The HIP runtime file this process would load (for messages and tests).
const char *hipRuntimeName();

} // namespace argus_rt

#endif // ARGUS_HIP_RUNTIME_H
