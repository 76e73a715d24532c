/*===- argus_cpu_mma_avx512.h - AVX-512 register blocks -------------------===*
 *
 * Part of section 6 of argus_cpu_kernel.h, included by argus_cpu_mma.h (not
 * a standalone header). The forms of mma for plain operands: f32 FMA and
 * bf16 vdpbf16ps register blocks over packed panels (with the prefetches
 * that feed them), the inner-product form for short tiles, and the rows
 * form of few rows against K x N values.
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_MMA_AVX512_H
#define ARGUS_CPU_MMA_AVX512_H

namespace argus_cpu {
namespace detail {

/// Where a register block starts and what it stores (start_acc, end_acc).
/// By default it adds to c. With `fresh` (mma_scaled) it starts from zeros,
/// ignoring c, and stores its sums times *fresh: a product whose only use
/// is a multiply by a scalar (attention's scores), rounded as the multiply
/// after it was, minus a pass over the tile to zero it and one to scale it.
/// With `rowScale` (row_scale) it adds to c's row r times rowScale[r],
/// scaled as the block loads it: attention's output rescaled by
/// exp(m_old - m_new) in the read the block makes anyway, where a pass of
/// its own read and wrote the whole accumulator tile once more (64 KiB at
/// 128 x 128 f32: more than L1). The same products, rounded alike.
struct acc_start {
  const float *fresh = nullptr;
  const float *rowScale = nullptr;
  /// The start of the block whose first row is row m of the tile.
  acc_start from_row(int64_t m) const { return {fresh, rowScale ? rowScale + m : nullptr}; }
};

#if defined(__AVX512F__)
constexpr int64_t kMR = 8; /* rows of acc per register block */

/// Loads the MR x (16*NV) accumulator block of c (row stride ldc); columns
/// past `nb` read as zero.
template <int MR, int NV> inline void load_acc(__m512 (&acc)[MR][NV], const float *c, int64_t ldc, int64_t nb) {
  const __mmask16 m0 = lane_mask(nb), m1 = lane_mask(nb - 16);
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    acc[r][0] = _mm512_maskz_loadu_ps(m0, c + r * ldc);
    if constexpr (NV == 2) acc[r][1] = _mm512_maskz_loadu_ps(m1, c + r * ldc + 16);
  }
}

/// Stores the block back; columns past `nb` are left untouched.
template <int MR, int NV> inline void store_acc(__m512 (&acc)[MR][NV], float *c, int64_t ldc, int64_t nb) {
  const __mmask16 m0 = lane_mask(nb), m1 = lane_mask(nb - 16);
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    _mm512_mask_storeu_ps(c + r * ldc, m0, acc[r][0]);
    if constexpr (NV == 2) _mm512_mask_storeu_ps(c + r * ldc + 16, m1, acc[r][1]);
  }
}

/// A register block's accumulators at its start and its stores at its end,
/// as `start` says (acc_start).
template <int MR, int NV>
inline void start_acc(__m512 (&acc)[MR][NV], const float *c, int64_t ldc, int64_t nb, acc_start start) {
  if (start.fresh) {
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_setzero_ps();
    return;
  }
  load_acc<MR, NV>(acc, c, ldc, nb);
  if (start.rowScale) {
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m512 by = _mm512_set1_ps(start.rowScale[r]);
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_mul_ps(acc[r][v], by);
    }
  }
}
template <int MR, int NV>
inline void end_acc(__m512 (&acc)[MR][NV], float *c, int64_t ldc, int64_t nb, acc_start start) {
  if (start.fresh) {
    const __m512 by = _mm512_set1_ps(*start.fresh);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_mul_ps(acc[r][v], by);
  }
  store_acc<MR, NV>(acc, c, ldc, nb);
}

/// Rows of K f32 elements, `ld` apart, that a later step reads: prefetched
/// while a register block computes (none: rows 0).
struct next_rows {
  const float *data = nullptr;
  int64_t ld = 0, rows = 0;
};

/// The lines of a next_rows, walked one per call of `fetch(i)` into cache
/// LEVEL: line i of row i / linesPerRow (K elements a row). Precomputed so
/// that the k loop below reads no memory for it.
template <int LEVEL> class line_fetcher {
public:
  line_fetcher(const next_rows &next, int64_t K)
      : base_(reinterpret_cast<const char *>(next.data)), ldBytes_(next.ld * 4), linesPerRow_((K + 15) / 16),
        lines_(next.rows * linesPerRow_) {}
  void fetch(int64_t i) const {
    if (i < lines_) prefetch_line<LEVEL>(base_ + i / linesPerRow_ * ldBytes_ + i % linesPerRow_ * 64);
  }

private:
  const char *base_;
  int64_t ldBytes_, linesPerRow_, lines_;
};

/// The rows of a register block of a (up to 8, `ld` elements apart) at the
/// current k, addressed from two moving pointers (rows 0-3 and 4-7) and the
/// strides ld and 3 ld: four general registers where a pointer per row took
/// eight, which with the prefetch state spilled the block's loop (f32,
/// 128 x 4096 x 4096, two threads: 1.04-1.09x).
template <class S> class block_rows {
public:
  block_rows(const S *a, int64_t ld) : lo_(a), hi_(a + 4 * ld), ld_(ld), ld3_(3 * ld) {}
  /// Row R at the current k.
  template <int R> const S *row() const {
    const S *base = R < 4 ? lo_ : hi_;
    constexpr int q = R % 4;
    return q == 0 ? base : q == 1 ? base + ld_ : q == 2 ? base + 2 * ld_ : base + ld3_;
  }
  void advance(int64_t k) {
    lo_ += k;
    hi_ += k;
  }

private:
  const S *lo_, *hi_;
  int64_t ld_, ld3_;
};

