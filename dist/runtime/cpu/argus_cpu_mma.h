/*===- argus_cpu_mma.h - mma micro-kernels of the CPU backend -------------===*
 *
 * Section 6 of argus_cpu_kernel.h, which includes it (it is not a standalone
 * header: it uses that header's element types and tile_ref). Kept apart
 * because the micro-kernels are the part that grows per ISA.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_MMA_H
#define ARGUS_CPU_MMA_H

namespace argus_cpu {

/*===----------------------------------------------------------------------===*
 * 6. mma: acc (M x N, f32, row-major) += a (M x K) * b (N x K)^T
 *
 *  Packed formulation (BLIS-like): b is packed one panel of PW = 32 columns
 *  (16 when N <= 16) at a time into k-major order (bp[k][j] = b[n0 + j][k],
 *  16 x 16 register transposes); a register block of kMR = 8 rows x 32
 *  columns of acc (16 zmm accumulators) stays in registers for the whole K
 *  loop; each step broadcasts a[m][k] and issues one FMA per accumulator.
 *
 *      bp panel (K x 32)        acc block (8 x 32) += a[m][k] (bcast) * bp[k][:]
 *      k0: |b0k0 ... b31k0|
 *      k1: |b0k1 ... b31k1|
 *
 *  bf16 with AVX512_BF16 packs pairs of k instead (VNNI order,
 *  bp[k/2][j] = {b[j][k], b[j][k+1]}) and broadcasts the pair {a[m][k],
 *  a[m][k+1]}: vdpbf16ps does 32 multiply-adds per instruction. Products of
 *  bf16 values are exact in f32; vdpbf16ps flushes bf16 denormals to zero.
 *===----------------------------------------------------------------------===*/

namespace detail {

/// How mma's b operand lies in memory. NK: N rows of K (b^T is used: the
/// weights of y = x W^T, the keys of q k^T). KN: K rows of N, for
/// mma(a, transpose(v)) (the values of p v), read without the transpose.
enum class BLayout { NK, KN };

/// Whether an M x K by N x K tile product takes the inner-product form
/// (below) rather than packed panels: up to 4 rows, and f32 up to 16 rows
/// when K is long (32 rows run packed 1.15-1.2x faster: cpuGemmKStep in
/// GemmPlan.cpp). Packing a panel of b costs a 16 x 16 transpose (shuffle
/// bound) per 256 elements, which short tiles do not amortise; the
/// inner-product form instead pays a reduction per 16 sums, which short k
/// steps do not amortise (f32 attention, K = head_dim 128: 3-6% slower).
/// bf16 has AMX and vdpbf16ps panels for short tiles too.
template <class DT, int64_t M, int64_t K> constexpr bool inner_product_fits() {
  return M <= 4 || (std::is_same<DT, f32>::value && M <= 16 && K >= 256);
}

/// b[n][k] in either layout.
template <BLayout L, class S> inline S b_at(tile_ref<S> b, int64_t n, int64_t k) {
  return L == BLayout::NK ? b.data[n * b.ld + k] : b.data[k * b.ld + n];
}

/// Portable fallback (compiles anywhere; the inner loop auto-vectorises).
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L>
inline void mma_portable(float *acc, tile_ref<typename DT::storage> a, tile_ref<typename DT::storage> b) {
  constexpr int64_t NB = N < 64 ? N : 64;
  alignas(64) float bt[K * NB];
  for (int64_t n0 = 0; n0 < N; n0 += NB) {
    const int64_t nb = std::min<int64_t>(NB, N - n0);
    for (int64_t j = 0; j < nb; ++j)
      for (int64_t k = 0; k < K; ++k) bt[k * NB + j] = float(DT::load(b_at<L>(b, n0 + j, k)));
    for (int64_t m = 0; m < M; ++m) {
      float *c = acc + m * N + n0;
      for (int64_t k = 0; k < K; ++k) {
        const float av = float(DT::load(a.data[m * a.ld + k]));
        const float *bk = bt + k * NB;
        for (int64_t j = 0; j < nb; ++j) c[j] += av * bk[j];
      }
    }
  }
}

/// Runs `block(rows, m)` over all M rows: blocks of MR rows (up to 8), then
/// the remainder, each count as a std::integral_constant.
template <int MR, class Block> inline void for_row_blocks(int64_t M, Block block) {
  static_assert(MR >= 1 && MR <= 8, "register blocks of 1 to 8 rows");
  int64_t m = 0;
  for (; m + MR <= M; m += MR) block(std::integral_constant<int, MR>(), m);
  switch (M - m) {
  case 7: if constexpr (MR > 7) block(std::integral_constant<int, 7>(), m); break;
  case 6: if constexpr (MR > 6) block(std::integral_constant<int, 6>(), m); break;
  case 5: if constexpr (MR > 5) block(std::integral_constant<int, 5>(), m); break;
  case 4: if constexpr (MR > 4) block(std::integral_constant<int, 4>(), m); break;
  case 3: if constexpr (MR > 3) block(std::integral_constant<int, 3>(), m); break;
  case 2: if constexpr (MR > 2) block(std::integral_constant<int, 2>(), m); break;
  case 1: if constexpr (MR > 1) block(std::integral_constant<int, 1>(), m); break;
  default: break;
  }
}

} // namespace detail
} // namespace argus_cpu

#include "argus_cpu_mma_avx2_packed.h" /* the packed form on AVX2 (uses BLayout, for_row_blocks) */

