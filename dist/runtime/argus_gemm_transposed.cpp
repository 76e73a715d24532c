//===- argus_gemm_transposed.cpp - C^T = B A^T with A packed per call -----===//
#include "argus_gemm_transposed.h"

#include "argus_gemm_validate.h"
#include "argus_numerics.h"
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
/// 64 columns from 2 rows up). Here they span rows of A.
constexpr int64_t kKernelColumns = 64;
/// The columns a partial tile of A's rows computes in: the panel forms stop
/// at the 16-column half of a panel that holds the last row (panel_window).
/// A call whose rows would leave over a fifth of those columns empty keeps
/// the plain form, whose row tiles stop at the last row.
constexpr int64_t kComputedColumns = 16;
/// Fewer rows keep the plain form: f32's inner products (up to 16 rows) and
/// bf16's (up to 31 of their 32; at 26-31 rows transposed ran 0.93-1.0x),
/// which read the weights in place too.
constexpr int64_t kMinRowsF32 = 17, kMinRowsBf16 = 32;
/// The kernel's rows are the weights': fewer than one 256-row tile of the
/// generic kernel's tallest bucket would leave most of it empty.
constexpr int64_t kMinWeightRows = 256;
/// Packed rows of A per chunk: at most this many bytes of panels, between
/// one and eight column tiles (a chunk's kernel call reads all of B once).
constexpr int64_t kMaxScratchBytes = int64_t(32) << 20;
/// A bf16 C's f32 staging per kernel call (4096 weight rows of 512 rows of A).
constexpr int64_t kMaxStagedBytes = int64_t(8) << 20;
constexpr int64_t kMaxChunkRows = 8 * kKernelColumns;

int64_t chunkRows(int64_t m, int64_t k, int64_t elementBytes) {
  const int64_t fit = kMaxScratchBytes / (k * elementBytes) / kKernelColumns * kKernelColumns;
  return std::min(m, std::clamp(fit, kKernelColumns, kMaxChunkRows));
}

/// A per-thread buffer, grown to `bytes` (64-byte aligned), or nullptr when
/// that much cannot be allocated (the old buffer is kept).
class ThreadScratch {
public:
  ThreadScratch() = default;
  ThreadScratch(const ThreadScratch &) = delete;
  ThreadScratch &operator=(const ThreadScratch &) = delete;
  ~ThreadScratch() { std::free(data_); }
  char *grow(size_t bytes) {
    if (bytes_ < bytes) {
      char *grown = static_cast<char *>(std::aligned_alloc(kPackedHeaderBytes, (bytes + 63) / 64 * 64));
      if (!grown) return nullptr;
      std::free(data_);
      data_ = grown;
      bytes_ = bytes;
    }
    return data_;
  }

private:
  char *data_ = nullptr;
  size_t bytes_ = 0;
};

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

/// The kernel's epilogue for a bf16 C, from its f32 product `alpha * A B^T`
/// staged in `staged` (rows m0.., columns n0.., `ld` apart): beta * C, then
/// the bias, each added in f32 as the kernel adds them, rounded once.
void finishBf16(const argus_gemm_args &g, const float *staged, int64_t ld, int64_t m0, int64_t mc, int64_t n0,
                int64_t nc, int threads) {
  uint16_t *c = static_cast<uint16_t *>(g.c);
  const uint16_t *bias = static_cast<const uint16_t *>(g.bias);
#ifndef _OPENMP
  (void)threads;
#endif
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : omp_get_max_threads())
  for (int64_t i = 0; i < mc; ++i)
    for (int64_t j = 0; j < nc; ++j) {
      uint16_t &out = c[(m0 + i) * g.ldc + n0 + j];
      float v = staged[i * ld + j];
      if (g.beta != 0.0f) v = v + argus_num::bf16_to_f32(out) * g.beta;
      if (bias) v = v + argus_num::bf16_to_f32(bias[n0 + j]);
      storeRounded(&out, 0, v, ARGUS_DTYPE_BF16);
    }
}

/// Rows of the weights per kernel call when a bf16 C is staged in f32:
/// `mc` x that many floats at most kMaxStagedBytes, whole 256-row tiles.
int64_t stagedWeightRows(int64_t n, int64_t mc) {
  const int64_t fit = kMaxStagedBytes / (mc * int64_t(sizeof(float))) / kMinWeightRows * kMinWeightRows;
  return std::min(n, std::max(fit, kMinWeightRows));
}

} // namespace

