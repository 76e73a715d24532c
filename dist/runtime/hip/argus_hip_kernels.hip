//===- argus_hip_kernels.hip - the hand-written kernels of a hip library ----===//
//
// The hand-written kernel a hip-gfx942 / hip-gfx90a library launches: the
// MoE align (a prefix sum and LDS atomics, which the DSL has not), one
// extern "C" symbol. argus-gen compiles them device-only by clang-22 (no
// ROCm install) in one code object with the kernels it generates from
// templates (GEMM, prefill, paged decode, the MoE route, gather, expert
// GEMMs and combine; HipLibraryBuilder.cpp):
//
//   clang++-22 -x hip --offload-arch=gfx942 -nogpulib -nogpuinc -O3 -std=c++17
//       --offload-device-only --no-gpu-bundle-output -I dist/runtime/hip
//       argus_hip_code_object.hip -o argus_hip_gfx942.co
//
//===----------------------------------------------------------------------===//
#include "argus_hip_moe_kernel.h"

using argus::hip::MoeParams;

ARGUS_HIP_KERNEL(argus::hip::kMoeAlignThreads) void argus_hip_moe_align(MoeParams p) { argus::hip::moeAlign(p); }