namespace argus_cpu {
namespace detail {

#if defined(__AVX512F__)
constexpr int64_t kMR = 8; /* rows of acc per register block */

inline __mmask16 lane_mask(int64_t n) {
  return n >= 16 ? __mmask16(0xffff) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1u);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push /* GCC 12 flags _mm512_undefined_*() in its own headers */
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// dst[c][r] = src[r][c] for a 16 x 16 block of 32-bit elements (strides in
/// elements). Four shuffle stages: 32-bit pairs, 64-bit pairs, then 128-bit
/// lanes twice; u[4i+j] lane L holds column 4L+j of rows 4i..4i+3.
inline void transpose16x16(const void *src, int64_t lds, void *dst, int64_t ldd) {
  const uint32_t *s = static_cast<const uint32_t *>(src);
  uint32_t *d = static_cast<uint32_t *>(dst);
  __m512i r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_si512(s + i * lds);
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    r[4 * i + 0] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    r[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    r[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    r[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int j = 0; j < 4; ++j) {
    const __m512i v0 = _mm512_shuffle_i32x4(r[j], r[4 + j], 0x88);
    const __m512i v1 = _mm512_shuffle_i32x4(r[j], r[4 + j], 0xdd);
    const __m512i w0 = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0x88);
    const __m512i w1 = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0xdd);
    _mm512_storeu_si512(d + (0 + j) * ldd, _mm512_shuffle_i32x4(v0, w0, 0x88));
    _mm512_storeu_si512(d + (8 + j) * ldd, _mm512_shuffle_i32x4(v0, w0, 0xdd));
    _mm512_storeu_si512(d + (4 + j) * ldd, _mm512_shuffle_i32x4(v1, w1, 0x88));
    _mm512_storeu_si512(d + (12 + j) * ldd, _mm512_shuffle_i32x4(v1, w1, 0xdd));
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// Packs rows n0 .. n0+nb of a row-major matrix of 32-bit elements (rows of
/// `cols` elements, `ld` apart) k-major into a panel of width PW:
/// panel[c][j] = m[n0 + j][c], zero for j >= nb. Full 16 x 16 blocks are
/// transposed in registers, the edges element by element.
template <int64_t PW>
inline void pack_panel32(uint32_t *panel, const uint32_t *m, int64_t ld, int64_t cols, int64_t n0,
                         int64_t nb) {
  for (int64_t j0 = 0; j0 < PW; j0 += 16) {
    const int64_t blocked = j0 + 16 <= nb ? cols / 16 * 16 : 0; /* columns done by 16 x 16 blocks */
    for (int64_t c0 = 0; c0 < blocked; c0 += 16)
      transpose16x16(m + (n0 + j0) * ld + c0, ld, panel + c0 * PW + j0, PW);
    for (int64_t c = blocked; c < cols; ++c)
      for (int64_t j = j0; j < j0 + 16; ++j) panel[c * PW + j] = j < nb ? m[(n0 + j) * ld + c] : 0u;
  }
}

/// The f32 panel of columns n0 .. n0+nb of b (zero past nb): bp[k][j] =
/// b[n0 + j][k]. NK rows are transposed 16 x 16 at a time; KN rows already
/// are panel rows.
template <BLayout L, int64_t PW, int64_t K>
inline void pack_f32_panel(float *bp, tile_ref<float> b, int64_t n0, int64_t nb) {
  if constexpr (L == BLayout::NK) {
    pack_panel32<PW>(reinterpret_cast<uint32_t *>(bp), reinterpret_cast<const uint32_t *>(b.data), b.ld, K, n0, nb);
  } else {
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j0 = 0; j0 < PW; j0 += 16)
        _mm512_store_ps(bp + k * PW + j0, _mm512_maskz_loadu_ps(lane_mask(nb - j0), b.data + k * b.ld + n0 + j0));
  }
}

/// The VNNI panel of columns n0 .. n0+nb of bf16 b (zero past nb and for
/// the missing partner of an odd K): bp[kp][j] = {b[n0+j][2kp], b[n0+j][2kp+1]}.
/// NK rows with even K are rows of 32-bit pairs: transposed 16 x 16; KN
/// rows 2kp and 2kp+1 are interleaved 16 columns at a time.
template <BLayout L, int64_t PW, int64_t K>
inline void pack_vnni_panel(uint32_t *bp, tile_ref<uint16_t> b, int64_t n0, int64_t nb) {
  constexpr int64_t KP = (K + 1) / 2;
  if constexpr (L == BLayout::NK && K % 2 == 0) {
    /* load_ref keeps the row stride of 16-bit operands even */
    pack_panel32<PW>(bp, reinterpret_cast<const uint32_t *>(b.data), b.ld / 2, KP, n0, nb);
#if defined(__AVX512BW__) && defined(__AVX512VL__)
  } else if constexpr (L == BLayout::KN) {
    for (int64_t kp = 0; kp < KP; ++kp)
      for (int64_t j0 = 0; j0 < PW; j0 += 16) {
        const __mmask16 m = lane_mask(nb - j0);
        const uint16_t *lo = b.data + 2 * kp * b.ld + n0 + j0;
        const __m512i even = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, lo));
        const __m512i odd = 2 * kp + 1 < K ? _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, lo + b.ld))
                                           : _mm512_setzero_si512();
        _mm512_store_si512(bp + kp * PW + j0, _mm512_or_si512(even, _mm512_slli_epi32(odd, 16)));
      }
#endif
  } else {
    for (int64_t j = 0; j < PW; ++j)
      for (int64_t kp = 0; kp < KP; ++kp) {
        const bool hasHigh = 2 * kp + 1 < K;
        bp[kp * PW + j] = j >= nb ? 0u
                                  : uint32_t(b_at<L>(b, n0 + j, 2 * kp)) |
                                        (hasHigh ? uint32_t(b_at<L>(b, n0 + j, 2 * kp + 1)) << 16 : 0u);
      }
  }
}

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

/// Rows of K f32 elements, `ld` apart, that a later step reads: prefetched
/// while a register block computes (none: rows 0), into L1 or only L2.
struct next_rows {
  const float *data = nullptr;
  int64_t ld = 0, rows = 0;
  bool toL2 = false;
};

