// The launchers a cuda-sm90a library's tables point at: one Hopper GEMM configuration each,
// called with the C ABI's arguments (validated, bf16, m, n, k >= 1 and TMA-compatible).
#pragma once

#include "argus_kernels.h"
#include "argus_sm90_gemm_launch.h"

namespace argus::sm90 {

inline GemmArgs gemmArgs(const argus_gemm_args &a) {
  GemmArgs g{};
  g.m = int(a.m), g.n = int(a.n), g.k = int(a.k);
  g.a = static_cast<const __nv_bfloat16 *>(a.a), g.lda = a.lda;
  g.b = static_cast<const __nv_bfloat16 *>(a.b), g.ldb = a.ldb;
  g.epilogue.c = a.c, g.epilogue.ldc = a.ldc, g.epilogue.bias = a.bias;
  g.epilogue.alpha = a.alpha, g.epilogue.beta = a.beta;
  return g;
}

template <bool Persistent, int BM, int BN, int Stages, int Split = 1>
int launchArgusGemm(const argus_gemm_args *args, void *stream) {
  const GemmArgs g = gemmArgs(*args);
  auto *s = static_cast<cudaStream_t>(stream);
  if constexpr (Persistent)
    return int(launchGemmPersistent<BM, BN, Stages, __nv_bfloat16>(g, s));
  else
    return int(launchGemmSplitK<BM, BN, Stages, __nv_bfloat16>(g, Split, s));
}

// The few-rows kernel (m <= 8 * TokenBlocks) in the warps and unroll chooseGemmConfig assumes.
template <int TokenBlocks, int Split>
int launchArgusGemmRows(const argus_gemm_args *args, void *stream) {
  return int(launchGemmRows<TokenBlocks, kRowsWarps, kRowsUnroll, __nv_bfloat16>(gemmArgs(*args), Split,
                                                                                  static_cast<cudaStream_t>(stream)));
}

}  // namespace argus::sm90
