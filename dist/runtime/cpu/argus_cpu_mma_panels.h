/*===- argus_cpu_mma_panels.h - mma on pre-packed weight panels -----------===*
 *
 * Part of section 6 of argus_cpu_kernel.h, included by argus_cpu_mma.h (not
 * a standalone header). The forms of mma whose b operand is already in
 * ARGUS_CPU_PANELS (argus_pack_weights): the AVX-512 register blocks read
 * the panels where they lie, and few rows (decode) walk each panel in
 * segments. AMX reads them in argus_cpu_mma_amx.h.
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_MMA_PANELS_H
#define ARGUS_CPU_MMA_PANELS_H

namespace argus_cpu {
namespace detail {

#if defined(__AVX512F__)
/// acc[MR x 16NV] += a * panel for few rows of a (decode GEMMs, small MoE
/// experts), where the panel streams from memory: U sets of accumulators
/// each take one U-th of the steps (a step is a k, or a pair of k for bf16).
/// That hides the multiply-add latency that MR * NV chains alone expose (one
/// row: 2 chains, a quarter of the FMA rate), and splits the panel's one
/// contiguous stream into U, which keeps more misses in flight than a single
/// stream gets from the prefetchers: one row, N x K = 4096 x 14336, one
/// thread, 1.2x (bf16) and 1.25x (f32) over sets taking alternate steps.
/// Sixteen accumulators in all rather than eight (two threads, both orders,
/// pre-packed: f32 3 and 4 rows x 4096 x 4096 1.21x and 1.39x, one row
/// 1.03-1.07x; bf16 one row 1.02-1.11x, a Qwen3 MoE token 1.04x).
/// (Software prefetch into L1 3-16 KiB ahead measured no better; into L2
/// see fetch_panel_ahead.) step(acc set, s) adds step s into a set.
template <int MR, int NV, class Step>
inline void few_rows_block(float *c, int64_t ldc, int64_t nb, int64_t steps, Step step) {
  constexpr int U = MR * NV >= 16 ? 1 : 16 / (MR * NV);
  __m512 acc[U][MR][NV];
  unroll<U>([&](auto u) ARGUS_UNROLLED {
    unroll<MR>([&](auto r) ARGUS_UNROLLED {
      unroll<NV>([&](auto v) ARGUS_UNROLLED { acc[u][r][v] = _mm512_setzero_ps(); });
    });
  });
  const int64_t segment = steps / U;
  for (int64_t s = 0; s < segment; ++s)
    unroll<U>([&](auto u) ARGUS_UNROLLED { step(acc[u], u * segment + s); });
  for (int64_t s = U * segment; s < steps; ++s) step(acc[0], s);
  __m512 sum[MR][NV];
  load_acc<MR, NV>(sum, c, ldc, nb);
  unroll<U>([&](auto u) ARGUS_UNROLLED {
    unroll<MR>([&](auto r) ARGUS_UNROLLED {
      unroll<NV>([&](auto v) ARGUS_UNROLLED { sum[r][v] = _mm512_add_ps(sum[r][v], acc[u][r][v]); });
    });
  });
  store_acc<MR, NV>(sum, c, ldc, nb);
}

/// What a step of one row's few_rows_block fetches (Fetch): the panel's
/// lines 4 KiB past the step's (at `step`; NV vectors of 64 bytes each),
/// into L2. The U streams then keep more misses in flight than the
/// prefetchers alone give them, without holding L1's miss buffers (Zen 4,
/// two threads, one row, 4096-14336 x 4096: f32 1.10-1.21x, bf16
/// 1.06-1.18x; 8 KiB ahead even). Rows of several a reuse each line for
/// more multiply-adds, and memory keeps up without it.
template <int NV, bool Fetch> __attribute__((always_inline)) inline void fetch_panel_ahead(const void *step) {
  if constexpr (Fetch) {
    constexpr int64_t kAheadBytes = 4096;
    const char *ahead = static_cast<const char *>(step) + kAheadBytes;
    prefetch_line<2>(ahead);
    if constexpr (NV == 2) prefetch_line<2>(ahead + 64);
  }
}

/// run(NV, Fetch) for one panel of nb columns of a few-row product, both
/// as std::integral_constant: NV vectors of columns, and whether one row
/// fetches the panel ahead (one_row_fetch_preferred).
template <int MR, class Run> __attribute__((always_inline)) inline void few_rows_panel(int64_t nb, Run run) {
  auto widths = [&](auto fetch) ARGUS_UNROLLED {
    if (nb > 16)
      run(std::integral_constant<int, 2>(), fetch);
    else
      run(std::integral_constant<int, 1>(), fetch);
  };
  if (MR == 1 && one_row_fetch_preferred())
    widths(std::integral_constant<bool, MR == 1>());
  else
    widths(std::false_type());
}

/// f32 few_rows_block: steps of one k.
template <int MR, int NV, int64_t PW, bool Fetch>
inline void f32_few_rows(float *c, int64_t ldc, const float *a, int64_t lda, const float *bp, int64_t K,
                         int64_t nb) {
  few_rows_block<MR, NV>(c, ldc, nb, K, [&](__m512(&acc)[MR][NV], int64_t k) __attribute__((always_inline)) {
    fetch_panel_ahead<NV, Fetch>(bp + k * PW);
    unroll<NV>([&](auto v) ARGUS_UNROLLED {
      const __m512 bv = _mm512_load_ps(bp + k * PW + 16 * v);
      unroll<MR>([&](auto r) ARGUS_UNROLLED {
        acc[r][v] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * lda + k]), bv, acc[r][v]);
      });
    });
  });
}

/// What the row block at row `m` (of `rows`) fetches into L2 while it
/// computes from a panel: an equal share of the panel's next k-step, `NR`
/// rows of K f32 (or as many bytes) from `next` on. Only the first block
/// reads the panel from memory, the others from cache: without this the
/// memory stream and the multiply-adds take turns (f32, two threads: M = 16
/// and 32, N x K = 14336 x 4096, 1.45-1.65x; M = 128 1.2x, M = 512 1.06x;
/// MoE gate/up 1.25-1.4x).
inline next_rows next_step_share(const void *next, int64_t K, int64_t NR, int64_t rows, int64_t m) {
  const int64_t blocks = (rows + kMR - 1) / kMR, share = (NR + blocks - 1) / blocks, first = m / kMR * share;
  return {static_cast<const float *>(next) + first * K, K, std::max<int64_t>(0, std::min(share, NR - first))};
}

/// acc (M x N) += a * b^T with b a panel operand (pre-packed weights): the
/// packed form, computing from the panels where they lie. Every tile shape
/// takes it, short ones too: the inner-product form exists to avoid packing,
/// and here there is none. Panel 0 still fetches the next row block of a,
/// and in short tiles (up to 32 rows: memory-bound) the first row block,
/// which reads each panel from memory, fetches 32 panel rows ahead: two
/// panel streams keep fewer misses in flight than the plain path's many
/// weight rows (M = 16, N x K = 28672 x 4096, two threads: 102 -> 121
/// GFLOP/s, the plain path's 113-116; 128-row tiles were 3% slower with it).
/// (Panels outside, rows inside, keeps a panel in L1 but re-reads a's rows
/// from L2 per panel: 5-15% slower on 128- and 256-row tiles.)
template <int64_t M, int64_t N, int64_t K, bool RaggedRows = false>
inline void mma_f32_panels(float *acc, tile_ref<float> a, tile_ref<float> b) {
  static_assert(!RaggedRows || M > 4, "few-row tiles with ragged rows are made dense first");
  constexpr int64_t PW = ARGUS_CPU_PANEL_ROWS;
  const int64_t cols = panel_columns(b, N), NP = (cols + PW - 1) / PW;
  if constexpr (M <= 4) { /* one row block, streaming the panels: few_rows_block */
    for (int64_t p = 0; p < NP; ++p) {
      const int64_t n0 = p * PW, nb = std::min<int64_t>(PW, cols - n0);
      few_rows_panel<int(M)>(nb, [&](auto nv, auto fetch) ARGUS_UNROLLED {
        f32_few_rows<int(M), decltype(nv)::value, PW, decltype(fetch)::value>(acc + n0, N, a.data, a.ld, b.data + p * b.ld, K, nb);
      });
    }
    return;
  }
  constexpr int64_t kPanelAhead = 32; /* panel rows: 4 KiB */
  const int64_t rows = RaggedRows ? a.rows : M;
  for_row_blocks<kMR>(rows, [&](auto mr, int64_t m) { /* ragged: the rows in bounds */
    constexpr int R = decltype(mr)::value;
    for (int64_t p = 0; p < NP; ++p) {
      const int64_t n0 = p * PW, nb = std::min<int64_t>(PW, cols - n0);
      next_rows nextA;
      if (p == 0) nextA = {a.data + (m + R) * a.ld, a.ld, std::min<int64_t>(kMR, M - m - R)};
      const float *bp = b.data + p * b.ld, *ahead = M <= 32 && m == 0 ? bp + kPanelAhead * PW : nullptr;
      const next_rows nextB = next_step_share(bp + K * PW, K, PW, rows, m);
      if (nb > 16)
        f32_block<R, 2, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp, K, nb, nextA, nextB, ahead);
      else
        f32_block<R, 1, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp, K, nb, nextA, nextB, ahead);
    }
  });
}