/// The lines of a next_rows, walked one per call of `fetch(i)`: line i of
/// row i / linesPerRow (K elements a row). Precomputed so that the k loop
/// below reads no memory for it.
class line_fetcher {
public:
  line_fetcher(const next_rows &next, int64_t K)
      : base_(reinterpret_cast<const char *>(next.data)), ldBytes_(next.ld * 4), linesPerRow_((K + 15) / 16),
        lines_(next.rows * linesPerRow_), toL2_(next.toL2) {}
  void fetch(int64_t i) const {
    if (i >= lines_) return;
    const char *at = base_ + i / linesPerRow_ * ldBytes_ + i % linesPerRow_ * 64;
    /* asm, not _mm_prefetch: GCC 12 dropped __builtin_prefetch at these
     * computed addresses in some inlining contexts (none were emitted) */
    if (toL2_)
      __asm__ volatile("prefetcht1 %0" : : "m"(*at));
    else
      __asm__ volatile("prefetcht0 %0" : : "m"(*at));
  }

private:
  const char *base_;
  int64_t ldBytes_, linesPerRow_, lines_;
  bool toL2_;
};

/// acc[MR x (16*NV)] += a[MR x K] * panel (PW wide); columns past `nb` masked
/// off. Each pair of k steps also prefetches a line of `nextA` and one of
/// `nextB`: up to K/2 lines (8 rows) of each. `ahead` (pre-packed panels,
/// read as a stream): each step also fetches the panel row that far ahead.
template <int MR, int NV, int64_t PW>
inline void f32_block(float *c, int64_t ldc, const float *a, int64_t lda, const float *bp, int64_t K,
                      int64_t nb, next_rows nextA = {}, next_rows nextB = {}, const float *ahead = nullptr) {
  __m512 acc[MR][NV];
  load_acc<MR, NV>(acc, c, ldc, nb);
  auto step = [&](int64_t k) __attribute__((always_inline)) {
    const __m512 b0 = _mm512_load_ps(bp + k * PW);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m512 av = _mm512_set1_ps(a[r * lda + k]);
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      if constexpr (NV == 2) acc[r][1] = _mm512_fmadd_ps(av, _mm512_load_ps(bp + k * PW + 16), acc[r][1]);
    }
  };
  const line_fetcher fetchA(nextA, K), fetchB(nextB, K);
  auto fetchAhead = [&](int64_t k) __attribute__((always_inline)) {
    if (!ahead) return;
    for (int v = 0; v < NV; ++v) prefetch_line<1>(reinterpret_cast<const char *>(ahead + k * PW + 16 * v));
  };
  int64_t k = 0;
  for (; k + 2 <= K; k += 2) {
    fetchA.fetch(k / 2);
    fetchAhead(k);
    step(k);
    fetchB.fetch(k / 2);
    fetchAhead(k + 1);
    step(k + 1);
  }
  if (k < K) step(k);
  store_acc<MR, NV>(acc, c, ldc, nb);
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
      nextB = {b.data + call * kMR * b.ld + K, b.ld, std::min<int64_t>(kMR, N - call * kMR), true};
  }
}

/// All of b is packed first (NP panels), then each block of rows of a runs
/// across every panel while its rows are still in L1.
template <int64_t M, int64_t N, int64_t K, BLayout L>
inline void mma_f32_avx512(float *acc, tile_ref<float> a, tile_ref<float> b) {
  constexpr int64_t PW = N <= 16 ? 16 : 32; /* panel width: 1 or 2 zmm of columns */
  constexpr int64_t NP = (N + PW - 1) / PW;
  alignas(64) float bp[NP * K * PW];
  for (int64_t p = 0; p < NP; ++p)
    pack_f32_panel<L, PW, K>(bp + p * K * PW, b, p * PW, std::min<int64_t>(PW, N - p * PW));
  for_row_blocks<kMR>(M, [&](auto mr, int64_t m) {
    constexpr int R = decltype(mr)::value;
    for (int64_t p = 0; p < NP; ++p) {
      const int64_t n0 = p * PW, nb = std::min<int64_t>(PW, N - n0);
      next_rows nextA, nextB;
      f32_prefetch<M, N, K, L>(a, b, m, R, p, nextA, nextB);
      if (PW == 32 && nb > 16)
        f32_block<R, 2, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp + p * K * PW, K, nb, nextA, nextB);
      else
        f32_block<R, 1, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp + p * K * PW, K, nb, nextA, nextB);
    }
  });
}

/// acc[MR x 16NV] += a * panel for few rows of a (decode GEMMs, small MoE
/// experts), where the panel streams from memory: U sets of accumulators
/// each take one U-th of the steps (a step is a k, or a pair of k for bf16).
/// That hides the multiply-add latency that MR * NV chains alone expose (one
/// row: 2 chains, a quarter of the FMA rate), and splits the panel's one
/// contiguous stream into U, which keeps more misses in flight than a single
/// stream gets from the prefetchers: one row, N x K = 4096 x 14336, one
/// thread, 1.2x (bf16) and 1.25x (f32) over sets taking alternate steps.
/// (Software prefetch 3-16 KiB ahead measured no better.) step(acc set, s)
/// adds step s into a set.
template <int MR, int NV, class Step>
inline void few_rows_block(float *c, int64_t ldc, int64_t nb, int64_t steps, Step step) {
  constexpr int U = MR * NV >= 8 ? 1 : 8 / (MR * NV);
  __m512 acc[U][MR][NV];
  unroll<U>([&](auto u) {
    unroll<MR>([&](auto r) { unroll<NV>([&](auto v) { acc[u][r][v] = _mm512_setzero_ps(); }); });
  });
  const int64_t segment = steps / U;
  for (int64_t s = 0; s < segment; ++s)
    unroll<U>([&](auto u) { step(acc[u], u * segment + s); });
  for (int64_t s = U * segment; s < steps; ++s) step(acc[0], s);
  __m512 sum[MR][NV];
  load_acc<MR, NV>(sum, c, ldc, nb);
  unroll<U>([&](auto u) {
    unroll<MR>([&](auto r) { unroll<NV>([&](auto v) { sum[r][v] = _mm512_add_ps(sum[r][v], acc[u][r][v]); }); });
  });
  store_acc<MR, NV>(sum, c, ldc, nb);
}

