/*===- argus_cpu_mma_avx2_packed.h - mma's packed form on AVX2 ------------===*
 *
 * Part of section 6 of argus_cpu_kernel.h (included by argus_cpu_mma.h after
 * BLayout; not a standalone header). Tiles taller than the inner-product
 * form's (prefill GEMMs, attention's score and value products) on the
 * cpu-avx2 target, BLIS-like:
 *
 *      bp panel (K x 16, f32)     acc block (6 x 16) += a[m][k] (bcast) * bp[k][:]
 *
 * b is packed 16 columns at a time into k-major f32 panels (NK rows by 8 x 8
 * register transposes, widened from bf16 / f16 on the way, exactly); a
 * register block of 6 rows x 16 columns of acc (12 ymm accumulators, with
 * two of b and one broadcast: 15 of the 16) stays in registers for the
 * whole k loop. 16-bit rows of a are widened once per row group and panel
 * group. Panels are packed, and rows widened, a group of at most 128 KiB at
 * a time, so a tall tile never puts more than 256 KiB on the stack.
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_MMA_AVX2_PACKED_H
#define ARGUS_CPU_MMA_AVX2_PACKED_H

#if defined(__AVX2__) && defined(__FMA__) && !defined(__AVX512F__)

namespace argus_cpu {
namespace detail {

constexpr int kMR2 = 6;     /* rows of acc per register block */
constexpr int64_t kPW2 = 16; /* panel width: two ymm of columns */

/// r[i] <- column i of the 8 x 8 block whose rows are r[0..7].
inline void transpose8x8(__m256 (&r)[8]) {
  __m256 t[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  __m256 u[8];
  for (int i = 0; i < 2; ++i) {
    u[4 * i + 0] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xee);
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(u[i], u[4 + i], 0x20);
    r[4 + i] = _mm256_permute2f128_ps(u[i], u[4 + i], 0x31);
  }
}

/// The f32 panel of columns n0 .. n0+nb of b (zero past nb): bp[k][j] =
/// b[n0 + j][k], widened by the inner-product form's step (avx2_dot), which
/// reads 8 elements (or fewer, zeroing the rest) as f32.
template <class DT, BLayout L, int64_t K>
inline void pack_panel8(float *bp, tile_ref<typename DT::storage> b, int64_t n0, int64_t nb) {
  using Load = typename avx2_dot<DT>::type;
  if constexpr (L == BLayout::KN) {
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j0 = 0; j0 < kPW2; j0 += 8)
        _mm256_store_ps(bp + k * kPW2 + j0, j0 < nb ? Load::load(b.data + k * b.ld + n0 + j0, nb - j0)
                                                    : _mm256_setzero_ps());
  } else {
    for (int64_t j0 = 0; j0 < kPW2; j0 += 8) {
      const int64_t rows = std::min<int64_t>(8, std::max<int64_t>(0, nb - j0));
      int64_t k0 = 0;
      for (; k0 + 8 <= K; k0 += 8) {
        __m256 r[8];
        for (int i = 0; i < 8; ++i)
          r[i] = i < rows ? Load::load(b.data + (n0 + j0 + i) * b.ld + k0, 8) : _mm256_setzero_ps();
        transpose8x8(r);
        for (int i = 0; i < 8; ++i) _mm256_store_ps(bp + (k0 + i) * kPW2 + j0, r[i]);
      }
      if constexpr (K % 8 != 0) /* (GCC warns of undefined behaviour in this loop even when it is dead) */
        for (int64_t k = k0; k < K; ++k)
          for (int64_t j = j0; j < j0 + 8; ++j)
            bp[k * kPW2 + j] = j < nb ? float(DT::load(b.data[(n0 + j) * b.ld + k])) : 0.0f;
    }
  }
}