#endif // __AVX512F__

#if defined(__AVX512F__) && defined(__AVX512BF16__)
/// acc (M x N) += a * b^T, bf16, b a panel operand: bf16_block on the VNNI
/// panels where they lie; up to 4 rows few_rows_block.
template <int MR, int NV, int64_t PW, int64_t K, bool Fetch>
inline void bf16_few_rows(float *c, int64_t ldc, const uint16_t *a, int64_t lda, const uint32_t *bp, int64_t nb) {
  few_rows_block<MR, NV>(c, ldc, nb, (K + 1) / 2,
                         [&](__m512(&acc)[MR][NV], int64_t kp) __attribute__((always_inline)) {
                           fetch_panel_ahead<NV, Fetch>(bp + kp * PW);
                           unroll<NV>([&](auto v) ARGUS_UNROLLED {
                             const __m512bh bv = (__m512bh)_mm512_load_si512(bp + kp * PW + 16 * v);
                             unroll<MR>([&](auto r) ARGUS_UNROLLED {
                               uint32_t pair = a[r * lda + 2 * kp]; /* odd K: the last k pairs with a zero */
                               if (2 * kp + 1 < K) std::memcpy(&pair, a + r * lda + 2 * kp, sizeof pair);
                               acc[r][v] = _mm512_dpbf16_ps(acc[r][v], (__m512bh)_mm512_set1_epi32(int(pair)), bv);
                             });
                           });
                         });
}

