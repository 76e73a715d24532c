//===- argus_gemm_transposed.cpp - C^T = B A^T with A packed per call -----===//
#include "argus_gemm_transposed.h"

#include "argus_gemm_validate.h"
#include "argus_packed_weights.h"
#include "argus_registry.h"
#include "argus_tensor_view.h"

#include <algorithm>
#include <cstdlib>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace argus_rt {
namespace {

/// Columns of the generic kernels' tiles (GemmPlan.cpp, chooseCpuGemmTiles:
/// 64 columns from 2 rows up). Here they span rows of A: a call whose rows
/// would leave over a fifth of its tiles' columns empty keeps the plain
/// form, whose row tiles stop at the last row.
constexpr int64_t kKernelColumns = 64;
/// The kernel's rows are the weights': fewer than one 256-row tile of the
/// generic kernel's tallest bucket would leave most of it empty.
constexpr int64_t kMinWeightRows = 256;
/// Packed rows of A per chunk: at most this many bytes of panels, between
/// one and eight column tiles (a chunk's kernel call reads all of B once).
constexpr int64_t kMaxScratchBytes = int64_t(32) << 20;
constexpr int64_t kMaxChunkRows = 8 * kKernelColumns;

int64_t chunkRows(int64_t m, int64_t k) {
  const int64_t fit = kMaxScratchBytes / (k * int64_t(sizeof(float))) / kKernelColumns * kKernelColumns;
  return std::min(m, std::clamp(fit, kKernelColumns, kMaxChunkRows));
}

/// The calling thread's scratch, grown to `bytes` (64-byte aligned), or
/// nullptr when that much cannot be allocated (the old buffer is kept).
char *scratchBuffer(size_t bytes) {
  struct Scratch {
    char *data = nullptr;
    size_t bytes = 0;
    ~Scratch() { std::free(data); }
  };
  thread_local Scratch scratch;
  if (scratch.bytes < bytes) {
    char *grown = static_cast<char *>(std::aligned_alloc(kPackedHeaderBytes, bytes));
    if (!grown) return nullptr;
    std::free(scratch.data);
    scratch.data = grown;
    scratch.bytes = bytes;
  }
  return scratch.data;
}

/// C[i][j] += bias[j]: what the kernel would have added last, in f32.
void addBias(const argus_gemm_args &g, int threads) {
  const float *bias = static_cast<const float *>(g.bias);
  float *c = static_cast<float *>(g.c);
#ifndef _OPENMP
  (void)threads;
#endif
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : omp_get_max_threads())
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) c[i * g.ldc + j] += bias[j];
}

} // namespace

bool transposedFormFits(const argus_gemm_args &g) {
  const bool f32 = g.a_type == ARGUS_DTYPE_F32 && g.b_type == ARGUS_DTYPE_F32 && g.c_type == ARGUS_DTYPE_F32;
  if (!f32 || gemmPackedB(g) || !panelsServed(ARGUS_DTYPE_F32)) return false;
  const int64_t columns = (g.m + kKernelColumns - 1) / kKernelColumns * kKernelColumns;
  return g.n >= kMinWeightRows && g.m >= kKernelColumns && 4 * columns <= 5 * g.m;
}

bool runTransposedGemm(const argus_gemm_args &g, argus_cpu_kernel_fn kernel, int numThreads) {
  const int64_t rows = chunkRows(g.m, g.k);
  char *scratch = scratchBuffer(kPackedHeaderBytes +
                                size_t(panelLayout(ARGUS_DTYPE_F32, 1, rows, g.k).matrixStride) * sizeof(float));
  if (!scratch) return false;
  const float *a = static_cast<const float *>(g.a);
  float *c = static_cast<float *>(g.c);
  for (int64_t m0 = 0; m0 < g.m; m0 += rows) {
    const int64_t mc = std::min(rows, g.m - m0);
    const argus_weights_desc chunk{sizeof chunk, 1, mc, g.k, ARGUS_DTYPE_F32, a + m0 * g.lda, g.lda, 0};
    PackedWeights panels = panelLayout(ARGUS_DTYPE_F32, 1, mc, g.k);
    packWeights(chunk, panels, scratch, numThreads);
    panels.data = scratch + kPackedHeaderBytes;

    argus_cpu_arg args[ARGUS_GEMM_KERNEL_ARGS];
    setMatrixArg(args[0], g.b, g.n, g.k, g.ldb); /* the weights: the product's rows */
    args[1].tensor = panels.matrix(0);           /* A's rows: its columns */
    argus_cpu_tensor &ct = args[2].tensor;       /* C^T: n x mc, element (j, i) at C[m0 + i][j] */
    ct.data = c + m0 * g.ldc;
    ct.shape[0] = g.n, ct.shape[1] = mc;
    ct.stride[0] = 1, ct.stride[1] = g.ldc;
    ct.layout = ARGUS_CPU_STRIDED;
    setMatrixArg(args[3], nullptr, mc, 0, 1); /* no bias in the kernel: it would add it per column */
    setScalarArg(args[4], g.alpha, 0);
    setScalarArg(args[5], g.beta, 0);
    setScalarArg(args[6], 0, 0);
    kernel(args, numThreads);
  }
  if (g.bias) addBias(g, numThreads);
  return true;
}

} // namespace argus_rt