/// f32 few_rows_block: steps of one k.
template <int MR, int NV, int64_t PW>
inline void f32_few_rows(float *c, int64_t ldc, const float *a, int64_t lda, const float *bp, int64_t K,
                         int64_t nb) {
  few_rows_block<MR, NV>(c, ldc, nb, K, [&](__m512(&acc)[MR][NV], int64_t k) __attribute__((always_inline)) {
    unroll<NV>([&](auto v) {
      const __m512 bv = _mm512_load_ps(bp + k * PW + 16 * v);
      unroll<MR>([&](auto r) { acc[r][v] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * lda + k]), bv, acc[r][v]); });
    });
  });
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
template <int64_t M, int64_t N, int64_t K>
inline void mma_f32_panels(float *acc, tile_ref<float> a, tile_ref<float> b) {
  constexpr int64_t PW = ARGUS_CPU_PANEL_ROWS, NP = (N + PW - 1) / PW;
  if constexpr (M <= 4) { /* one row block, streaming the panels: few_rows_block */
    for (int64_t p = 0; p < NP; ++p) {
      const int64_t n0 = p * PW, nb = std::min<int64_t>(PW, N - n0);
      if (nb > 16)
        f32_few_rows<int(M), 2, PW>(acc + n0, N, a.data, a.ld, b.data + p * b.ld, K, nb);
      else
        f32_few_rows<int(M), 1, PW>(acc + n0, N, a.data, a.ld, b.data + p * b.ld, K, nb);
    }
    return;
  }
  constexpr int64_t kPanelAhead = 32; /* panel rows: 4 KiB */
  for_row_blocks<kMR>(M, [&](auto mr, int64_t m) {
    constexpr int R = decltype(mr)::value;
    for (int64_t p = 0; p < NP; ++p) {
      const int64_t n0 = p * PW, nb = std::min<int64_t>(PW, N - n0);
      next_rows nextA;
      if (p == 0) nextA = {a.data + (m + R) * a.ld, a.ld, std::min<int64_t>(kMR, M - m - R)};
      const float *bp = b.data + p * b.ld, *ahead = M <= 32 && m == 0 ? bp + kPanelAhead * PW : nullptr;
      if (nb > 16)
        f32_block<R, 2, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp, K, nb, nextA, {}, ahead);
      else
        f32_block<R, 1, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp, K, nb, nextA, {}, ahead);
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

/// The 16 lane sums of v[0..15], in order, as one vector: a transposing
/// reduction tree (adds of unpacked pairs, then of 128-bit lane shuffles),
/// about a third of the instructions of 16 separate horizontal sums.
inline __m512 sum_lanes16(const __m512 (&v)[16]) {
  __m512 x[8], y[4];
  for (int i = 0; i < 8; ++i) /* per 128-bit lane: (v2i, v2i+1, v2i, v2i+1) pair sums */
    x[i] = _mm512_add_ps(_mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]), _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]));
  for (int i = 0; i < 4; ++i) { /* per 128-bit lane: one partial sum of each of v4i .. v4i+3 */
    const __m512d a = _mm512_castps_pd(x[2 * i]), b = _mm512_castps_pd(x[2 * i + 1]);
    y[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(a, b)), _mm512_castpd_ps(_mm512_unpackhi_pd(a, b)));
  }
  /* across the four 128-bit lanes: lanes (0, 2) + (1, 3), twice */
  const __m512 w01 = _mm512_add_ps(_mm512_shuffle_f32x4(y[0], y[1], 0x88), _mm512_shuffle_f32x4(y[0], y[1], 0xdd));
  const __m512 w23 = _mm512_add_ps(_mm512_shuffle_f32x4(y[2], y[3], 0x88), _mm512_shuffle_f32x4(y[2], y[3], 0xdd));
  return _mm512_add_ps(_mm512_shuffle_f32x4(w01, w23, 0x88), _mm512_shuffle_f32x4(w01, w23, 0xdd));
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

/// acc (MR x NR block of c) += a[MR x K] . b[NR x K]^T, vectors along k;
/// the tail step loads only the k that remain (the rest read as zero). Long
/// rows of b (weights streamed from memory: decode GEMMs, MoE experts) are
/// prefetched a few lines ahead: NR rows read side by side are NR streams
/// 4 KiB apart, more than the hardware prefetchers keep up with (MoE gate/up
/// at 1 row, one thread, weights from DRAM: 9.4 -> 11.5 GB/s).
template <int MR, int NR, class Dot>
inline void dot_block(float *c, int64_t ldc, const typename Dot::storage *a, int64_t lda,
                      const typename Dot::storage *b, int64_t ldb, int64_t K) {
  constexpr int64_t KV = Dot::KV;
  constexpr int64_t kAhead = 4 * 64 / int64_t(sizeof(*b)); /* elements in 4 cache lines */
  const bool prefetch = K >= 4 * kAhead;
  __m512 acc[MR][NR];
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NR; ++j) acc[r][j] = _mm512_setzero_ps();
  auto step = [&](int64_t k, int64_t n) {
    typename Dot::vec av[MR];
#pragma GCC unroll 4
    for (int r = 0; r < MR; ++r) av[r] = Dot::load(a + r * lda + k, n);
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) {
      if (prefetch) __builtin_prefetch(b + j * ldb + k + kAhead, 0, 3);
      const typename Dot::vec bv = Dot::load(b + j * ldb + k, n);
#pragma GCC unroll 4
      for (int r = 0; r < MR; ++r) acc[r][j] = Dot::fma(acc[r][j], av[r], bv);
    }
  };
  int64_t k = 0;
  for (; k + KV <= K; k += KV) step(k, KV);
  if (k < K) step(k, K - k);
  if constexpr (MR * NR == 16) { /* one tree for the block: lane r * NR + j is acc[r][j] */
    add_block_sums<MR, NR>(c, ldc, sum_lanes16(reinterpret_cast<const __m512(&)[16]>(acc)));
  } else {
    for (int r = 0; r < MR; ++r)
      for (int j = 0; j < NR; ++j) c[r * ldc + j] += _mm512_reduce_add_ps(acc[r][j]);
  }
}

