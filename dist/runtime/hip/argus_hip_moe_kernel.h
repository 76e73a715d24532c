//===- argus_hip_moe_kernel.h - routed SwiGLU experts on CDNA --------------===//
//
// The hand-written kernels of argus_moe (the pipeline and its workspace are
// described in gpu/argus_gpu_moe_params.h, its launches in
// argus_hip_moe_params.h): route and align, the GPU ones
// (gpu/argus_gpu_moe_routing.h) on a CDNA wave. The gather, expert GEMMs
// and combine after them are generated from templates.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_MOE_KERNEL_H
#define ARGUS_HIP_MOE_KERNEL_H

#include "argus_hip_device.h"
#include "argus_hip_moe_params.h"
#include "gpu/argus_gpu_moe_routing.h"

namespace argus::hip {

/// What the shared route and align kernels (gpu/argus_gpu_moe_routing.h) take of a CDNA wave.
struct HipThreads {
  static constexpr int kLanes = kWaveSize;
  static ARGUS_HIP_FN int lane() { return hip::lane(); }
  static ARGUS_HIP_FN int item() { return workItem(); }
  static ARGUS_HIP_FN int group(int d) { return workGroup(d); }
  static ARGUS_HIP_FN void barrier() { hip::barrier(); }
  static ARGUS_HIP_FN float laneXor(float v, int mask) { return shuffle(v, hip::lane() ^ mask); }
  static ARGUS_HIP_FN int atomicAdd(int *p, int v) { return hip::atomicAdd(p, v); }
  static ARGUS_HIP_FN float exp2(float x) { return hip::exp2(x); }
};

ARGUS_HIP_FN void moeRoute(const MoeParams &p) { gpu::moeRoute<HipThreads>(p); }

ARGUS_HIP_FN void moeAlign(const MoeParams &p) {
  ARGUS_LDS(shared, gpu::kMoeAlignSharedBytes);
  gpu::moeAlign<HipThreads>(p, shared);
}

} // namespace argus::hip

#endif // ARGUS_HIP_MOE_KERNEL_H
