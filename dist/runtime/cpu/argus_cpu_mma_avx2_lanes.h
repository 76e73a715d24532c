/*===- argus_cpu_mma_avx2_lanes.h - AVX2 products with a's rows in lanes --===*
 *
 * Part of section 6 of argus_cpu_kernel.h, included by argus_cpu_mma.h after
 * the packed form (it uses transpose8x8; not a standalone header). The
 * lanes form of argus_cpu_mma_lanes.h on the cpu-avx2 target, for tiles of
 * 9-16 rows against plain N x K rows of f32 or bf16 b (decode batches, MoE
 * experts' token groups): a's rows are widened to f32 and transposed once
 * per product into two vectors per k (lanes[k][m] = a[m][k]), and each
 * element of a row of b is broadcast against them where b lies:
 *   acc[n][0..7], acc[n][8..15] += lanes[k] * broadcast(b[n][k])   (FMA)
 * bf16 elements of b are broadcast 16 bits wide and shifted into f32
 * (exact). Each row of b is read once per product, where the inner-product
 * form (mma_dot8, 4 x 2 blocks: 8 accumulators, under the 10 that hide
 * the FMA latency) reads it once per four rows of a, widens it as often,
 * and pays a reduction per sum. The accumulators hold columns of c, added
 * to c's rows at the end. (Zen 2, two threads, weights from memory, 16 x N
 * x K of Llama-3-8B: f32 1.29-1.31x the inner-product form, bf16
 * 1.07-1.11x; 12 rows f32 1.17x. Broadcasting bf16 pairs as 32-bit units
 * split by a shift and a mask chains two FMAs per accumulator a step:
 * slower; widening b's rows a chunk at a time into L1 first: even.)
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_MMA_AVX2_LANES_H
#define ARGUS_CPU_MMA_AVX2_LANES_H

#if defined(__AVX2__) && defined(__FMA__) && !defined(__AVX512F__)

namespace argus_cpu {
namespace detail {

/// Whether an M x K tile of DT takes the AVX2 lanes form: more rows than
/// one vector of lanes holds, at most two, and whole vectors of k, where
/// the inner-product form would run (k-steps of 256 or more: shorter ones
/// run packed) and the lanes fit 64 KiB of stack.
template <class DT, int64_t M, int64_t K> constexpr bool lanes_fit8() {
  return (std::is_same<DT, f32>::value || std::is_same<DT, bf16>::value) && M > 8 && M <= 16 && K % 8 == 0 &&
         K >= 256 && K * 16 * 4 <= 65536;
}

/// lanes[k * 16 + m] = a[m][k] widened to f32 for m < rows, zero for rows
/// <= m < 16: two 8 x 8 register transposes per 8 k.
template <class DT, int64_t K>
inline void pack_lanes8(float *lanes, tile_ref<typename DT::storage> a, int64_t rows) {
  using Load = typename avx2_dot<DT>::type;
  for (int64_t k = 0; k < K; k += 8)
    for (int64_t half = 0; half < 16; half += 8) {
      __m256 r[8];
      for (int64_t i = 0; i < 8; ++i)
        r[i] = half + i < rows ? Load::load(a.data + (half + i) * a.ld + k, 8) : _mm256_setzero_ps();
      transpose8x8(r);
      for (int64_t i = 0; i < 8; ++i) _mm256_store_ps(lanes + (k + i) * 16 + half, r[i]);
    }
}

/// The element at `x` in every lane, as f32 (bf16: a 16-bit broadcast
/// shifted into the high halves, exact).
template <class DT> __attribute__((always_inline)) inline __m256 broadcast8(const typename DT::storage *x) {
  if constexpr (std::is_same<DT, f32>::value)
    return _mm256_broadcast_ss(x);
  else
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_set1_epi16(short(*x)), 16));
}

/// c[m][0..NR) += a[m] . b[0..NR)^T for m < rows, a as `lanes`: two
/// accumulators (rows 0-7 and 8-15) per column of b.
template <int NR, class DT>
inline void lanes_block8(float *c, int64_t ldc, int64_t rows, const float *lanes, const typename DT::storage *b,
                         int64_t ldb, int64_t K) {
  __m256 acc[NR][2];
  unroll<NR>([&](auto j) ARGUS_UNROLLED { acc[j][0] = acc[j][1] = _mm256_setzero_ps(); });
  auto fma2 = [&](auto j, const float *lane, __m256 bv) __attribute__((always_inline)) {
    acc[j][0] = _mm256_fmadd_ps(_mm256_load_ps(lane), bv, acc[j][0]);
    acc[j][1] = _mm256_fmadd_ps(_mm256_load_ps(lane + 8), bv, acc[j][1]);
  };
  for (int64_t k = 0; k < K; ++k, lanes += 16)
    unroll<NR>([&](auto j) ARGUS_UNROLLED { fma2(j, lanes, broadcast8<DT>(b + j * ldb + k)); });
  alignas(32) float sums[NR][16];
  unroll<NR>([&](auto j) ARGUS_UNROLLED {
    _mm256_store_ps(sums[j], acc[j][0]);
    _mm256_store_ps(sums[j] + 8, acc[j][1]);
  });
  for (int64_t m = 0; m < rows; ++m)
    for (int j = 0; j < NR; ++j) c[m * ldc + j] += sums[j][m];
}

/// acc (M x N) += a (M x K) . b (N x K)^T in the lanes form (lanes_fit8):
/// blocks of 6 columns (12 accumulators, two lanes and a broadcast: 15 of
/// the 16 registers) for f32; 4 for bf16, whose step also holds the next
/// k's lanes and the pair's second half.
template <class DT, int64_t M, int64_t N, int64_t K>
inline void mma_lanes8(float *acc, tile_ref<typename DT::storage> a, tile_ref<typename DT::storage> b) {
  static_assert(lanes_fit8<DT, M, K>(), "9-16 rows of f32 or bf16, whole vectors of k");
  constexpr int NR = 6;
  alignas(32) float lanes[K * 16];
  pack_lanes8<DT, K>(lanes, a, M);
  int64_t n = 0;
  for (; n + NR <= N; n += NR) lanes_block8<NR, DT>(acc + n, N, M, lanes, b.data + n * b.ld, b.ld, K);
  if constexpr (N % NR != 0)
    lanes_block8<int(N % NR), DT>(acc + n, N, M, lanes, b.data + n * b.ld, b.ld, K);
}

} // namespace detail
} // namespace argus_cpu

#endif // AVX2 without AVX-512

#endif // ARGUS_CPU_MMA_AVX2_LANES_H
