//===- argus_hip_moe_kernel.h - routed SwiGLU experts on CDNA --------------===//
//
// The hand-written kernels of argus_moe (the pipeline and its workspace are
// described in gpu/argus_gpu_moe_params.h, its launches in
// argus_hip_moe_params.h): align, the GPU one (gpu/argus_gpu_moe_routing.h)
// on a CDNA workgroup. The route before it and the gather, expert GEMMs
// and combine after it are generated from templates.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_MOE_KERNEL_H
#define ARGUS_HIP_MOE_KERNEL_H

#include "argus_hip_device.h"
#include "argus_hip_moe_params.h"
#include "gpu/argus_gpu_moe_routing.h"

namespace argus::hip {

/// What the shared align kernel (gpu/argus_gpu_moe_routing.h) takes of a CDNA workgroup.
struct HipThreads {
  static ARGUS_HIP_FN int item() { return workItem(); }
  static ARGUS_HIP_FN void barrier() { hip::barrier(); }
  static ARGUS_HIP_FN int atomicAdd(int *p, int v) { return hip::atomicAdd(p, v); }
};

ARGUS_HIP_FN void moeAlign(const MoeParams &p) {
  ARGUS_LDS(shared, gpu::kMoeAlignSharedBytes);
  gpu::moeAlign<HipThreads>(p, shared);
}

} // namespace argus::hip

#endif // ARGUS_HIP_MOE_KERNEL_H