template <int64_t M, int64_t N, int64_t K, bool RaggedRows = false>
inline void mma_bf16_vnni_panels(float *acc, tile_ref<uint16_t> a, tile_ref<uint16_t> b) {
  static_assert(!RaggedRows || M > 4, "few-row tiles with ragged rows are made dense first");
  constexpr int64_t PW = ARGUS_CPU_PANEL_ROWS, KP = (K + 1) / 2;
  const int64_t cols = panel_columns(b, N);
  for (int64_t n0 = 0; n0 < cols; n0 += PW) {
    const int64_t nb = std::min<int64_t>(PW, cols - n0);
    const uint32_t *bp = reinterpret_cast<const uint32_t *>(b.data + n0 / PW * b.ld);
    if constexpr (M <= 4) { /* one row block, streaming the panel */
      few_rows_panel<int(M)>(nb, [&](auto nv, auto fetch) ARGUS_UNROLLED {
        bf16_few_rows<int(M), decltype(nv)::value, PW, K, decltype(fetch)::value>(acc + n0, N, a.data, a.ld, bp, nb);
      });
      continue;
    }
    const int64_t rows = RaggedRows ? a.rows : M;
    for_row_blocks<kMR>(rows, [&](auto mr, int64_t m) { /* ragged: the rows in bounds */
      const next_rows next = next_step_share(bp + KP * PW, K, PW / 2, rows, m);
      if (nb > 16)
        bf16_block<decltype(mr)::value, 2, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp, K, nb, next);
      else
        bf16_block<decltype(mr)::value, 1, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp, K, nb, next);
    });
  }
}

#endif // __AVX512BF16__

} // namespace detail
} // namespace argus_cpu

#endif // ARGUS_CPU_MMA_PANELS_H