/// acc (M x N) += a * b^T for short tiles (inner_product_fits): blocks of up
/// to 4 rows of a (mma_dot_blocks) by NR columns of b.
template <int64_t M, int64_t N, int64_t K, class Dot>
inline void mma_dot(float *acc, tile_ref<typename Dot::storage> a, tile_ref<typename Dot::storage> b) {
  using S = typename Dot::storage;
  constexpr int MR = M < 4 ? int(M) : 4;            /* rows per block */
  constexpr int NR = MR == 1 ? 16 : MR == 2 ? 8 : 4; /* 16 accumulators (one reduction tree), else 12 */
  mma_dot_blocks<M, N, K, MR, NR>(acc, a, b,
                                  [](auto mr, auto nr, float *c, int64_t ldc, const S *ap, int64_t lda, const S *bp,
                                     int64_t ldb, int64_t k) {
                                    dot_block<decltype(mr)::value, decltype(nr)::value, Dot>(c, ldc, ap, lda, bp, ldb, k);
                                  });
}
#endif // __AVX512F__

#if defined(__AVX512F__) && defined(__AVX512BF16__)
/// acc[MR x (16*NV)] += a[MR x K] (bf16) * VNNI panel (pairs of k, PW wide).
template <int MR, int NV, int64_t PW>
inline void bf16_block(float *c, int64_t ldc, const uint16_t *a, int64_t lda, const uint32_t *bp, int64_t K,
                       int64_t nb) {
  __m512 acc[MR][NV];
  load_acc<MR, NV>(acc, c, ldc, nb);
  auto step = [&](const uint32_t *bk, auto pairOf) {
    const __m512bh b0 = (__m512bh)_mm512_load_si512(bk);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m512bh av = (__m512bh)_mm512_set1_epi32(int(pairOf(r)));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], av, b0);
      if constexpr (NV == 2) acc[r][1] = _mm512_dpbf16_ps(acc[r][1], av, (__m512bh)_mm512_load_si512(bk + 16));
    }
  };
  const int64_t KP = K / 2;
  for (int64_t kp = 0; kp < KP; ++kp)
    step(bp + kp * PW, [&](int r) {
      uint32_t pair;
      std::memcpy(&pair, a + r * lda + 2 * kp, sizeof pair);
      return pair;
    });
  if (K & 1) /* odd K: the last k pairs with a zero */
    step(bp + KP * PW, [&](int r) { return uint32_t(a[r * lda + K - 1]); });
  store_acc<MR, NV>(acc, c, ldc, nb);
}

template <int64_t M, int64_t N, int64_t K, BLayout L>
inline void mma_bf16_avx512(float *acc, tile_ref<uint16_t> a, tile_ref<uint16_t> b) {
  constexpr int64_t PW = N <= 16 ? 16 : 32;
  constexpr int64_t KP = (K + 1) / 2;
  alignas(64) uint32_t bp[KP * PW];
  for (int64_t n0 = 0; n0 < N; n0 += PW) {
    const int64_t nb = std::min<int64_t>(PW, N - n0);
    pack_vnni_panel<L, PW, K>(bp, b, n0, nb);
    for_row_blocks<kMR>(M, [&](auto mr, int64_t m) {
      if (PW == 32 && nb > 16)
        bf16_block<decltype(mr)::value, 2, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp, K, nb);
      else
        bf16_block<decltype(mr)::value, 1, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp, K, nb);
    });
  }
}

/// acc (M x N) += a * b^T, bf16, b a panel operand: bf16_block on the VNNI
/// panels where they lie; up to 4 rows few_rows_block.
template <int MR, int NV, int64_t PW, int64_t K>
inline void bf16_few_rows(float *c, int64_t ldc, const uint16_t *a, int64_t lda, const uint32_t *bp, int64_t nb) {
  few_rows_block<MR, NV>(c, ldc, nb, (K + 1) / 2,
                         [&](__m512(&acc)[MR][NV], int64_t kp) __attribute__((always_inline)) {
                           unroll<NV>([&](auto v) {
                             const __m512bh bv = (__m512bh)_mm512_load_si512(bp + kp * PW + 16 * v);
                             unroll<MR>([&](auto r) {
                               uint32_t pair = a[r * lda + 2 * kp]; /* odd K: the last k pairs with a zero */
                               if (2 * kp + 1 < K) std::memcpy(&pair, a + r * lda + 2 * kp, sizeof pair);
                               acc[r][v] = _mm512_dpbf16_ps(acc[r][v], (__m512bh)_mm512_set1_epi32(int(pair)), bv);
                             });
                           });
                         });
}

