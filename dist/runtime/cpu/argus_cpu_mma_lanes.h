/*===- argus_cpu_mma_lanes.h - products with a's rows in lanes ------------===*
 *
 * Part of section 6 of argus_cpu_kernel.h, included by argus_cpu_mma.h (not
 * a standalone header). The lanes form of mma for tiles of 9-16 rows against
 * plain N x K rows of b (decode batches, MoE experts' token groups): a's
 * rows, the small operand, are transposed once per product into lanes (lane
 * m of vector u holds a's 32-bit unit u of row m: one f32, or a bf16 pair)
 * and each unit of a row of b is broadcast against them, read where b lies:
 *   acc[n][0..15] += lanes[u] * broadcast(unit u of b[n])   (FMA, vdpbf16ps)
 * One broadcast load per product, where the inner-product form (mma_dot,
 * 4 x 4 blocks) loads a vector per four and pays a reduction tree per 16
 * sums, and the packed form would transpose all of b. The accumulators hold
 * columns of c: each block of 16 columns is transposed into c's rows once,
 * at its end. (bf16, 16 x N x K, two threads, weights from memory, Zen 5:
 * 1.24-1.31x the inner-product form; with the weights in cache 0.86x.)
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_MMA_LANES_H
#define ARGUS_CPU_MMA_LANES_H

#if defined(__AVX512F__)
namespace argus_cpu {
namespace detail {

/// Whether an M x K tile takes the lanes form with Dot (f32_dot, bf16_dot):
/// more rows than one 4 x 4 block of the inner-product form (fewer would
/// leave most lanes empty), at most one vector of them, and whole lines of
/// b (Dot::KV elements, 16 units) per k-step. Ragged tiles of 9-15 rows
/// gain too (bf16 1.2x, f32 1.0-1.04x). Two vectors for 17-32 rows (blocks
/// of 8 columns, each broadcast against both) ran 0.62-0.85x the
/// inner-product form, whose 4-row blocks read b from L1 after the first.
template <class Dot, int64_t M, int64_t K> constexpr bool lanes_fit() { return M > 8 && M <= 16 && K % Dot::KV == 0; }

/// The unit (32 bits: one f32, or a bf16 pair) at `x` in every lane.
template <class Dot> __attribute__((always_inline)) inline typename Dot::vec broadcast_unit(const void *x) {
  uint32_t bits;
  std::memcpy(&bits, x, sizeof bits);
  return (typename Dot::vec)_mm512_set1_epi32(int(bits));
}

/// lanes[u][m] = unit u of a's row m for m < rows, zero for rows <= m < 16:
/// one register transpose per line of k.
template <class Dot, int64_t K, class S> inline void pack_lanes(uint32_t *lanes, tile_ref<S> a, int64_t rows) {
  for (int64_t k = 0; k < K; k += Dot::KV) {
    __m512i r[16];
    unroll<16>([&](auto m) ARGUS_UNROLLED {
      r[m] = m < rows ? _mm512_loadu_si512(a.data + m * a.ld + k) : _mm512_setzero_si512();
    });
    transpose16x16_regs(r);
    unroll<16>([&](auto i) ARGUS_UNROLLED { _mm512_store_si512(lanes + (k / Dot::KV * 16 + i) * 16, r[i]); });
  }
}

/// c[m][0..NR) += a[m] . b[0..NR)^T for m < rows, a as `lanes`: NR
/// accumulators of 16 rows each. Per line of b's rows (16 units), its units
/// are broadcast against 16 vectors of lanes, for 8 rows of b at a time: the
/// lines of rows a multiple of 4 KiB apart (K = 4096 weights) share an L1
/// set, and 16 of them interleaved overflow its 12 ways (all 16 at once:
/// 0.70x). The rows are read 4 lines ahead into L1 as the inner-product
/// form's multi-row blocks read them, past K into the next k-step's; in the
/// last 4 lines, `next` (16 rows, or null) has its first lines fetched too.
/// `shadow` fetches the line of its tile matching each line of b read.
template <int NR, int64_t K, class Dot, class Shadow>
__attribute__((always_inline)) inline void lanes_block(float *c, int64_t ldc, int64_t rows, const uint32_t *lanes,
                                                       const typename Dot::storage *b, int64_t ldb, Shadow shadow,
                                                       const typename Dot::storage *next) {
  using S = typename Dot::storage;
  constexpr int64_t KV = Dot::KV, kAhead = 4 * KV; /* elements in a line, in 4 lines */
  __m512 acc[NR];
  unroll<NR>([&](auto j) ARGUS_UNROLLED { acc[j] = _mm512_setzero_ps(); });
  block_rows<S> lo(b, ldb), hi(b + 8 * ldb, ldb); /* rows 0-7 and 8-15 */
  auto row = [&](auto j) __attribute__((always_inline)) {
    constexpr int r = decltype(j)::value;
    if constexpr (r < 8) return lo.template row<r>();
    else return hi.template row<r - 8>();
  };
  for (int64_t k = 0; k < K; k += KV) {
    unroll<NR>([&](auto j) ARGUS_UNROLLED {
      if constexpr (K >= 4 * kAhead) {
        prefetch_line<1>(reinterpret_cast<const char *>(row(j) + kAhead));
        if (next && k + kAhead >= K)
          prefetch_line<1>(reinterpret_cast<const char *>(next + decltype(j)::value * ldb + (k + kAhead - K)));
      }
      shadow.fetch(row(j));
    });
    unroll<(NR + 7) / 8>([&](auto g) ARGUS_UNROLLED {
      constexpr int first = 8 * decltype(g)::value, count = NR - first < 8 ? NR - first : 8;
      unroll<16>([&](auto u) ARGUS_UNROLLED {
        const auto av = (typename Dot::vec)_mm512_load_si512(lanes + (k / KV * 16 + u) * 16);
        unroll<count>([&](auto i) ARGUS_UNROLLED {
          constexpr int j = first + decltype(i)::value;
          const S *unit = row(std::integral_constant<int, j>()) + u * (KV / 16);
          acc[j] = Dot::fma(acc[j], av, broadcast_unit<Dot>(unit));
        });
      });
    });
    lo.advance(KV);
    hi.advance(KV);
  }
  __m512i sums[16]; /* column j of c in acc[j]: rows of c after the transpose */
  unroll<16>([&](auto j) ARGUS_UNROLLED {
    if constexpr (decltype(j)::value < NR) sums[j] = _mm512_castps_si512(acc[j]);
    else sums[j] = _mm512_setzero_si512();
  });
  transpose16x16_regs(sums);
  constexpr __mmask16 columns = __mmask16((1u << NR) - 1u);
  for (int64_t m = 0; m < rows; ++m) {
    float *cm = c + m * ldc;
    _mm512_mask_storeu_ps(cm, columns,
                          _mm512_add_ps(_mm512_maskz_loadu_ps(columns, cm), _mm512_castsi512_ps(sums[m])));
  }
}

