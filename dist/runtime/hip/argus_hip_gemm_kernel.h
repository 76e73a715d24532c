//===- argus_hip_gemm_kernel.h - C = alpha·A·Bᵀ + beta·C on CDNA MFMA ------===//
//
// bf16 or f16 (E) in and out, f32 accumulation.
// One workgroup computes one BM x BN tile of C: the shared MFMA main loop
// (argus_hip_mfma_tile.h) over buffer-loaded rows of A and B (rows past the
// matrix read zeros), then the epilogue: alpha, beta·C, bias, round to E,
// masked stores.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_GEMM_KERNEL_H
#define ARGUS_HIP_GEMM_KERNEL_H

#include "argus_hip_gemm_params.h"
#include "argus_hip_mfma_tile.h"

namespace argus::hip {

template <Element E, int BM, int BN, int WM, int WN>
ARGUS_HIP_FN void gemmTn(const GemmParams &p) {
  constexpr GemmShape shape{BM, BN, WM, WN};
  const int m0 = workGroup(1) * BM, n0 = workGroup(0) * BN;
  TileAccumulators<BM, BN, WM, WN> acc;
  mfmaTile<E>(BufferRows(p.a, p.lda, m0, p.m, BM, p.k), BufferRows(p.b, p.ldb, n0, p.n, BN, p.k), p.k, acc);

  const int l = lane(), r32 = l % 32;
  for (int i = 0; i < shape.blocksM(); ++i)
    for (int j = 0; j < shape.blocksN(); ++j) {
      const int col = n0 + acc.waveCol + 32 * j + r32;
      if (col >= p.n)
        continue;
      const float bias = p.bias ? toFloat<E>(p.bias[col]) : 0.0f;
      for (int e = 0; e < 16; ++e) {
        const int row = m0 + acc.waveRow + 32 * i + mfmaResultRow(l, e);
        if (row >= p.m)
          continue;
        uint16_t *out = p.c + row * p.ldc + col;
        float v = p.alpha * acc.block[i][j][e] + bias;
        if (p.beta != 0.0f)
          v += p.beta * toFloat<E>(*out);
        *out = fromFloat<E>(v);
      }
    }
}

/// k == 0: C = beta·C + bias over the whole matrix (C not read when beta is 0),
/// grid-stride over 256 work-items per workgroup.
template <Element E>
ARGUS_HIP_FN void gemmBetaScale(const GemmParams &p, int workGroups) {
  const int64_t total = int64_t(p.m) * p.n, stride = int64_t(workGroups) * 256;
  for (int64_t i = int64_t(workGroup(0)) * 256 + workItem(); i < total; i += stride) {
    const int64_t row = i / p.n, col = i % p.n;
    uint16_t *out = p.c + row * p.ldc + col;
    float v = p.bias ? toFloat<E>(p.bias[col]) : 0.0f;
    if (p.beta != 0.0f)
      v += p.beta * toFloat<E>(*out);
    *out = fromFloat<E>(v);
  }
}

} // namespace argus::hip

#endif // ARGUS_HIP_GEMM_KERNEL_H