/// acc[MR x (16*NV)] += a[MR x K] * panel (PW wide); columns past `nb` masked
/// off. Each pair of k steps also prefetches a line of `nextA` and two of
/// `nextB`: up to K/2 lines (8 rows) of a, K lines of b. `ahead` (pre-packed panels,
/// read as a stream): each step also fetches the panel row that far ahead.
template <int MR, int NV, int64_t PW>
inline void f32_block(float *c, int64_t ldc, const float *a, int64_t lda, const float *bp, int64_t K,
                      int64_t nb, next_rows nextA = {}, next_rows nextB = {}, const float *ahead = nullptr,
                      acc_start start = {}) {
  __m512 acc[MR][NV];
  start_acc<MR, NV>(acc, c, ldc, nb, start);
  block_rows<float> rows(a, lda);
  auto step = [&](const float *bk) __attribute__((always_inline)) {
    const __m512 b0 = _mm512_load_ps(bk);
    unroll<MR>([&](auto r) ARGUS_UNROLLED {
      const __m512 av = _mm512_set1_ps(*rows.template row<decltype(r)::value>());
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      if constexpr (NV == 2) acc[r][1] = _mm512_fmadd_ps(av, _mm512_load_ps(bk + 16), acc[r][1]);
    });
    rows.advance(1);
  };
  const line_fetcher<1> fetchA(nextA, K);
  const line_fetcher<2> fetchB(nextB, K);
  auto fetchAhead = [&](int64_t k) __attribute__((always_inline)) {
    if (!ahead) return;
    for (int v = 0; v < NV; ++v) prefetch_line<1>(reinterpret_cast<const char *>(ahead + k * PW + 16 * v));
  };
  int64_t k = 0;
  for (; k + 2 <= K; k += 2) {
    fetchA.fetch(k / 2);
    fetchAhead(k);
    step(bp + k * PW);
    fetchB.fetch(k / 2);
    fetchB.fetch(K / 2 + k / 2); /* past its lines when nextB is a tile of b (8 rows) */
    fetchAhead(k + 1);
    step(bp + (k + 1) * PW);
  }
  if (k < K) step(bp + k * PW);
  end_acc<MR, NV>(acc, c, ldc, nb, start);
}

/// What register block `m` (kMR rows of a from row m) prefetches while it
/// computes panel `p`. Operands that lie in tensors with a power-of-two row
/// stride (K = 4096 f32: 16 KiB) map a tile's rows to the same few cache
/// sets, so they are evicted before reuse and each demand read is an L3 or
/// DRAM round trip; packing b at the start of a k-step stalls on them. So
/// panel 0 fetches the next block's rows of a into L1, and the last calls of
/// the other panels fetch the next k-step's tile of b (columns K .. 2K of
/// the same rows, NK layout) into L2, kMR rows each: late, so that it is
/// still there when packed. Short tiles (32 rows: MoE experts) use panel 0's
/// odd steps too, and where even those are too few fetch only part of it. (Prefetches never fault: the last
/// k-step reaching past the tensor is harmless.) f32, one thread: M = 512,
/// K = N = 4096 1.25x; M = 32, N = 14336 1.1x.
template <int64_t M, int64_t N, int64_t K, BLayout L>
inline void f32_prefetch(tile_ref<float> a, tile_ref<float> b, int64_t m, int rows, int64_t p, next_rows &nextA,
                         next_rows &nextB) {
  nextA = nextB = {};
  if (p == 0) nextA = {a.data + (m + rows) * a.ld, a.ld, std::min<int64_t>(kMR, M - m - rows)};
  if constexpr (L == BLayout::NK) {
    constexpr int64_t PW = N <= 16 ? 16 : 32, NP = (N + PW - 1) / PW, blocks = (M + kMR - 1) / kMR;
    constexpr int64_t needed = (N + kMR - 1) / kMR;
    /* the calls of panels 1.. where they are enough (panel 0 keeps a's stream alone), else all */
    constexpr bool laterPanels = blocks * (NP - 1) >= needed;
    constexpr int64_t calls = laterPanels ? blocks * (NP - 1) : blocks * NP, used = calls < needed ? calls : needed;
    if (laterPanels && p == 0) return;
    const int64_t call = (laterPanels ? (m / kMR) * (NP - 1) + p - 1 : (m / kMR) * NP + p) - (calls - used);
    if (call >= 0 && call * kMR < N) /* this call's slice of b */
      nextB = {b.data + call * kMR * b.ld + K, b.ld, std::min<int64_t>(kMR, N - call * kMR)};
  }
}

