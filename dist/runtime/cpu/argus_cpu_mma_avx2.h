/*===- argus_cpu_mma_avx2.h - mma's inner-product form on AVX2 ------------===*
 *
 * Part of section 6 of argus_cpu_kernel.h (included by argus_cpu_mma.h; not
 * a standalone header). The cpu-avx2 target (-mavx2 -mfma -mf16c) has no
 * 16-bit dot product and 8 f32 lanes; decode-sized tiles are memory-bound,
 * so what matters is reading each weight once, where it lies, at full
 * bandwidth:
 *
 *      acc[r][j] (8 lanes) += a[r][k:k+8] * b[j][k:k+8]     (f32 FMA)
 *
 * bf16 and f16 operands are widened to f32 in registers as they are loaded
 * (bf16: a 16-bit shift; f16: vcvtph2ps), both exactly. MR x NR
 * accumulators (8 of them: with the MR rows of a and one of b they fit the
 * 16 ymm registers) are reduced horizontally once per call, eight at a time
 * by one transposing tree. Few rows against b laid out K x N (decode
 * attention's P.V) take the broadcast form instead, mma_kn_rows8.
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_MMA_AVX2_H
#define ARGUS_CPU_MMA_AVX2_H

#if defined(__AVX2__) && defined(__FMA__) && !defined(__AVX512F__)

namespace argus_cpu {
namespace detail {

/// Lanes [0, n) of 8 set (n may exceed 8).
inline __m256i lane_mask8(int64_t n) {
  const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n < 8 ? n : 8)), index);
}

/// Eight 16-bit elements, the lanes past `n` zero (a tail step reads no
/// further than its tile).
inline __m128i load8_u16(const uint16_t *x, int64_t n) {
  if (n >= 8) return _mm_loadu_si128(reinterpret_cast<const __m128i *>(x));
  alignas(16) uint16_t part[8] = {};
  for (int64_t i = 0; i < n; ++i) part[i] = x[i];
  return _mm_load_si128(reinterpret_cast<const __m128i *>(part));
}

/// The f32 step: 8 k per vector.
struct f32_dot8 {
  using storage = float;
  static constexpr int64_t KV = 8;
  static __m256 load(const float *x, int64_t n) {
    return n >= 8 ? _mm256_loadu_ps(x) : _mm256_maskload_ps(x, lane_mask8(n));
  }
};

/// The bf16 step: 8 k per vector, widened by a 16-bit shift (exact).
struct bf16_dot8 {
  using storage = uint16_t;
  static constexpr int64_t KV = 8;
  static __m256 load(const uint16_t *x, int64_t n) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(load8_u16(x, n)), 16));
  }
};

/// The f16 step: 8 k per vector, widened by vcvtph2ps (exact).
struct f16_dot8 {
  using storage = uint16_t;
  static constexpr int64_t KV = 8;
  static __m256 load(const uint16_t *x, int64_t n) { return _mm256_cvtph_ps(load8_u16(x, n)); }
};

/// The 8 lane sums of v[0..7], in order, as one vector.
inline __m256 sum_lanes8(const __m256 (&v)[8]) {
  const __m256 h01 = _mm256_hadd_ps(v[0], v[1]), h23 = _mm256_hadd_ps(v[2], v[3]);
  const __m256 h45 = _mm256_hadd_ps(v[4], v[5]), h67 = _mm256_hadd_ps(v[6], v[7]);
  /* per 128-bit lane: the half sums of v0..v3, then of v4..v7 */
  const __m256 q0 = _mm256_hadd_ps(h01, h23), q1 = _mm256_hadd_ps(h45, h67);
  return _mm256_add_ps(_mm256_permute2f128_ps(q0, q1, 0x20), _mm256_permute2f128_ps(q0, q1, 0x31));
}