bool transposedFormFits(const argus_gemm_args &g) {
  const bool f32 = g.a_type == ARGUS_DTYPE_F32 && g.b_type == ARGUS_DTYPE_F32 && g.c_type == ARGUS_DTYPE_F32;
  const bool bf16 = g.a_type == ARGUS_DTYPE_BF16 && g.b_type == ARGUS_DTYPE_BF16 &&
                    (g.c_type == ARGUS_DTYPE_F32 || g.c_type == ARGUS_DTYPE_BF16);
  if (!(f32 || bf16) || gemmPackedB(g) || !panelsServed(g.a_type)) return false;
  /* Zen 4, two threads, N x K = 4096 x 4096 against the plain form, both orders: f32 32, 40, 48, 96, 200 rows
     1.10-1.13x, 1.28-1.31x, 1.38-1.39x, 1.14-1.15x, 1.05-1.06x (28 rows 1.12-1.14x); bf16 32 rows 1.01-1.04x, 40
     rows 1.09-1.12x (and 14336 x 4096, 4096 x 14336: 1.08-1.18x), 48 1.15x, 96 1.13x, 200 1.02x */
  const int64_t columns = (g.m + kComputedColumns - 1) / kComputedColumns * kComputedColumns;
  return g.n >= kMinWeightRows && g.m >= (f32 ? kMinRowsF32 : kMinRowsBf16) && 4 * columns <= 5 * g.m;
}

bool packRowsInPanels(argus_dtype dtype, const void *rows, int64_t m, int64_t k, int64_t ld, int numThreads,
                      PackedWeights *panels) {
  static thread_local ThreadScratch packed;
  *panels = panelLayout(dtype, 1, m, k);
  char *scratch = packed.grow(kPackedHeaderBytes + size_t(panels->matrixStride * elementBytes(dtype)));
  if (!scratch) return false;
  const argus_weights_desc desc{sizeof desc, 1, m, k, dtype, rows, ld, 0};
  packWeights(desc, *panels, scratch, numThreads);
  panels->data = scratch + kPackedHeaderBytes;
  return true;
}

bool runTransposedGemm(const argus_gemm_args &g, argus_cpu_kernel_fn kernel, int numThreads) {
  static thread_local ThreadScratch stagedC;
  const int64_t aBytes = elementBytes(g.a_type);
  const bool staged = g.c_type == ARGUS_DTYPE_BF16; /* the kernel writes f32: staged, then finished here */
  const int64_t rows = chunkRows(g.m, g.k, aBytes);
  const int64_t weightRows = staged ? stagedWeightRows(g.n, rows) : g.n;
  float *stage = staged ? reinterpret_cast<float *>(stagedC.grow(size_t(rows * weightRows) * sizeof(float))) : nullptr;
  if (staged && !stage) return false;
  const char *a = static_cast<const char *>(g.a);
  for (int64_t m0 = 0; m0 < g.m; m0 += rows) {
    const int64_t mc = std::min(rows, g.m - m0);
    PackedWeights panels;
    /* only the first chunk can fail, before anything is written: its buffer fits every later one */
    if (!packRowsInPanels(g.a_type, a + m0 * g.lda * aBytes, mc, g.k, g.lda, numThreads, &panels)) return false;

    for (int64_t n0 = 0; n0 < g.n; n0 += weightRows) {
      const int64_t nc = std::min(weightRows, g.n - n0);
      argus_cpu_arg args[ARGUS_GEMM_KERNEL_ARGS];
      setMatrixArg(args[0], offsetBy(g.b, n0 * g.ldb, g.b_type), nc, g.k, g.ldb); /* the weights: the rows */
      args[1].tensor = panels.matrix(0);                                        /* A's rows: the columns */
      argus_cpu_tensor &ct = args[2].tensor; /* C^T: nc x mc, element (j, i) at C[m0 + i][n0 + j] */
      ct.data = staged ? static_cast<void *>(stage) : static_cast<float *>(g.c) + m0 * g.ldc + n0;
      ct.shape[0] = nc, ct.shape[1] = mc;
      ct.stride[0] = 1, ct.stride[1] = staged ? nc : g.ldc;
      ct.layout = ARGUS_CPU_STRIDED;
      setMatrixArg(args[3], nullptr, mc, 0, 1); /* no bias in the kernel: it would add it per column */
      setScalarArg(args[4], g.alpha, 0);
      setScalarArg(args[5], staged ? 0.0 : g.beta, 0);
      setScalarArg(args[6], 0, 0);
      kernel(args, numThreads);
      if (staged) finishBf16(g, stage, nc, m0, mc, n0, nc, numThreads);
    }
  }
  if (g.bias && !staged) addBias(g, numThreads);
  return true;
}

} // namespace argus_rt