/// All of b is packed first (NP panels), then each block of rows of a runs
/// across every panel while its rows are still in L1. `start`: see
/// acc_start. `panels` (argus_cpu_pack_reuse.h) packs them into a buffer on
/// the stack or finds them kept from an earlier product of the launch (then
/// nothing reads b, and nothing fetches its next k-step).
template <int64_t M, int64_t N, int64_t K, BLayout L, bool RaggedRows = false, class Panels = packs_each_call>
inline void mma_f32_avx512(float *acc, tile_ref<float> a, tile_ref<float> b, acc_start start = {},
                           Panels panels = {}) {
  constexpr int64_t PW = N <= 16 ? 16 : 32; /* panel width: 1 or 2 zmm of columns */
  constexpr int64_t NP = (N + PW - 1) / PW;
  alignas(64) float buffer[NP * K * PW];
  const float *bp[NP];
  for (int64_t p = 0; p < NP; ++p)
    bp[p] = panels.template panel<L, PW, K>(buffer + p * K * PW, b, p * PW, std::min<int64_t>(PW, N - p * PW));
  for_row_blocks<kMR>(RaggedRows ? a.rows : M, [&](auto mr, int64_t m) { /* ragged: the rows in bounds */
    constexpr int R = decltype(mr)::value;
    for (int64_t p = 0; p < NP; ++p) {
      const int64_t n0 = p * PW, nb = std::min<int64_t>(PW, N - n0);
      next_rows nextA, nextB;
      f32_prefetch<M, N, K, L>(a, b, m, R, p, nextA, nextB);
      if (Panels::kept) nextB = {};
      if (PW == 32 && nb > 16)
        f32_block<R, 2, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp[p], K, nb, nextA, nextB, nullptr,
                          start.from_row(m));
      else
        f32_block<R, 1, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp[p], K, nb, nextA, nextB, nullptr,
                          start.from_row(m));
    }
  });
}

/*  Short tiles (inner_product_fits) take the inner-product form
 *  instead: vectors run along k in both operands, so the weights are read
 *  where they lie and never packed. A decode GEMM reads each weight once;
 *  packing it would cost as much again. MR x NR accumulators, each reduced
 *  horizontally once per call:
 *
 *      acc[r][j] (16 lanes) += a[r][k:k+16] * b[j][k:k+16]     (f32 FMA)
 *      acc[r][j] (16 lanes) += a[r][k:k+32] . b[j][k:k+32]     (bf16 pairs, vdpbf16ps)
 */

/// The f32 step of the inner-product form: 16 k per vector.
struct f32_dot {
  using storage = float;
  using vec = __m512;
  static constexpr int64_t KV = 16;
  static vec load(const float *x, int64_t n) { return _mm512_maskz_loadu_ps(lane_mask(n), x); }
  static __m512 fma(__m512 c, vec x, vec y) { return _mm512_fmadd_ps(x, y, c); }
};

/// The 16 lane sums of v[0..15], in order, as one vector (reduce_lanes16):
/// about a third of the instructions of 16 separate horizontal sums.
__attribute__((always_inline)) inline __m512 sum_lanes16(const __m512 (&v)[16]) {
  return reduce_lanes16(v, [](__m512 a, __m512 b) __attribute__((always_inline)) { return _mm512_add_ps(a, b); });
}

/// c[r][j] += lane r * NR + j of `sums` for an MR x NR block of 16 sums:
/// one vector add per row of c.
template <int MR, int NR> inline void add_block_sums(float *c, int64_t ldc, __m512 sums) {
  static_assert(MR * NR == 16, "a block of 16 sums");
  if constexpr (NR == 16) {
    _mm512_storeu_ps(c, _mm512_add_ps(_mm512_loadu_ps(c), sums));
  } else if constexpr (NR == 8) {
    _mm256_storeu_ps(c, _mm256_add_ps(_mm256_loadu_ps(c), _mm512_castps512_ps256(sums)));
    _mm256_storeu_ps(c + ldc, _mm256_add_ps(_mm256_loadu_ps(c + ldc), _mm512_extractf32x8_ps(sums, 1)));
  } else {
    _mm_storeu_ps(c, _mm_add_ps(_mm_loadu_ps(c), _mm512_castps512_ps128(sums)));
    _mm_storeu_ps(c + ldc, _mm_add_ps(_mm_loadu_ps(c + ldc), _mm512_extractf32x4_ps(sums, 1)));
    _mm_storeu_ps(c + 2 * ldc, _mm_add_ps(_mm_loadu_ps(c + 2 * ldc), _mm512_extractf32x4_ps(sums, 2)));
    _mm_storeu_ps(c + 3 * ldc, _mm_add_ps(_mm_loadu_ps(c + 3 * ldc), _mm512_extractf32x4_ps(sums, 3)));
  }
}

/// Whether a product with one row of a fetches the weights it streams into
/// L2 ahead of its reads (dot_block's rows of b, few_rows_block's pre-packed
/// panels) on this CPU: not on AMD's Zen 5 (family 26), whose prefetchers
/// feed the streams alone and where the fetches cost what they gain on Zen 4.
/// Zen 5, two threads, weights from memory, A/Bs in both orders: pre-packed
/// panels bf16 28672 x 4096 and 4096 x 14336 1.12-1.23x without them, f32
/// 1.12-1.20x; plain rows bf16 6144 x 4096 and 28672 x 4096 1.05-1.13x.
/// ARGUS_CPU_ROW_FETCH=0 or 1 decides instead (ARGUS_CPU_PANEL_FETCH, its
/// earlier name, too).
inline bool one_row_fetch_preferred() {
  static const bool preferred = [] {
    for (const char *name : {"ARGUS_CPU_ROW_FETCH", "ARGUS_CPU_PANEL_FETCH"})
      if (const char *env = std::getenv(name)) return std::strcmp(env, "0") != 0;
    unsigned eax, ebx, ecx, edx;
    __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(1), "c"(0));
    const unsigned family = ((eax >> 8) & 0xf) + ((eax >> 8 & 0xf) == 0xf ? (eax >> 20) & 0xff : 0);
    __builtin_cpu_init();
    return !(__builtin_cpu_is("amd") && family >= 26);
  }();
  return preferred;
}