/// c (MR x NR block, rows ldc apart) += a[MR x K] . b[NR x K]^T, vectors
/// along k; the tail step loads only the k that remain. Each step also
/// fetches the line of `next` (mma_dot_blocks) at the same offset.
template <int MR, int NR, class DotA, class DotB>
inline void dot_block8(float *c, int64_t ldc, const typename DotA::storage *a, int64_t lda,
                       const typename DotB::storage *b, int64_t ldb, int64_t K, dot_next next = {}) {
  static_assert(DotA::KV == DotB::KV, "both operands step the same k");
  constexpr int64_t KV = DotA::KV;
  __m256 acc[MR * NR];
  unroll<MR * NR>([&](auto i) ARGUS_UNROLLED { acc[i] = _mm256_setzero_ps(); });
  auto step = [&](int64_t k, int64_t n) {
    for (int64_t r = 0; r < next.count; ++r) /* 16-32 bytes a step: each line 2-4 times */
      prefetch_line<2>(next.rows + r * next.ldBytes + k * int64_t(sizeof(*b)));
    __m256 av[MR];
    unroll<MR>([&](auto r) ARGUS_UNROLLED { av[r] = DotA::load(a + r * lda + k, n); });
    unroll<NR>([&](auto j) ARGUS_UNROLLED {
      const __m256 bv = DotB::load(b + j * ldb + k, n);
      unroll<MR>([&](auto r) ARGUS_UNROLLED { acc[r * NR + j] = _mm256_fmadd_ps(av[r], bv, acc[r * NR + j]); });
    });
  };
  int64_t k = 0;
  for (; k + KV <= K; k += KV) step(k, KV);
  if (k < K) step(k, K - k);
  alignas(32) float sums[MR * NR < 8 ? 8 : MR * NR];
  if constexpr (MR * NR == 8) {
    _mm256_store_ps(sums, sum_lanes8(acc));
  } else {
    for (int i = 0; i < MR * NR; ++i) {
      const __m128 h = _mm_add_ps(_mm256_castps256_ps128(acc[i]), _mm256_extractf128_ps(acc[i], 1));
      const __m128 q = _mm_hadd_ps(h, h);
      sums[i] = _mm_cvtss_f32(_mm_hadd_ps(q, q));
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NR; ++j) c[r * ldc + j] += sums[r * NR + j];
}

/// dst (rows x K, dense) = the first rows of a, widened to f32 by Dot's load (exactly).
template <int64_t K, class Dot>
inline void widen_rows8(float *dst, tile_ref<typename Dot::storage> a, int64_t rows) {
  for (int64_t m = 0; m < rows; ++m) {
    int64_t k = 0;
    for (; k + 8 <= K; k += 8) _mm256_storeu_ps(dst + m * K + k, Dot::load(a.data + m * a.ld + k, 8));
    if (k < K) _mm256_maskstore_ps(dst + m * K + k, lane_mask8(K - k), Dot::load(a.data + m * a.ld + k, K - k));
  }
}

/// acc (M x N) += a * b^T for short tiles (inner_product_fits_avx2): blocks
/// of up to 4 rows of a (mma_dot_blocks) by NR columns of b. 16-bit rows of
/// a are widened once per call rather than once per column block: with
/// four rows and two columns a block would otherwise spend two thirds of its
/// widening on a, and the FMA ports share their cycles with it.
template <int64_t M, int64_t N, int64_t K, class Dot>
inline void mma_dot8(float *acc, tile_ref<typename Dot::storage> a, tile_ref<typename Dot::storage> b) {
  constexpr int MR = M < 4 ? int(M) : 4;     /* rows per block */
  constexpr int NR = 8 / (MR == 3 ? 4 : MR); /* 8 accumulators (6 for 3 rows) */
  auto blocks = [&](auto aTile, auto dotA) {
    using DotA = decltype(dotA);
    mma_dot_blocks<M, N, K, MR, NR>(acc, aTile, b,
                                    [](auto mr, auto nr, float *c, int64_t ldc, const auto *ap, int64_t lda,
                                       const auto *bp, int64_t ldb, int64_t k, dot_next next, no_shadow) {
                                      dot_block8<decltype(mr)::value, decltype(nr)::value, DotA, Dot>(c, ldc, ap, lda,
                                                                                                     bp, ldb, k, next);
                                    });
  };
  constexpr bool widen = !std::is_same<Dot, f32_dot8>::value && M * K * 4 <= 65536; /* a bounded stack buffer */
  if constexpr (widen) {
    alignas(32) float aw[M * K];
    widen_rows8<K, Dot>(aw, a, M);
    blocks(tile_ref<float>{aw, K}, f32_dot8{});
  } else {
    blocks(a, Dot{});
  }
}

/// c (M rows, ldc apart, 16 columns of which `nb` are live) += a (f32,
/// M x K) * v (K rows of 16-bit or f32 elements, ldv apart); a full block
/// (nb = 16) reads and writes unmasked.
template <int M, bool Full, class Dot>
inline void kn_rows_block8(float *c, int64_t ldc, const float *a, int64_t lda, const typename Dot::storage *v,
                           int64_t ldv, int64_t K, int64_t nb) {
  const __m256i m0 = lane_mask8(nb), m1 = lane_mask8(nb - 8);
  __m256 acc[M][2];
  unroll<M>([&](auto r) ARGUS_UNROLLED {
    acc[r][0] = Full ? _mm256_loadu_ps(c + r * ldc) : _mm256_maskload_ps(c + r * ldc, m0);
    acc[r][1] = Full ? _mm256_loadu_ps(c + r * ldc + 8) : _mm256_maskload_ps(c + r * ldc + 8, m1);
  });
  for (int64_t k = 0; k < K; ++k) {
    const typename Dot::storage *row = v + k * ldv;
    const __m256 b0 = Dot::load(row, Full ? 8 : nb), b1 = Dot::load(row + 8, Full ? 8 : nb - 8);
    unroll<M>([&](auto r) ARGUS_UNROLLED {
      const __m256 av = _mm256_broadcast_ss(a + r * lda + k);
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    });
  }
  unroll<M>([&](auto r) ARGUS_UNROLLED {
    if (Full) {
      _mm256_storeu_ps(c + r * ldc, acc[r][0]);
      _mm256_storeu_ps(c + r * ldc + 8, acc[r][1]);
    } else {
      _mm256_maskstore_ps(c + r * ldc, m0, acc[r][0]);
      _mm256_maskstore_ps(c + r * ldc + 8, m1, acc[r][1]);
    }
  });
}

/// acc (M x N) += a (M x K) * v (K x N) for up to 4 rows of a (decode
/// attention's P.V): 16 columns at a time, each row of v widened as it is
/// read, where it lies, against broadcast elements of a. The packed form
/// would first widen and copy all of v, which with so few rows to reuse the
/// copy costs as much as the products.
template <int64_t M, int64_t N, int64_t K, class Dot>
inline void mma_kn_rows8(float *acc, tile_ref<typename Dot::storage> a, tile_ref<typename Dot::storage> v) {
  static_assert(M >= 1 && M <= 4, "rows of a held in registers with 16 columns of acc");
  constexpr bool widen = !std::is_same<Dot, f32_dot8>::value;
  alignas(32) float aw[widen ? M * K : 1];
  const float *ap = aw;
  int64_t lda = K;
  if constexpr (widen)
    widen_rows8<K, Dot>(aw, a, M);
  else
    ap = a.data, lda = a.ld;
  int64_t n0 = 0;
  for (; n0 + 16 <= N; n0 += 16) kn_rows_block8<int(M), true, Dot>(acc + n0, N, ap, lda, v.data + n0, v.ld, K, 16);
  if (n0 < N) kn_rows_block8<int(M), false, Dot>(acc + n0, N, ap, lda, v.data + n0, v.ld, K, N - n0);
}

/// Whether a tile product takes the inner-product form on AVX2: up to 4
/// rows, and up to 32 rows when K is long, whatever the element type (with
/// no 16-bit dot product, the packed form would widen and transpose every
/// panel of b first, which costs more than the form's reductions).
template <int64_t M, int64_t K> constexpr bool inner_product_fits_avx2() { return M <= 4 || (M <= 32 && K >= 256); }

/// The inner-product step of an element type on AVX2.
template <class DT> struct avx2_dot;
template <> struct avx2_dot<f32> { using type = f32_dot8; };
template <> struct avx2_dot<bf16> { using type = bf16_dot8; };
template <> struct avx2_dot<f16> { using type = f16_dot8; };

} // namespace detail
} // namespace argus_cpu

#endif // __AVX2__ && __FMA__ && !__AVX512F__
#endif // ARGUS_CPU_MMA_AVX2_H