/// acc (M x N) += a (M x K) . b (N x K)^T in the lanes form (lanes_fit).
/// Rows of b of at most 4 KiB (MoE experts' weights) are streams too short
/// for the CPU's prefetchers: each block fetches the next one's first lines
/// as it ends (Zen 5, two threads, 12 x 2048 x 768: 1.14x, 12 x 768 x 2048:
/// 1.04x); the decode GEMMs' longer rows keep streaming, and there the
/// fetches cost 4-6%. Out of line: inlined into mma_ragged_rows, cold and
/// compiled for size, GCC spilled the block (MoE experts 0.9x).
/// RaggedRows: only a.rows rows of a are in bounds; the acc rows past them
/// are kept. `shadow`: see lanes_block.
template <int64_t M, int64_t N, int64_t K, class Dot, bool RaggedRows = false, class S, class Shadow = no_shadow>
__attribute__((noinline)) void mma_lanes(float *acc, tile_ref<S> a, tile_ref<S> b, Shadow shadow = {}) {
  static_assert(lanes_fit<Dot, M, K>(), "9-16 rows, whole lines of k");
  const int64_t rows = RaggedRows ? std::min<int64_t>(std::max<int64_t>(a.rows, 0), M) : M;
  alignas(64) uint32_t lanes[K / Dot::KV * 16 * 16];
  pack_lanes<Dot, K>(lanes, a, rows);
  int64_t n = 0;
  const bool shortRows = b.ld * int64_t(sizeof(S)) <= 4096;
  for (; n + 16 <= N; n += 16)
    lanes_block<16, K, Dot>(acc + n, N, rows, lanes, b.data + n * b.ld, b.ld, shadow,
                            shortRows && n + 16 < N ? b.data + (n + 16) * b.ld : nullptr);
  if constexpr (N % 16 != 0)
    lanes_block<int(N % 16), K, Dot>(acc + n, N, rows, lanes, b.data + n * b.ld, b.ld, shadow, nullptr);
}

} // namespace detail
} // namespace argus_cpu
#endif // __AVX512F__

#endif // ARGUS_CPU_MMA_LANES_H