/// c[0][0..15] += a[1 x K] . b[16 x K]^T, four rows of b at a time, four
/// vectors (lines of bf16, f32 lines) of each row a step: dot_block's form
/// for one row of a where the CPU's prefetchers feed the streams alone
/// (one_row_fetch_preferred false) and each row is read 2048 k at a time or
/// more. Four streams of four lines replace sixteen of one (Zen 5, two
/// threads, plain weights from memory, A/B in both orders: bf16
/// 4096 x 14336 1.07-1.12x, f32 1.03-1.10x; N x 4096 even; MoE experts'
/// 512-long steps ran 0.83-0.88x, and keep the sixteen).
template <int64_t K, class Dot, class SA, class SB, class Shadow>
__attribute__((always_inline)) inline void dot_row_groups(float *c, const SA *a, const SB *b, int64_t ldb,
                                                          Shadow shadow) {
  constexpr int64_t KV = Dot::KV;
  constexpr int G = 4, U = 4; /* rows a group, vectors of each a step */
  static_assert(K % (U * KV) == 0, "whole steps");
  __m512 sums[16];
  unroll<16 / G>([&](auto g) ARGUS_UNROLLED {
    __m512 acc[G][U];
    unroll<G>([&](auto j) ARGUS_UNROLLED {
      unroll<U>([&](auto u) ARGUS_UNROLLED { acc[j][u] = _mm512_setzero_ps(); });
    });
    for (int64_t k = 0; k < K; k += U * KV) {
      typename Dot::vec av[U];
      unroll<U>([&](auto u) ARGUS_UNROLLED { av[u] = Dot::load(a + k + u * KV, KV); });
      unroll<G>([&](auto j) ARGUS_UNROLLED {
        const SB *row = b + (g * G + j) * ldb + k;
        unroll<U>([&](auto u) ARGUS_UNROLLED {
          shadow.fetch(row + u * KV);
          acc[j][u] = Dot::fma(acc[j][u], av[u], Dot::load(row + u * KV, KV));
        });
      });
    }
    unroll<G>([&](auto j) ARGUS_UNROLLED {
      sums[g * G + j] = _mm512_add_ps(_mm512_add_ps(acc[j][0], acc[j][1]), _mm512_add_ps(acc[j][2], acc[j][3]));
    });
  });
  add_block_sums<1, 16>(c, 0, sum_lanes16(sums));
}

/// acc (MR x NR block of c) += a[MR x K] . b[NR x K]^T, vectors along k;
/// the tail step loads only the k that remain (the rest read as zero). Long
/// rows of b (weights streamed from memory: decode GEMMs, MoE experts) are
/// prefetched a few lines ahead: NR rows read side by side are NR streams
/// 4 KiB apart, more than the hardware prefetchers keep up with (MoE gate/up
/// at 1 row, one thread, weights from DRAM: 9.4 -> 11.5 GB/s). One row of a
/// (16 streams, one vdpbf16ps or FMA per line read) prefetches into L2: an
/// L1 prefetch holds an L1 miss buffer for the whole DRAM latency, and 16
/// streams of them queue (Zen 4, two threads, M = 1: bf16 1.21-1.25x, f32
/// 1.1-1.18x); blocks of more rows ran 0.95-0.97x that way and keep L1.
/// RowFetch false: one row of a leaves its streams to the CPU's prefetchers
/// (one_row_fetch_preferred), in groups of four rows where its k-steps are
/// long (dot_row_groups).
/// `shadow` fetches the line of its tile that matches each 64 bytes of b read.
/// Written with unroll's constants, inlined whole and its k-steps counted at
/// compile time, the block keeps its accumulators in registers. As a call of
/// its own with `#pragma GCC unroll` loops and a runtime k, GCC kept them in
/// memory and stored all 16 at every step of k where it did not inline it
/// (MoE experts: 16 tokens 1.1-1.15x slower; M = 1 GEMMs 1.05-1.14x).
template <int MR, int NR, int64_t K, class Dot, bool RowFetch = true, class SA, class SB, class Shadow = no_shadow>
__attribute__((always_inline)) inline void dot_block(float *c, int64_t ldc, const SA *a, int64_t lda, const SB *b,
                                                     int64_t ldb, dot_next next = {}, Shadow shadow = {}) {
  constexpr int64_t KV = Dot::KV;
  constexpr int64_t kAhead = 4 * 64 / int64_t(sizeof(*b)); /* elements in 4 cache lines */
  constexpr bool prefetch = K >= 4 * kAhead && (MR > 1 || RowFetch);
  if constexpr (MR == 1 && NR == 16 && !RowFetch && K >= 2048 && K % (4 * KV) == 0)
    /* (one row of a is one row block: nothing of `next` to fetch) */
    return dot_row_groups<K, Dot>(c, a, b, ldb, shadow);
  __m512 acc[MR][NR];
  unroll<MR>([&](auto r) ARGUS_UNROLLED {
    unroll<NR>([&](auto j) ARGUS_UNROLLED { acc[r][j] = _mm512_setzero_ps(); });
  });
  auto step = [&](int64_t k, int64_t n) __attribute__((always_inline)) {
    for (int64_t r = 0; r < next.count; ++r) /* 64 bytes a step */
      prefetch_line<2>(next.rows + r * next.ldBytes + k * int64_t(sizeof(*b)));
    typename Dot::vec av[MR];
    unroll<MR>([&](auto r) ARGUS_UNROLLED { av[r] = Dot::load(a + r * lda + k, n); });
    unroll<NR>([&](auto j) ARGUS_UNROLLED {
      if constexpr (prefetch) {
        if constexpr (MR == 1) prefetch_line<2>(reinterpret_cast<const char *>(b + j * ldb + k + kAhead));
        else prefetch_line<1>(reinterpret_cast<const char *>(b + j * ldb + k + kAhead));
      }
      const typename Dot::vec bv = Dot::load(b + j * ldb + k, n);
      shadow.fetch(b + j * ldb + k);
      unroll<MR>([&](auto r) ARGUS_UNROLLED { acc[r][j] = Dot::fma(acc[r][j], av[r], bv); });
    });
  };
  int64_t k = 0;
  for (; k + KV <= K; k += KV) step(k, KV);
  if constexpr (K % KV != 0) step(k, K - k);
  if constexpr (MR * NR == 16) { /* one tree for the block: lane r * NR + j is acc[r][j] */
    __m512 all[16];
    unroll<MR>([&](auto r) ARGUS_UNROLLED {
      unroll<NR>([&](auto j) ARGUS_UNROLLED { all[r * NR + j] = acc[r][j]; });
    });
    add_block_sums<MR, NR>(c, ldc, sum_lanes16(all));
  } else {
    unroll<MR>([&](auto r) ARGUS_UNROLLED {
      unroll<NR>([&](auto j) ARGUS_UNROLLED { c[r * ldc + j] += _mm512_reduce_add_ps(acc[r][j]); });
    });
  }
}

