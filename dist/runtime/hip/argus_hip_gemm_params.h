//===- argus_hip_gemm_params.h - the GEMM kernels' one argument ------------===//
//
// Every CDNA GEMM kernel takes this struct by value (one kernarg segment), so
// the host launches any of them the same way: hipModuleLaunchKernel with
// kernelParams = { &params }. Plain C++ shared by the kernels and the host
// runtime; its layout is the contract between them.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_GEMM_PARAMS_H
#define ARGUS_HIP_GEMM_PARAMS_H

#include <stdint.h>

namespace argus::hip {

/// C = alpha·A·Bᵀ + beta·C (+ bias), bf16 or f16 patterns in memory, f32 arithmetic.
/// A is m x k with row pitch lda, B is n x k (pitch ldb), C is m x n (pitch
/// ldc), all in elements; bias is n elements or null. C is not read when beta
/// is 0. The kernels require a and b 16-byte aligned and lda, ldb multiples of
/// 8 (argus_hip_schedule.h: operandsAligned).
struct GemmParams {
  const uint16_t *a;
  const uint16_t *b;
  uint16_t *c;
  const uint16_t *bias;
  int64_t lda, ldb, ldc;
  int32_t m, n, k;
  float alpha, beta;
};

} // namespace argus::hip

#endif // ARGUS_HIP_GEMM_PARAMS_H
