//===- argus_hip_kernels.hip - the code object of a hip library ------------===//
//
// Every kernel a hip-gfx942 / hip-gfx90a library launches, one extern "C"
// symbol each, compiled device-only by clang-22 (no ROCm install):
//
//   clang++-22 -x hip --offload-arch=gfx942 -nogpulib -nogpuinc -O3 -std=c++17
//       --offload-device-only --no-gpu-bundle-output -I dist/runtime/hip
//       argus_hip_kernels.hip -o argus_hip_gfx942.co
//
// The GEMM list must match kGemmShapes (argus_hip_schedule.h), each shape in bf16
// and f16; test/hip checks that every shape's symbols are in the code object.
//
//===----------------------------------------------------------------------===//
#include "argus_hip_gemm_kernel.h"

using argus::hip::GemmParams;

#define ARGUS_HIP_GEMM_KERNEL(BM, BN, WM, WN)                                                      \
  ARGUS_HIP_KERNEL(WM *WN * 64) void argus_hip_gemm_##BM##x##BN##_w##WM##x##WN(GemmParams p) {     \
    argus::hip::gemmTn<argus::hip::Element::Bf16, BM, BN, WM, WN>(p);                             \
  }                                                                                                \
  ARGUS_HIP_KERNEL(WM *WN * 64) void argus_hip_gemm_f16_##BM##x##BN##_w##WM##x##WN(GemmParams p) { \
    argus::hip::gemmTn<argus::hip::Element::F16, BM, BN, WM, WN>(p);                              \
  }

ARGUS_HIP_GEMM_KERNEL(256, 256, 2, 4)
ARGUS_HIP_GEMM_KERNEL(128, 128, 2, 2)
ARGUS_HIP_GEMM_KERNEL(64, 128, 2, 2)
ARGUS_HIP_GEMM_KERNEL(32, 64, 1, 2)

ARGUS_HIP_KERNEL(256) void argus_hip_gemm_beta_scale(GemmParams p, int workGroups) {
  argus::hip::gemmBetaScale<argus::hip::Element::Bf16>(p, workGroups);
}

ARGUS_HIP_KERNEL(256) void argus_hip_gemm_f16_beta_scale(GemmParams p, int workGroups) {
  argus::hip::gemmBetaScale<argus::hip::Element::F16>(p, workGroups);
}

#include "argus_hip_decode_kernel.h"

ARGUS_HIP_KERNEL(argus::hip::kDecodeWaves * 64) void argus_hip_decode(argus::hip::DecodeParams p) {
  argus::hip::decodeAttention<argus::hip::Element::Bf16, argus::hip::kDecodeWaves>(p);
}

ARGUS_HIP_KERNEL(argus::hip::kDecodeWaves * 64) void argus_hip_decode_f16(argus::hip::DecodeParams p) {
  argus::hip::decodeAttention<argus::hip::Element::F16, argus::hip::kDecodeWaves>(p);
}

#include "argus_hip_moe_kernel.h"

using argus::hip::MoeParams;

ARGUS_HIP_KERNEL(64) void argus_hip_moe_route(MoeParams p) { argus::hip::moeRoute(p); }
ARGUS_HIP_KERNEL(argus::hip::kMoeAlignThreads) void argus_hip_moe_align(MoeParams p) { argus::hip::moeAlign(p); }
ARGUS_HIP_KERNEL(argus::hip::kMoeThreads) void argus_hip_moe_gate_up(MoeParams p) { argus::hip::moeGateUp(p); }
ARGUS_HIP_KERNEL(argus::hip::kMoeThreads) void argus_hip_moe_down(MoeParams p) { argus::hip::moeDown(p); }
ARGUS_HIP_KERNEL(argus::hip::kMoeCombineThreads) void argus_hip_moe_combine(MoeParams p) { argus::hip::moeCombine(p); }

#include "argus_hip_prefill_kernel.h"

ARGUS_HIP_KERNEL(argus::hip::kPrefillWaves * 64) void argus_hip_prefill(argus::hip::PrefillParams p) {
  argus::hip::prefillAttention<argus::hip::Element::Bf16>(p);
}

ARGUS_HIP_KERNEL(argus::hip::kPrefillWaves * 64) void argus_hip_prefill_f16(argus::hip::PrefillParams p) {
  argus::hip::prefillAttention<argus::hip::Element::F16>(p);
}