/// acc (M x N) += a * b^T for short tiles (inner_product_fits): blocks of up
/// to 4 rows of a (mma_dot_blocks) by NR columns of b; RowFetch as dot_block's
/// (one row of a only: blocks of more rows, and their one-row rest, always
/// fetch).
template <int64_t M, int64_t N, int64_t K, class Dot, bool RowFetch, bool RaggedRows = false, class SA, class SB,
          class Shadow = no_shadow>
inline void mma_dot_fetching(float *acc, tile_ref<SA> a, tile_ref<SB> b, Shadow shadow = {}) {
  constexpr int MR = M < 4 ? int(M) : 4;            /* rows per block */
  constexpr int NR = MR == 1 ? 16 : MR == 2 ? 8 : 4; /* 16 accumulators (one reduction tree), else 12 */
  mma_dot_blocks<M, N, K, MR, NR, RaggedRows>(
      acc, a, b,
      [](auto mr, auto nr, float *c, int64_t ldc, const SA *ap, int64_t lda, const SB *bp, int64_t ldb,
         int64_t /* K */, dot_next next, auto blockShadow) {
        constexpr int rows = decltype(mr)::value;
        constexpr bool fetch = RowFetch || rows > 1;
        dot_block<rows, decltype(nr)::value, K, Dot, fetch>(c, ldc, ap, lda, bp, ldb, next, blockShadow);
      },
      shadow);
}

/// mma_dot_fetching as this CPU prefers it (one_row_fetch_preferred).
template <int64_t M, int64_t N, int64_t K, class Dot, bool RaggedRows = false, class SA, class SB,
          class Shadow = no_shadow>
inline void mma_dot(float *acc, tile_ref<SA> a, tile_ref<SB> b, Shadow shadow = {}) {
  if constexpr (M == 1)
    if (!one_row_fetch_preferred()) return mma_dot_fetching<M, N, K, Dot, false, RaggedRows>(acc, a, b, shadow);
  mma_dot_fetching<M, N, K, Dot, true, RaggedRows>(acc, a, b, shadow);
}
#endif // __AVX512F__

#if defined(__AVX512F__) && defined(__AVX512BF16__)
/// acc[MR x (16*NV)] += a[MR x K] (bf16) * VNNI panel (pairs of k, PW wide).
/// Each pair of k also prefetches a line of `next` (rows of K).
template <int MR, int NV, int64_t PW>
inline void bf16_block(float *c, int64_t ldc, const uint16_t *a, int64_t lda, const uint32_t *bp, int64_t K,
                       int64_t nb, next_rows next = {}, acc_start start = {}) {
  __m512 acc[MR][NV];
  start_acc<MR, NV>(acc, c, ldc, nb, start);
  block_rows<uint16_t> rows(a, lda);
  auto step = [&](const uint32_t *bk, auto pairOf) __attribute__((always_inline)) {
    const __m512bh b0 = (__m512bh)_mm512_load_si512(bk);
    unroll<MR>([&](auto r) ARGUS_UNROLLED {
      const __m512bh av = (__m512bh)_mm512_set1_epi32(int(pairOf(rows.template row<decltype(r)::value>())));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], av, b0);
      if constexpr (NV == 2) acc[r][1] = _mm512_dpbf16_ps(acc[r][1], av, (__m512bh)_mm512_load_si512(bk + 16));
    });
    rows.advance(2);
  };
  const int64_t KP = K / 2;
  const line_fetcher<2> fetch(next, K);
  for (int64_t kp = 0; kp < KP; ++kp) {
    fetch.fetch(kp);
    step(bp + kp * PW, [](const uint16_t *pair) {
      uint32_t bits;
      std::memcpy(&bits, pair, sizeof bits);
      return bits;
    });
  }
  if (K & 1) /* odd K: the last k pairs with a zero */
    step(bp + KP * PW, [](const uint16_t *last) { return uint32_t(*last); });
  end_acc<MR, NV>(acc, c, ldc, nb, start);
}

