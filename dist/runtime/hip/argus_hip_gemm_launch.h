//===- argus_hip_gemm_launch.h - argus_gemm_args into a generated GEMM kernel -===//
//
// A hip library's GEMM kernels are instances of templates/gemm/gemm_tn_cdna.argus
// that argus-gen emitted; their parameters follow the template's, in its order
// (A, B, C, bias, alpha, beta, has_bias). The library's tables include each
// generated unit with ARGUS_GPU_LAUNCH_ONLY (its parameter struct and launch
// function, host code) and instantiate launchGeneratedGemm for it, so the
// struct the kernel reads is the one its own unit declares.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_GEMM_LAUNCH_H
#define ARGUS_HIP_GEMM_LAUNCH_H

#include "argus_error.h"
#include "argus_hip_runtime.h"
#include "argus_hip_tile_launch.h"
#include "argus_kernels.h"

namespace argus_rt {

/// A rows x cols matrix with row pitch `ld` (elements) as a kernel tensor.
inline argus::gpu::tile::Tensor hipMatrix(const void *data, int64_t rows, int64_t cols, int64_t ld) {
  return {data, {rows, cols, 0, 0}, {ld, 1, 0, 0}};
}

/// Enqueues the generated kernel `symbol` (parameters Params, launch function
/// Launch) for the call `args`, which argus_hip_gemm.cpp has validated.
template <class Params, argus::gpu::tile::LaunchShape (*Launch)(Params &)>
argus_status launchGeneratedGemm(const argus_gemm_args *args, const char *symbol, void *stream) {
  const argus_gemm_args &g = *args;
  Params p{};
  p.A = hipMatrix(g.a, g.m, g.k, g.lda);
  p.B = hipMatrix(g.b, g.n, g.k, g.ldb);
  p.C = hipMatrix(g.c, g.m, g.n, g.ldc);
  p.bias = {g.bias, {g.n, 0, 0, 0}, {1, 0, 0, 0}};
  p.alpha = g.alpha;
  p.beta = g.beta;
  p.has_bias = g.bias ? 1 : 0;
  const argus::gpu::tile::LaunchShape shape = Launch(p);
  if (shape.error)
    return fail(ARGUS_ERROR_UNSUPPORTED, "argus_gemm: kernel %s refuses the call: %s", symbol, shape.error);
  void *arguments[] = {&p};
  return hipLaunch("argus_gemm",
                   {symbol, unsigned(shape.grid[0]), unsigned(shape.grid[1]), unsigned(shape.threads), arguments,
                    unsigned(shape.grid[2])},
                   stream);
}

} // namespace argus_rt

#endif // ARGUS_HIP_GEMM_LAUNCH_H
