//===- argus_moe_transposed.cpp - plain experts' blocks, transposed --------===//
#include "argus_moe_transposed.h"

#include "argus_gemm_transposed.h"
#include "argus_packed_weights.h"
#include "argus_registry.h"
#include "argus_tensor_view.h"

namespace argus_rt {

bool runGateUpTransposed(argus_cpu_kernel_fn kernel, argus_dtype dtype, const void *x, int64_t rows, int64_t hidden,
                         int64_t intermediate, const void *wg, const void *wu, void *h, int numThreads) {
  PackedWeights panels;
  if (!packRowsInPanels(dtype, x, rows, hidden, hidden, numThreads, &panels)) return false;
  argus_cpu_arg args[ARGUS_MOE_GATE_UP_KERNEL_ARGS] = {};
  args[0].tensor = matrixView(wg, intermediate, hidden, hidden);
  args[1].tensor = matrixView(wu, intermediate, hidden, hidden);
  args[2].tensor = panels.matrix(0);
  args[3].tensor = tensorView(h, {intermediate, rows}, {1, intermediate}); /* H^T: element (j, i) at h[i][j] */
  kernel(args, numThreads);
  return true;
}

bool runDownTransposed(argus_cpu_kernel_fn kernel, argus_dtype dtype, const void *h, int64_t rows,
                       int64_t intermediate, int64_t hidden, const void *wd, float *y, int numThreads) {
  argus_gemm_args g = {};
  g.struct_size = sizeof g;
  g.m = rows, g.n = hidden, g.k = intermediate;
  g.a_type = g.b_type = dtype, g.c_type = ARGUS_DTYPE_F32;
  g.a = h, g.lda = intermediate;
  g.b = wd, g.ldb = intermediate;
  g.c = y, g.ldc = hidden;
  g.alpha = 1.0f, g.beta = 0.0f;
  return runTransposedGemm(g, kernel, numThreads);
}

} // namespace argus_rt