/// `panels` (argus_cpu_pack_reuse.h) packs each VNNI panel of b into `buffer`
/// or finds it kept from an earlier product of the launch.
template <int64_t M, int64_t N, int64_t K, BLayout L, bool RaggedRows = false, class Panels = packs_each_call>
inline void mma_bf16_avx512(float *acc, tile_ref<uint16_t> a, tile_ref<uint16_t> b, acc_start start = {},
                            Panels panels = {}) {
  constexpr int64_t PW = N <= 16 ? 16 : 32;
  constexpr int64_t KP = (K + 1) / 2;
  alignas(64) uint32_t buffer[KP * PW];
  for (int64_t n0 = 0; n0 < N; n0 += PW) {
    const int64_t nb = std::min<int64_t>(PW, N - n0);
    const uint32_t *bp = panels.template panel<L, PW, K>(buffer, b, n0, nb);
    for_row_blocks<kMR>(RaggedRows ? a.rows : M, [&](auto mr, int64_t m) { /* ragged: the rows in bounds */
      if (PW == 32 && nb > 16)
        bf16_block<decltype(mr)::value, 2, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp, K, nb, {},
                                               start.from_row(m));
      else
        bf16_block<decltype(mr)::value, 1, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp, K, nb, {},
                                               start.from_row(m));
    });
  }
}


#if defined(__AVX512BW__)
/*  Few rows of a against b laid out K x N (decode attention's P.V) take the
 *  rows form: rows 2kp and 2kp+1 of v are interleaved into VNNI pairs in
 *  registers (vpunpck{l,h}wd) as they are read, where they lie, and each
 *  pair of a is broadcast against them. The packed form would first write
 *  all of v to a panel, which with at most 8 rows to reuse it costs more
 *  than the products (a 4 x 128 x 16 product: 2.5x slower).
 *  The unpacks work within 128-bit lanes: of a 32-column chunk, the low one
 *  holds columns 8l .. 8l+3 of lane l and the high one 8l+4 .. 8l+7, so the
 *  accumulators hold the columns in that order until the block's end. */

/// Rows 2kp and 2kp+1 (the second zero past K) of a 32-column chunk of v as
/// the two VNNI operands, columns past `nb` zero.
inline void kn_pairs(const uint16_t *v, int64_t ldv, bool hasOdd, int64_t nb, __m512bh &lo, __m512bh &hi) {
  const __mmask32 m = nb >= 32 ? ~__mmask32(0) : nb <= 0 ? __mmask32(0) : __mmask32((1u << nb) - 1u);
  const __m512i even = _mm512_maskz_loadu_epi16(m, v);
  const __m512i odd = hasOdd ? _mm512_maskz_loadu_epi16(m, v + ldv) : _mm512_setzero_si512();
  lo = (__m512bh)_mm512_unpacklo_epi16(even, odd);
  hi = (__m512bh)_mm512_unpackhi_epi16(even, odd);
}

/// c[MR x 32*NV] += the rows forms' accumulators: chunk j's two vectors
/// acc[r][j] hold its 32 columns in an order of their own, which `first` and
/// `second` (vpermt2ps indices) put back as columns 0-15 and 16-31. Columns
/// past `nb` are neither read nor written. Always inlined, with the unrolls'
/// bodies in it (ARGUS_UNROLLED): out of line it takes the accumulators'
/// address, and GCC then keeps them in memory for the whole block (decode
/// attention 0.90-0.94x).
template <int MR, int NV, class Scale>
__attribute__((always_inline)) inline void add_chunks(float *c, int64_t ldc, const __m512 (&acc)[MR][NV][2],
                                                      int64_t nb, __m512i first, __m512i second, Scale scale) {
  unroll<MR>([&](auto r) ARGUS_UNROLLED {
    unroll<NV>([&](auto j) ARGUS_UNROLLED {
      float *out = c + r * ldc + 32 * j;
      const __mmask16 m0 = lane_mask(nb - 32 * j), m1 = lane_mask(nb - 32 * j - 16);
      const __m512 x0 = _mm512_permutex2var_ps(acc[r][j][0], first, acc[r][j][1]);
      const __m512 x1 = _mm512_permutex2var_ps(acc[r][j][0], second, acc[r][j][1]);
      const __m512 old0 = scale.rescale(_mm512_maskz_loadu_ps(m0, out), r);
      const __m512 old1 = scale.rescale(_mm512_maskz_loadu_ps(m1, out + 16), r);
      _mm512_mask_storeu_ps(out, m0, _mm512_add_ps(old0, x0));
      _mm512_mask_storeu_ps(out + 16, m1, _mm512_add_ps(old1, x1));
    });
  });
}