/// acc[MR x (8*NV)] (rows ldc apart) += a[MR x K] (f32) * panel; columns
/// past `nb` are neither read nor written.
template <int MR, int NV, bool Full>
inline void packed_block8(float *c, int64_t ldc, const float *a, int64_t lda, const float *bp, int64_t K,
                          int64_t nb) {
  const __m256i m0 = lane_mask8(nb), m1 = lane_mask8(nb - 8);
  auto load = [&](const float *p, __m256i m) { return Full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, m); };
  auto store = [&](float *p, __m256i m, __m256 v) {
    if (Full) _mm256_storeu_ps(p, v); else _mm256_maskstore_ps(p, m, v);
  };
  __m256 acc[MR][NV];
  unroll<MR>([&](auto r) ARGUS_UNROLLED {
    acc[r][0] = load(c + r * ldc, m0);
    if constexpr (NV == 2) acc[r][1] = load(c + r * ldc + 8, m1);
  });
  for (int64_t k = 0; k < K; ++k) {
    const __m256 b0 = _mm256_load_ps(bp + k * kPW2);
    const __m256 b1 = NV == 2 ? _mm256_load_ps(bp + k * kPW2 + 8) : b0;
    unroll<MR>([&](auto r) ARGUS_UNROLLED {
      const __m256 av = _mm256_broadcast_ss(a + r * lda + k);
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      if constexpr (NV == 2) acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    });
  }
  unroll<MR>([&](auto r) ARGUS_UNROLLED {
    store(c + r * ldc, m0, acc[r][0]);
    if constexpr (NV == 2) store(c + r * ldc + 8, m1, acc[r][1]);
  });
}

/// acc (M x N) += a * b^T, b laid out as L says, for tiles the inner-product
/// form does not take. BLIS's loop order: a group of b's panels is packed;
/// then, a group of a's rows at a time (widened to f32 once, when 16-bit),
/// each panel in turn stays in L1 while every row block of the group passes
/// it (row blocks outermost would cycle all of a 64 x 256 tile's 64 KiB of
/// panels through L1 per block). Each group is at most 128 KiB of stack.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L>
inline void mma_packed8(float *acc, tile_ref<typename DT::storage> a, tile_ref<typename DT::storage> b) {
  constexpr int64_t NP = (N + kPW2 - 1) / kPW2;
  constexpr int64_t panelGroup = std::max<int64_t>(1, std::min<int64_t>(NP, 32768 / (K * kPW2)));
  constexpr bool widen = !std::is_same<DT, f32>::value;
  constexpr int64_t rowGroup = M * K <= 32768 ? M : std::max<int64_t>(1, 32768 / K / kMR2) * kMR2;
  alignas(32) float bp[panelGroup * K * kPW2];
  alignas(32) float aw[widen ? rowGroup * K : 1];
  for (int64_t p0 = 0; p0 < NP; p0 += panelGroup) {
    const int64_t panels = std::min<int64_t>(panelGroup, NP - p0);
    for (int64_t p = 0; p < panels; ++p)
      pack_panel8<DT, L, K>(bp + p * K * kPW2, b, (p0 + p) * kPW2, std::min<int64_t>(kPW2, N - (p0 + p) * kPW2));
    for (int64_t m0 = 0; m0 < M; m0 += rowGroup) {
      const int64_t rows = std::min<int64_t>(rowGroup, M - m0);
      const float *ap = aw;
      int64_t lda = K;
      if constexpr (widen)
        widen_rows8<K, typename avx2_dot<DT>::type>(aw, {a.data + m0 * a.ld, a.ld}, rows);
      else
        ap = a.data + m0 * a.ld, lda = a.ld;
      for (int64_t p = 0; p < panels; ++p) {
        const int64_t n0 = (p0 + p) * kPW2, nb = std::min<int64_t>(kPW2, N - n0);
        const float *panel = bp + p * K * kPW2;
        for_row_blocks<kMR2>(rows, [&](auto mr, int64_t m) {
          constexpr int MR = decltype(mr)::value;
          float *c = acc + (m0 + m) * N + n0;
          if (nb == kPW2)
            packed_block8<MR, 2, true>(c, N, ap + m * lda, lda, panel, K, nb);
          else if (nb > 8)
            packed_block8<MR, 2, false>(c, N, ap + m * lda, lda, panel, K, nb);
          else
            packed_block8<MR, 1, false>(c, N, ap + m * lda, lda, panel, K, nb);
        });
      }
    }
  }
}

} // namespace detail
} // namespace argus_cpu

#endif // AVX2 without AVX-512

#endif // ARGUS_CPU_MMA_AVX2_PACKED_H
