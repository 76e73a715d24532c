//===- argus_gpu_generated_gemm.h - argus_gemm_args as a generated kernel's -===//
//
// The GEMM kernels argus-gen generates from templates/gemm/gemm_tn_cdna.argus
// (a hip library's, and a cuda-sm90a library's fallback) take the template's
// parameters in its order: (A, B, C, bias, alpha, beta, has_bias). Each
// target's launcher (argus_hip_gemm_launch.h, argus_cuda_generated_gemm.h)
// fills the unit's own parameter struct here, then asks its launch function.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_GENERATED_GEMM_H
#define ARGUS_GPU_GENERATED_GEMM_H

#include "argus_gpu_launch.h"
#include "argus_kernels.h"

namespace argus_rt {

/// A rows x cols matrix with row pitch `ld` (elements) as a kernel tensor.
inline argus::gpu::tile::Tensor gpuMatrix(const void *data, int64_t rows, int64_t cols, int64_t ld) {
  return {data, {rows, cols, 0, 0}, {ld, 1, 0, 0}};
}

/// The parameters of a generated GEMM kernel (struct Params) for the call `g`.
template <class Params>
Params generatedGemmParams(const argus_gemm_args &g) {
  Params p{};
  p.A = gpuMatrix(g.a, g.m, g.k, g.lda);
  p.B = gpuMatrix(g.b, g.n, g.k, g.ldb);
  p.C = gpuMatrix(g.c, g.m, g.n, g.ldc);
  p.bias = {g.bias, {g.n, 0, 0, 0}, {1, 0, 0, 0}};
  p.alpha = g.alpha;
  p.beta = g.beta;
  p.has_bias = g.bias ? 1 : 0;
  return p;
}

} // namespace argus_rt

#endif // ARGUS_GPU_GENERATED_GEMM_H