/// c[MR x 32*NV] += a[MR x K] * v[K x 32*NV], columns past `nb` neither read
/// nor written. Inlined into its one caller (kFewRowsForm).
template <int MR, int NV, int64_t K, class Shadow = no_shadow, class Scale = no_scale>
__attribute__((always_inline)) inline void kn_rows_block(float *c, int64_t ldc, const uint16_t *a, int64_t lda,
                                                         const uint16_t *v, int64_t ldv, int64_t nb,
                                                         Shadow shadow = {}, Scale scale = {}) {
  __m512 acc[MR][NV][2];
  unroll<MR>([&](auto r) ARGUS_UNROLLED {
    unroll<NV>([&](auto j) ARGUS_UNROLLED { acc[r][j][0] = acc[r][j][1] = _mm512_setzero_ps(); });
  });
  /* (always_inline: GCC 12 outlines a step called twice, and the accumulators with it) */
  auto step = [&](int64_t kp) __attribute__((always_inline)) {
    const uint16_t *row = v + 2 * kp * ldv;
    const bool hasOdd = 2 * kp + 1 < K; /* odd K: the last k pairs with a zero */
    unroll<NV>([&](auto j) ARGUS_UNROLLED {
      __m512bh lo, hi;
      kn_pairs(row + 32 * j, ldv, hasOdd, nb - 32 * j, lo, hi);
      if (32 * j < nb) {
        shadow.fetch(row + 32 * j);
        if (hasOdd) shadow.fetch(row + ldv + 32 * j);
      }
      unroll<MR>([&](auto r) ARGUS_UNROLLED {
        uint32_t pair = a[r * lda + 2 * kp];
        if (hasOdd) std::memcpy(&pair, a + r * lda + 2 * kp, sizeof pair);
        const __m512bh ab = (__m512bh)_mm512_set1_epi32(int(pair));
        acc[r][j][0] = _mm512_dpbf16_ps(acc[r][j][0], ab, lo);
        acc[r][j][1] = _mm512_dpbf16_ps(acc[r][j][1], ab, hi);
      });
    });
  };
  for (int64_t kp = 0; kp < K / 2; ++kp) step(kp);
  if constexpr (K % 2 != 0) step(K / 2);
  /* back in column order: lanes (lo 0, hi 0, lo 1, hi 1) and (lo 2, hi 2, lo 3, hi 3) */
  add_chunks<MR, NV>(c, ldc, acc, nb, _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23),
                     _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31), scale);
}

/*  kFewRowsForm: the few-row forms of decode attention's products
 *  (mma_kn_rows, mma_dot_widened, mma_kn_widened) are each one function out
 *  of line with its register block inlined. GCC 12 chose between that and
 *  the block out of line (the form inlined into the kernel) by size
 *  estimates that moved with unrelated edits to this header; the second
 *  shape ran the whole decode kernel 0.9x (llama3-8b, 2 threads, 2026-11-30). */

/// Whether a bf16 product with b laid out K x N takes the rows form.
template <int64_t M> constexpr bool kn_rows_fit() { return M <= 8; }

/// 32-column chunks of v per block of the rows forms: two accumulators per
/// row and chunk, at most 16 in all, and no more chunks than N holds (one
/// row of a against 128 columns took 8 chunks, half of them past N: twice
/// the products).
template <int MR, int64_t N> constexpr int kn_chunks() {
  const int most = MR == 1 ? 8 : MR == 2 ? 4 : MR <= 4 ? 2 : 1;
  return N < 32 * most ? int((N + 31) / 32) : most;
}

/// acc (M x N) += a (M x K) * v (K x N), bf16, M <= 8: 32-column chunks, as
/// many per block as keep 16 accumulators.
template <int64_t M, int64_t N, int64_t K, class Shadow = no_shadow, class Scale = no_scale>
__attribute__((noinline)) void mma_kn_rows(float *acc, tile_ref<uint16_t> a, tile_ref<uint16_t> v, Shadow shadow = {},
                                           Scale scale = {}) {
  static_assert(kn_rows_fit<M>(), "the rows form holds every row of a in one register block");
  constexpr int MR = int(M), NV = kn_chunks<MR, N>();
  for (int64_t n0 = 0; n0 < N; n0 += 32 * NV)
    kn_rows_block<MR, NV, K>(acc + n0, N, a.data, a.ld, v.data + n0, v.ld, N - n0, shadow, scale);
}

/// The bf16 step of the inner-product form: 32 k (16 pairs) per vdpbf16ps.
struct bf16_dot {
  using storage = uint16_t;
  using vec = __m512bh;
  static constexpr int64_t KV = 32;
  static vec load(const uint16_t *x, int64_t n) {
    const __mmask32 m = n >= 32 ? ~__mmask32(0) : __mmask32((1u << n) - 1u);
    return (__m512bh)_mm512_maskz_loadu_epi16(m, x);
  }
  static __m512 fma(__m512 c, vec x, vec y) { return _mm512_dpbf16_ps(c, x, y); }
};

/*  bf16 widened to f32. On Intel's cores vdpbf16ps issues once per two
 *  cycles (Emerald Rapids, measured: 16 multiply-adds a cycle, a half of
 *  two f32 FMA units' 32), so a product whose rows of a share each vector
 *  of b runs faster as f32 FMAs: the bf16 pair in a 32-bit lane of b becomes
 *  two f32 vectors by a shift (the even k) and a mask (the odd k), both
 *  exact, and feeds 2 FMAs per row of a. a is widened once per call. Sums
 *  run in the same f32 as vdpbf16ps's. Decode attention (4 query heads a KV
 *  head, d = 128), whose two products take most of its time: 1.2-1.45x,
 *  L2 to DRAM, two threads. */

/// Whether bf16 products prefer the widened forms on this CPU: Intel's
/// (GenuineIntel); AMD's Zen 4 and 5 run vdpbf16ps at or above the FMA
/// rate. ARGUS_CPU_BF16_WIDEN=0 or 1 decides instead.
inline bool bf16_widen_preferred() {
  static const bool preferred = [] {
    if (const char *env = std::getenv("ARGUS_CPU_BF16_WIDEN")) return std::strcmp(env, "0") != 0;
    __builtin_cpu_init();
    return __builtin_cpu_is("intel") != 0;
  }();
  return preferred;
}

/// Rows of a that share each widened vector of b: with one, the widening
/// costs as much as the vdpbf16ps it replaces.
template <int64_t M> constexpr bool bf16_widen_fits() { return M >= 2 && M <= 4; }

