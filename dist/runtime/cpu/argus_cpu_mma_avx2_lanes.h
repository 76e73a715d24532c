/*===- argus_cpu_mma_avx2_lanes.h - AVX2 products with a's rows in lanes --===*
 *
 * Part of section 6 of argus_cpu_kernel.h, included by argus_cpu_mma.h after
 * the packed form (it uses transpose8x8; not a standalone header). The
 * lanes form of argus_cpu_mma_lanes.h on the cpu-avx2 target, for tiles of
 * up to 32 rows (lanes_fit8) against plain N x K rows of f32 or bf16 b
 * (decode batches, MoE experts' token groups): a's rows are widened to f32
 * and transposed once per product into V = ceil(M / 8) vectors per k
 * (lanes[k][m] = a[m][k]), and each element of a row of b is broadcast
 * against them where b lies, 12 / V columns at a time (12 accumulators):
 *   acc[n][8v .. 8v+7] += lanes[k][8v .. 8v+7] * broadcast(b[n][k])   (FMA)
 * bf16 elements of b are broadcast 16 bits wide and shifted into f32
 * (exact). Each row of b is read once per product, where the inner-product
 * form (mma_dot8, 4 x 2 blocks: 8 accumulators, under the 10 that hide
 * the FMA latency) reads it once per four rows of a, widens it as often,
 * and pays a reduction per sum. The accumulators hold columns of c, added
 * to c's rows at the end. (Zen 2, one thread, 64 columns, b in L2: f32
 * 8 / 16 / 24 / 32 rows 1.7 / 1.9 / 2.2 / 1.7x the inner-product form,
 * bf16 16 / 24 / 32 rows 1.3 / 1.4 / 1.4x; two threads, weights from
 * memory, 16 x N x K of Llama-3-8B: f32 1.29-1.31x, bf16 1.07-1.11x.
 * Broadcasting bf16 pairs as 32-bit units split by a shift and a mask
 * chains two FMAs per accumulator a step: slower; widening b's rows a
 * chunk at a time into L1 first: even.)
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_MMA_AVX2_LANES_H
#define ARGUS_CPU_MMA_AVX2_LANES_H

#if defined(__AVX2__) && defined(__FMA__) && !defined(__AVX512F__)

namespace argus_cpu {
namespace detail {

/// Vectors of lanes an M-row tile takes (8 rows each).
template <int64_t M> constexpr int lane_vectors8() { return int((M + 7) / 8); }

/// Whether an M x K tile of DT takes the AVX2 lanes form: 5-32 rows of f32,
/// 9-32 of bf16 (one vector of 8 bf16 rows ran 0.85x the inner-product
/// form in cache: a 16-bit broadcast and a shift per two FMAs), whole
/// vectors of k, where the inner-product form would run (k-steps of 256 or
/// more: shorter ones run packed) and the lanes fit 64 KiB of stack.
template <class DT, int64_t M, int64_t K> constexpr bool lanes_fit8() {
  constexpr bool isF32 = std::is_same<DT, f32>::value, isBf16 = std::is_same<DT, bf16>::value;
  return ((isF32 && M > 4) || (isBf16 && M > 8)) && M <= 32 && K % 8 == 0 && K >= 256 &&
         K * lane_vectors8<M>() * 32 <= 65536;
}

/// lanes[k * 8V + m] = a[m][k] widened to f32 for m < rows, zero for rows
/// <= m < 8V: V 8 x 8 register transposes per 8 k.
template <class DT, int V, int64_t K>
inline void pack_lanes8(float *lanes, tile_ref<typename DT::storage> a, int64_t rows) {
  using Load = typename avx2_dot<DT>::type;
  for (int64_t k = 0; k < K; k += 8)
    for (int64_t v = 0; v < 8 * V; v += 8) {
      __m256 r[8];
      for (int64_t i = 0; i < 8; ++i)
        r[i] = v + i < rows ? Load::load(a.data + (v + i) * a.ld + k, 8) : _mm256_setzero_ps();
      transpose8x8(r);
      for (int64_t i = 0; i < 8; ++i) _mm256_store_ps(lanes + (k + i) * 8 * V + v, r[i]);
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

/// c[m][0..NR) += a[m] . b[0..NR)^T for m < rows, a as `lanes` (V vectors
/// a k): V accumulators per column of b.
template <int NR, int V, class DT>
inline void lanes_block8(float *c, int64_t ldc, int64_t rows, const float *lanes, const typename DT::storage *b,
                         int64_t ldb, int64_t K) {
  __m256 acc[NR][V];
  unroll<NR>([&](auto j) ARGUS_UNROLLED { unroll<V>([&](auto v) ARGUS_UNROLLED { acc[j][v] = _mm256_setzero_ps(); }); });
  for (int64_t k = 0; k < K; ++k, lanes += 8 * V) {
    __m256 lane[V];
    unroll<V>([&](auto v) ARGUS_UNROLLED { lane[v] = _mm256_load_ps(lanes + 8 * v); });
    unroll<NR>([&](auto j) ARGUS_UNROLLED {
      const __m256 bv = broadcast8<DT>(b + j * ldb + k);
      unroll<V>([&](auto v) ARGUS_UNROLLED { acc[j][v] = _mm256_fmadd_ps(lane[v], bv, acc[j][v]); });
    });
  }
  alignas(32) float sums[NR][8 * V];
  unroll<NR>([&](auto j) ARGUS_UNROLLED { unroll<V>([&](auto v) ARGUS_UNROLLED { _mm256_store_ps(sums[j] + 8 * v, acc[j][v]); }); });
  for (int64_t m = 0; m < rows; ++m)
    for (int j = 0; j < NR; ++j) c[m * ldc + j] += sums[j][m];
}

/// acc (M x N) += a (M x K) . b (N x K)^T in the lanes form (lanes_fit8):
/// blocks of 12 / V columns (12 accumulators, V lanes and a broadcast).
template <class DT, int64_t M, int64_t N, int64_t K>
inline void mma_lanes8(float *acc, tile_ref<typename DT::storage> a, tile_ref<typename DT::storage> b) {
  static_assert(lanes_fit8<DT, M, K>(), "f32 or bf16 rows the lanes take, whole vectors of k");
  constexpr int V = lane_vectors8<M>(), NR = 12 / V;
  alignas(32) float lanes[K * 8 * V];
  pack_lanes8<DT, V, K>(lanes, a, M);
  int64_t n = 0;
  for (; n + NR <= N; n += NR) lanes_block8<NR, V, DT>(acc + n, N, M, lanes, b.data + n * b.ld, b.ld, K);
  if constexpr (N % NR != 0)
    lanes_block8<int(N % NR), V, DT>(acc + n, N, M, lanes, b.data + n * b.ld, b.ld, K);
}

} // namespace detail
} // namespace argus_cpu

#endif // AVX2 without AVX-512

#endif // ARGUS_CPU_MMA_AVX2_LANES_H