template <int64_t M, int64_t N, int64_t K>
inline void mma_bf16_vnni_panels(float *acc, tile_ref<uint16_t> a, tile_ref<uint16_t> b) {
  constexpr int64_t PW = ARGUS_CPU_PANEL_ROWS;
  for (int64_t n0 = 0; n0 < N; n0 += PW) {
    const int64_t nb = std::min<int64_t>(PW, N - n0);
    const uint32_t *bp = reinterpret_cast<const uint32_t *>(b.data + n0 / PW * b.ld);
    if constexpr (M <= 4) { /* one row block, streaming the panel */
      if (nb > 16)
        bf16_few_rows<int(M), 2, PW, K>(acc + n0, N, a.data, a.ld, bp, nb);
      else
        bf16_few_rows<int(M), 1, PW, K>(acc + n0, N, a.data, a.ld, bp, nb);
      continue;
    }
    for_row_blocks<kMR>(M, [&](auto mr, int64_t m) {
      if (nb > 16)
        bf16_block<decltype(mr)::value, 2, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp, K, nb);
      else
        bf16_block<decltype(mr)::value, 1, PW>(acc + m * N + n0, N, a.data + m * a.ld, a.ld, bp, K, nb);
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

/// c[MR x 32*NV] += a[MR x K] * v[K x 32*NV], columns past `nb` neither read
/// nor written.
template <int MR, int NV, int64_t K>
inline void kn_rows_block(float *c, int64_t ldc, const uint16_t *a, int64_t lda, const uint16_t *v, int64_t ldv,
                          int64_t nb) {
  __m512 acc[MR][NV][2];
  unroll<MR>([&](auto r) {
    unroll<NV>([&](auto j) { acc[r][j][0] = acc[r][j][1] = _mm512_setzero_ps(); });
  });
  /* (always_inline: GCC 12 outlines a step called twice, and the accumulators with it) */
  auto step = [&](int64_t kp) __attribute__((always_inline)) {
    const uint16_t *row = v + 2 * kp * ldv;
    const bool hasOdd = 2 * kp + 1 < K; /* odd K: the last k pairs with a zero */
    unroll<NV>([&](auto j) {
      __m512bh lo, hi;
      kn_pairs(row + 32 * j, ldv, hasOdd, nb - 32 * j, lo, hi);
      unroll<MR>([&](auto r) {
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
  const __m512i first = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i second = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  unroll<MR>([&](auto r) {
    unroll<NV>([&](auto j) {
      float *out = c + r * ldc + 32 * j;
      const __mmask16 m0 = lane_mask(nb - 32 * j), m1 = lane_mask(nb - 32 * j - 16);
      const __m512 x0 = _mm512_permutex2var_ps(acc[r][j][0], first, acc[r][j][1]);
      const __m512 x1 = _mm512_permutex2var_ps(acc[r][j][0], second, acc[r][j][1]);
      _mm512_mask_storeu_ps(out, m0, _mm512_add_ps(_mm512_maskz_loadu_ps(m0, out), x0));
      _mm512_mask_storeu_ps(out + 16, m1, _mm512_add_ps(_mm512_maskz_loadu_ps(m1, out + 16), x1));
    });
  });
}

/// Whether a bf16 product with b laid out K x N takes the rows form.
template <int64_t M> constexpr bool kn_rows_fit() { return M <= 8; }

/// acc (M x N) += a (M x K) * v (K x N), bf16, M <= 8: 32-column chunks, as
/// many per block as keep 16 accumulators.
template <int64_t M, int64_t N, int64_t K>
inline void mma_kn_rows(float *acc, tile_ref<uint16_t> a, tile_ref<uint16_t> v) {
  static_assert(kn_rows_fit<M>(), "the rows form holds every row of a in one register block");
  constexpr int MR = int(M);
  constexpr int NV = MR == 1 ? 8 : MR == 2 ? 4 : MR <= 4 ? 2 : 1; /* 2 * MR * NV <= 16 accumulators */
  constexpr int64_t NB = 32 * NV;
  for (int64_t n0 = 0; n0 < N; n0 += NB)
    kn_rows_block<MR, NV, K>(acc + n0, N, a.data, a.ld, v.data + n0, v.ld, N - n0);
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
#endif
#endif // __AVX512BF16__

#if defined(__AVX512F__) && defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && \
    __GNUC__ >= 11
#define ARGUS_CPU_HAVE_AMX 1
/*  bf16 mma on AMX tiles (Sapphire Rapids and later): C tiles of 16 x 16
 *  f32 accumulate A tiles of 16 rows x 32 k and B tiles of 16 k-pairs x 16
 *  columns, which is the VNNI panel layout pack_panel32 already makes. The
 *  library is still one cpu-avx512 binary: AMX is used only where the CPU
 *  has it, the kernel allows the process to use it (arch_prctl), and
 *  ARGUS_CPU_AMX is not 0. */
struct amx_tile_config {
  uint8_t palette = 1, start_row = 0, reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

/// CPUID says AMX-TILE and AMX-BF16, the OS enabled tile state (XCR0 bits
/// 17, 18), and Linux granted this process the tile data.
inline bool amx_request() {
  const char *env = std::getenv("ARGUS_CPU_AMX");
  if (env && std::strcmp(env, "0") == 0) return false;
  unsigned eax, ebx, ecx, edx;
  __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(7), "c"(0));
  if (!(edx & (1u << 24)) || !(edx & (1u << 22))) return false;
  __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(1), "c"(0));
  if (!(ecx & (1u << 27))) return false; /* OSXSAVE */
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & (3u << 17)) != (3u << 17)) return false;
  const long ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18;
  return syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0;
}

inline bool amx_usable() {
  static const bool usable = amx_request();
  return usable;
}

/// Loads the tile configuration of mma_bf16_amx: 8 tiles of 16 rows x 64 bytes.
__attribute__((target("amx-tile"))) inline void amx_configure_square() {
  alignas(64) amx_tile_config cfg;
  for (int t = 0; t < 8; ++t) cfg.rows[t] = 16, cfg.colsb[t] = 64;
  // GCC does not see ldtilecfg read the struct and may drop the stores above.
  __asm__ volatile("" : : "r"(&cfg) : "memory");
  _tile_loadconfig(&cfg);
}

/// acc[:, n0 : n0+32] += a * panel (one 32-column VNNI panel, 16-pair rows
/// of 32 dwords): 2 x 2 (or 1 x 2) C tiles stay in tile registers over the
/// whole K loop. The configuration of amx_configure_square is loaded.
template <int64_t M, int64_t N, int64_t K>
__attribute__((target("amx-tile,amx-bf16"))) inline void amx_panel(float *acc, tile_ref<uint16_t> a,
                                                                   const uint32_t *bp, int64_t n0) {
  constexpr int64_t PW = 32, cStride = N * 4, bStride = PW * 4;
  const int64_t aStride = a.ld * 2;
  for (int64_t m0 = 0; m0 < M; m0 += 32) {
    float *c = acc + m0 * N + n0;
    const uint16_t *am = a.data + m0 * a.ld;
    if (m0 + 32 <= M) {
      _tile_loadd(0, c, cStride);
      _tile_loadd(1, c + 16, cStride);
      _tile_loadd(2, c + 16 * N, cStride);
      _tile_loadd(3, c + 16 * N + 16, cStride);
      for (int64_t k0 = 0; k0 < K; k0 += 32) {
        _tile_loadd(4, am + k0, aStride);
        _tile_loadd(5, am + 16 * a.ld + k0, aStride);
        _tile_loadd(6, bp + (k0 / 2) * PW, bStride);
        _tile_loadd(7, bp + (k0 / 2) * PW + 16, bStride);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
      }
      _tile_stored(0, c, cStride);
      _tile_stored(1, c + 16, cStride);
      _tile_stored(2, c + 16 * N, cStride);
      _tile_stored(3, c + 16 * N + 16, cStride);
    } else { /* the last 16 rows */
      _tile_loadd(0, c, cStride);
      _tile_loadd(1, c + 16, cStride);
      for (int64_t k0 = 0; k0 < K; k0 += 32) {
        _tile_loadd(4, am + k0, aStride);
        _tile_loadd(6, bp + (k0 / 2) * PW, bStride);
        _tile_loadd(7, bp + (k0 / 2) * PW + 16, bStride);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
      }
      _tile_stored(0, c, cStride);
      _tile_stored(1, c + 16, cStride);
    }
  }
}

/// Whether a bf16 product takes the AMX tile form.
template <int64_t M, int64_t N, int64_t K> constexpr bool amx_tiles_fit() {
  return M % 16 == 0 && N % 32 == 0 && K % 32 == 0;
}

/// acc (M x N) += a (M x K) * b (N x K)^T for M % 16 == 0, N % 32 == 0,
/// K % 32 == 0: each 32-column panel of b packed, then amx_panel.
template <int64_t M, int64_t N, int64_t K, BLayout L>
__attribute__((target("amx-tile,amx-bf16"))) void mma_bf16_amx(float *acc, tile_ref<uint16_t> a, tile_ref<uint16_t> b) {
  static_assert(amx_tiles_fit<M, N, K>(), "AMX tiles need 16-row, 32-column, 32-k multiples");
  constexpr int64_t PW = 32;
  alignas(64) uint32_t bp[K / 2 * PW];
  amx_configure_square();
  for (int64_t n0 = 0; n0 < N; n0 += PW) {
    pack_vnni_panel<L, PW, K>(bp, b, n0, PW);
    amx_panel<M, N, K>(acc, a, bp, n0);
  }
  _tile_release();
}

/// The same with b a panel operand (pre-packed weights): no packing at all.
template <int64_t M, int64_t N, int64_t K>
__attribute__((target("amx-tile,amx-bf16"))) void mma_bf16_amx_panels(float *acc, tile_ref<uint16_t> a,
                                                                       tile_ref<uint16_t> b) {
  static_assert(amx_tiles_fit<M, N, K>(), "AMX tiles need 16-row, 32-column, 32-k multiples");
  amx_configure_square();
  for (int64_t n0 = 0; n0 < N; n0 += 32)
    amx_panel<M, N, K>(acc, a, reinterpret_cast<const uint32_t *>(b.data + n0 / 32 * b.ld), n0);
  _tile_release();
}

/// Whether a bf16 product with b laid out N x K takes the few-rows AMX form.
/// Long k steps only: the tile configuration and the packing of a are paid
/// per call (decode attention's 4 x 16 x 128 scores ran slower this way).
template <int64_t M, int64_t N, int64_t K> constexpr bool amx_few_rows_fit() {
  return M >= 2 && M <= 16 && N % 16 == 0 && K % 32 == 0 && K >= 256;
}

/// acc (M x N) += a (M x K) * b (N x K)^T for few rows of a (2 to 16: decode
/// GEMMs, small MoE experts) on AMX, computed transposed: per 16 rows of b,
/// C^T (16 x M) = b (16 x K) * a^T. The long operand b (the weights) is then
/// an A tile, read by tileloadd where it lies, and only a is packed, once per
/// call, into VNNI pairs of its transpose: ap[kc][kp][m] = {a[m][32kc + 2kp],
/// a[m][32kc + 2kp + 1]}. (vdpbf16ps runs at half the FMA rate on Sapphire
/// Rapids: a 4-row inner-product form computes 8 bytes of weights a cycle,
/// less than memory delivers.)
template <int64_t M, int64_t N, int64_t K>
__attribute__((target("amx-tile,amx-bf16"))) void mma_bf16_amx_few_rows(float *acc, tile_ref<uint16_t> a,
                                                                        tile_ref<uint16_t> b) {
  static_assert(amx_few_rows_fit<M, N, K>(), "2 to 16 rows of a, N a multiple of 16, K of 32");
  constexpr int64_t KC = K / 32;
  alignas(64) uint32_t ap[KC][16][16]; /* rows of 64 bytes, the first M dwords used */
  for (int64_t m = 0; m < M; ++m)
    for (int64_t kc = 0; kc < KC; ++kc) {
      alignas(64) uint32_t pairs[16];
      std::memcpy(pairs, a.data + m * a.ld + 32 * kc, sizeof pairs);
      for (int64_t kp = 0; kp < 16; ++kp) ap[kc][kp][m] = pairs[kp];
    }
  alignas(64) float ct[16][16];
  alignas(64) amx_tile_config cfg;
  cfg.rows[0] = 16, cfg.colsb[0] = M * 4; /* C^T */
  cfg.rows[1] = 16, cfg.colsb[1] = 64;    /* 16 rows of b, 32 k */
  cfg.rows[2] = 16, cfg.colsb[2] = M * 4; /* 16 pairs of k of a^T */
  __asm__ volatile("" : : "r"(&cfg) : "memory");
  _tile_loadconfig(&cfg);
  const int64_t bStride = b.ld * 2;
  for (int64_t n0 = 0; n0 < N; n0 += 16) {
    const uint16_t *bn = b.data + n0 * b.ld;
    _tile_zero(0);
    for (int64_t kc = 0; kc < KC; ++kc) {
      _tile_loadd(1, bn + 32 * kc, bStride);
      _tile_loadd(2, &ap[kc][0][0], 64);
      _tile_dpbf16ps(0, 1, 2);
    }
    _tile_stored(0, &ct[0][0], 64);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t j = 0; j < 16; ++j) acc[m * N + n0 + j] += ct[j][m];
  }
  _tile_release();
}
#endif // ARGUS_CPU_HAVE_AMX

/// An mma operand as a window: a dense tile array (rows `dense` elements
/// apart) or a tile_ref from load_ref (rows `ld` apart, maybe in the tensor).
template <class S> inline tile_ref<S> operand_ref(const S *tile, int64_t dense) { return {tile, dense}; }
template <class S> inline tile_ref<S> operand_ref(tile_ref<S> window, int64_t) { return window; }

template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, class OperandA, class OperandB>
inline void mma_any(float *acc, OperandA aOperand, OperandB bOperand);

/// acc (M x N) += a * b^T with b a panel operand (argus_cpu_panels.h): in
/// place where the micro-kernels compute from panels (mma_reads_panels),
/// else gathered into plain rows first.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L>
inline void mma_panels(float *acc, tile_ref<typename DT::storage> a, tile_ref<typename DT::storage> b) {
  using S = typename DT::storage;
  if constexpr (L == BLayout::NK && mma_reads_panels<DT>()) {
#if defined(__AVX512F__)
    if constexpr (std::is_same<DT, f32>::value) {
      mma_f32_panels<M, N, K>(acc, a, b);
      return;
    }
#endif
#if defined(__AVX512F__) && defined(__AVX512BF16__)
    if constexpr (std::is_same<DT, bf16>::value) {
#if defined(ARGUS_CPU_HAVE_AMX)
      if constexpr (amx_tiles_fit<M, N, K>()) {
        if (amx_usable()) {
          mma_bf16_amx_panels<M, N, K>(acc, a, b);
          return;
        }
      }
#endif
      mma_bf16_vnni_panels<M, N, K>(acc, a, b);
      return;
    }
#endif
  }
  constexpr int64_t ROWS = L == BLayout::NK ? N : K, COLS = L == BLayout::NK ? K : N;
  alignas(64) S dense[ROWS * COLS];
  unpanel<S, ROWS, COLS>(dense, b);
  mma_any<DT, M, N, K, L>(acc, a, dense);
}

/// acc (M x N) += a (M x K) * b^T, b laid out as L says; picks the
/// micro-kernel for the element type, the tile shape and the CPU.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, class OperandA, class OperandB>
inline void mma_any(float *acc, OperandA aOperand, OperandB bOperand) {
  const tile_ref<typename DT::storage> a = operand_ref(aOperand, K);
  const tile_ref<typename DT::storage> b = operand_ref(bOperand, L == BLayout::NK ? K : N);
  if constexpr (!std::is_pointer<OperandA>::value) { /* packed weights as the left operand: plain rows first */
    if (a.panels) {
      alignas(64) typename DT::storage dense[M * K];
      unpanel<typename DT::storage, M, K>(dense, a);
      mma_any<DT, M, N, K, L>(acc, dense, b);
      return;
    }
  }
  if constexpr (!std::is_pointer<OperandB>::value) { /* a window of a tensor: maybe of packed weights */
    if (b.panels) {
      mma_panels<DT, M, N, K, L>(acc, a, b);
      return;
    }
  }
#if defined(__AVX512F__)
  constexpr bool innerProduct = L == BLayout::NK && inner_product_fits<DT, M, K>();
  if constexpr (std::is_same<DT, f32>::value) {
    if constexpr (innerProduct)
      mma_dot<M, N, K, f32_dot>(acc, a, b);
    else
      mma_f32_avx512<M, N, K, L>(acc, a, b);
    return;
  }
#if defined(ARGUS_CPU_HAVE_AMX)
  if constexpr (std::is_same<DT, bf16>::value && amx_tiles_fit<M, N, K>()) {
    if (amx_usable()) {
      mma_bf16_amx<M, N, K, L>(acc, a, b);
      return;
    }
  } else if constexpr (std::is_same<DT, bf16>::value && L == BLayout::NK && amx_few_rows_fit<M, N, K>()) {
    if (amx_usable()) {
      mma_bf16_amx_few_rows<M, N, K>(acc, a, b);
      return;
    }
  }
#endif
#if defined(__AVX512BF16__)
  if constexpr (std::is_same<DT, bf16>::value) {
#if defined(__AVX512BW__)
    if constexpr (innerProduct) {
      mma_dot<M, N, K, bf16_dot>(acc, a, b);
      return;
    }
    if constexpr (L == BLayout::KN && kn_rows_fit<M>()) {
      mma_kn_rows<M, N, K>(acc, a, b);
      return;
    }
#endif
    mma_bf16_avx512<M, N, K, L>(acc, a, b);
    return;
  }
#endif
  if constexpr (std::is_same<DT, bf16>::value || std::is_same<DT, f16>::value) {
    /* no native 16-bit dot product: widen both operands (exactly) to f32 */
    alignas(64) float af[M * K];
    alignas(64) float bf[N * K];
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k) af[m * K + k] = DT::load(a.data[m * a.ld + k]);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) bf[n * K + k] = DT::load(b_at<L>(b, n, k));
    mma_f32_avx512<M, N, K, BLayout::NK>(acc, {af, K}, {bf, K});
    return;
  }
#elif defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same<DT, f32>::value || std::is_same<DT, bf16>::value || std::is_same<DT, f16>::value) {
    if constexpr (L == BLayout::NK && inner_product_fits_avx2<M, K>())
      mma_dot8<M, N, K, typename avx2_dot<DT>::type>(acc, a, b);
    else if constexpr (L == BLayout::KN && M <= 4)
      mma_kn_rows8<M, N, K, typename avx2_dot<DT>::type>(acc, a, b);
    else
      mma_packed8<DT, M, N, K, L>(acc, a, b);
    return;
  }
#endif
  mma_portable<DT, M, N, K, L>(acc, a, b);
}

} // namespace detail

/// acc (M x N, f32) += a (M x K) * b (N x K)^T, in place. Operands are tile
/// arrays or tile_refs.
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA, class OperandB>
inline void mma(float *acc, OperandA a, OperandB b) {
  detail::mma_any<DT, M, N, K, detail::BLayout::NK>(acc, a, b);
}

/// acc (M x N, f32) += a (M x K) * v (K x N): mma(a, transpose(v)) without
/// materialising the transpose.
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA, class OperandV>
inline void mma_kn(float *acc, OperandA a, OperandV v) {
  detail::mma_any<DT, M, N, K, detail::BLayout::KN>(acc, a, v);
}

} // namespace argus_cpu

#endif // ARGUS_CPU_MMA_H