/// The widened bf16 step of the inner-product form: 32 k as two f32 vectors,
/// the even k and the odd k. Rows of b are widened as they are read; rows of
/// a were widened beforehand (widen_pairs), each 32 k as 16 even then 16 odd.
struct bf16_widened_dot {
  struct vec {
    __m512 even, odd;
  };
  static constexpr int64_t KV = 32;
  static vec load(const uint16_t *x, int64_t n) {
    const __mmask32 m = n >= 32 ? ~__mmask32(0) : n <= 0 ? __mmask32(0) : __mmask32((1u << n) - 1u);
    const __m512i pairs = _mm512_maskz_loadu_epi16(m, x);
    return {_mm512_castsi512_ps(_mm512_slli_epi32(pairs, 16)),
            _mm512_castsi512_ps(_mm512_and_si512(pairs, _mm512_set1_epi32(int(0xffff0000u))))};
  }
  static vec load(const float *x, int64_t) { return {_mm512_loadu_ps(x), _mm512_loadu_ps(x + 16)}; }
  static __m512 fma(__m512 c, vec x, vec y) { return _mm512_fmadd_ps(x.odd, y.odd, _mm512_fmadd_ps(x.even, y.even, c)); }
};

/// dst (M rows of KP = K rounded up to 32) = the rows of a widened in
/// bf16_widened_dot's order, zero past K.
template <int64_t M, int64_t K, int64_t KP>
inline void widen_pairs(float *dst, tile_ref<uint16_t> a) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < KP; k += 32) {
      const bf16_widened_dot::vec x = bf16_widened_dot::load(a.data + m * a.ld + k, K - k);
      _mm512_storeu_ps(dst + m * KP + k, x.even);
      _mm512_storeu_ps(dst + m * KP + k + 16, x.odd);
    }
}

/// acc (M x N) += a * b^T for short bf16 tiles (inner_product_fits) on f32
/// FMAs: the inner-product form with bf16_widened_dot.
template <int64_t M, int64_t N, int64_t K, class Shadow = no_shadow>
__attribute__((noinline)) void mma_dot_widened(float *acc, tile_ref<uint16_t> a, tile_ref<uint16_t> b, Shadow shadow = {}) {
  static_assert(M <= 4, "one block of rows: mma_dot_blocks would copy a's rows K, not KP, long");
  constexpr int64_t KP = (K + 31) / 32 * 32;
  alignas(64) float aw[M * KP];
  widen_pairs<M, K, KP>(aw, a);
  mma_dot<M, N, K, bf16_widened_dot>(acc, tile_ref<float>{aw, KP}, b, shadow);
}

/// c[MR x 32*NV] += a[MR x K] (f32) * v[K x 32*NV] (bf16, widened as read),
/// columns past `nb` neither read nor written. Accumulators hold a chunk's
/// even and odd columns apart until the end. Inlined into its one caller
/// (kFewRowsForm).
template <int MR, int NV, int64_t K, class Shadow = no_shadow, class Scale = no_scale>
__attribute__((always_inline)) inline void kn_widened_block(float *c, int64_t ldc, const float *a, int64_t lda,
                                                            const uint16_t *v, int64_t ldv, int64_t nb,
                                                            Shadow shadow = {}, Scale scale = {}) {
  __m512 acc[MR][NV][2];
  unroll<MR>([&](auto r) ARGUS_UNROLLED {
    unroll<NV>([&](auto j) ARGUS_UNROLLED { acc[r][j][0] = acc[r][j][1] = _mm512_setzero_ps(); });
  });
  for (int64_t k = 0; k < K; ++k) {
    unroll<NV>([&](auto j) ARGUS_UNROLLED {
      const bf16_widened_dot::vec x = bf16_widened_dot::load(v + k * ldv + 32 * j, nb - 32 * j);
      if (32 * j < nb) shadow.fetch(v + k * ldv + 32 * j);
      unroll<MR>([&](auto r) ARGUS_UNROLLED {
        const __m512 av = _mm512_set1_ps(a[r * lda + k]);
        acc[r][j][0] = _mm512_fmadd_ps(av, x.even, acc[r][j][0]);
        acc[r][j][1] = _mm512_fmadd_ps(av, x.odd, acc[r][j][1]);
      });
    });
  }
  /* back in column order: (even 0, odd 0, even 1, odd 1, ...) */
  add_chunks<MR, NV>(c, ldc, acc, nb, _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23),
                     _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), scale);
}

/// acc (M x N) += a (M x K) * v (K x N), bf16, M <= 8, on f32 FMAs: the
/// rows form with v's rows widened as read, no pairs of rows to interleave.
template <int64_t M, int64_t N, int64_t K, class Shadow = no_shadow, class Scale = no_scale>
__attribute__((noinline)) void mma_kn_widened(float *acc, tile_ref<uint16_t> a, tile_ref<uint16_t> v,
                                              Shadow shadow = {}, Scale scale = {}) {
  static_assert(kn_rows_fit<M>(), "the rows form holds every row of a in one register block");
  constexpr int MR = int(M), NV = kn_chunks<MR, N>();
  alignas(64) float aw[M * K];
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) aw[m * K + k] = bf16::load(a.data[m * a.ld + k]);
  for (int64_t n0 = 0; n0 < N; n0 += 32 * NV)
    kn_widened_block<MR, NV, K>(acc + n0, N, aw, K, v.data + n0, v.ld, N - n0, shadow, scale);
}
#endif
#endif // __AVX512BF16__

} // namespace detail
} // namespace argus_cpu

#endif // ARGUS_CPU_MMA_AVX512_H
