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
/// (below) rather than packed panels: up to 4 rows, and when K is long f32
/// up to 16 rows (32 rows run packed 1.15-1.2x faster: cpuGemmKStep in
/// GemmPlan.cpp) and bf16 up to 32. Packing a panel of b costs a 16 x 16
/// transpose (shuffle bound) per 256 elements, which short tiles do not
/// amortise; the inner-product form instead pays a reduction per 16 sums,
/// which short k steps do not amortise (f32 attention, K = head_dim 128:
/// 3-6% slower). bf16 packs pairs of k, 32 to a vector, so its panels cost
/// twice f32's per flop (Zen 4, two threads, plain weights, N x K = 4096 x
/// 4096 from memory, against vdpbf16ps panels: 8 rows 1.9x and 16 rows 1.6x
/// in 512-long k-steps, 32 rows 1.25x in 256-long ones). Where AMX runs,
/// it takes bf16 tiles of 2-32 rows first. Of these tiles, 9-16 rows with
/// whole lines of k take the lanes form (lanes_fit, argus_cpu_mma_lanes.h).
template <class DT, int64_t M, int64_t K> constexpr bool inner_product_fits() {
  constexpr int64_t longKRows = std::is_same<DT, f32>::value ? 16 : std::is_same<DT, bf16>::value ? 32 : 4;
  return M <= 4 || (M <= longKRows && K >= 256);
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
#include "argus_cpu_mma_avx2_lanes.h"  /* tiles of 9-16 rows on AVX2 */
#include "argus_cpu_pack_avx512.h"  /* b packed into panels per call */
#include "argus_cpu_pack_reuse.h"   /* or kept for the launch */
#include "argus_cpu_mma_avx512.h"  /* AVX-512 register blocks */
#include "argus_cpu_mma_lanes.h"   /* tiles of 9-16 rows with a's rows in lanes */
#include "argus_cpu_mma_panels.h"  /* the same on pre-packed panels */
#include "argus_cpu_mma_amx.h"     /* bf16 on AMX tiles */

namespace argus_cpu {
namespace detail {

/// An mma operand as a window: a dense tile array (rows `dense` elements
/// apart) or a tile_ref from load_ref (rows `ld` apart, maybe in the tensor).
template <class S> inline tile_ref<S> operand_ref(const S *tile, int64_t dense) { return {tile, dense}; }
template <class S> inline tile_ref<S> operand_ref(tile_ref<S> window, int64_t) { return window; }

template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, bool RaggedRows = false, class OperandA,
          class OperandB, class Shadow = no_shadow, class Scale = no_scale>
inline void mma_dispatch(float *acc, OperandA aOperand, OperandB bOperand, Shadow shadow = {}, Scale scale = {});

/// Whether mma_dispatch's form for these tiles takes a row_scale into its
/// epilogue: the bf16 rows forms and the AMX pairs form (whatever the CPU
/// picks at run time).
template <class DT, int64_t M, BLayout L> constexpr bool takes_row_scale() {
#if defined(__AVX512F__) && defined(__AVX512BF16__) && defined(__AVX512BW__)
  return std::is_same<DT, bf16>::value && L == BLayout::KN && kn_rows_fit<M>();
#else
  return false;
#endif
}

/// A window with ragged rows as a dense ROWS x COLS tile in its own
/// scratch, the rows past its in-bounds ones zero.
template <class S, int64_t ROWS, int64_t COLS> inline tile_ref<S> densify_rows(tile_ref<S> w) {
  for (int64_t r = 0; r < ROWS; ++r) {
    if (r < w.rows)
      std::memmove(w.scratch + r * COLS, w.data + r * w.ld, sizeof(S) * size_t(COLS));
    else
      std::memset(static_cast<void *>(w.scratch + r * COLS), 0, sizeof(S) * size_t(COLS));
  }
  return {w.scratch, COLS};
}

/// The a operand for a micro-kernel that reads all M rows: with ragged
/// rows (RaggedRows), made dense and zero-padded first.
template <bool RaggedRows, int64_t M, int64_t K, class S> inline tile_ref<S> all_rows(tile_ref<S> a) {
  if constexpr (RaggedRows)
    return densify_rows<S, M, K>(a);
  else
    return a;
}

/// acc (M x N) += a * b^T with b a panel operand (argus_cpu_panels.h): in
/// place where the micro-kernels compute from panels (mma_reads_panels),
/// else gathered into plain rows first. RaggedRows: as mma_dispatch. b may
/// have ragged rows (panel_window): the AVX-512 forms compute the columns in
/// bounds (panel_columns), the others read it whole (whole_panels).
/// Out of line: every kernel that reads a tile with load_ref compiles this
/// branch, attention's too, whose caches are never packed; inlined, changes
/// to the panel forms moved the decode kernel's register allocation and cost
/// it 1.5-2% (session 48; a call per tile product is nothing to the packed
/// GEMMs that take it: bf16 packed 1, 4, 16 rows even).
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, bool RaggedRows = false>
__attribute__((noinline)) void mma_panels(float *acc, tile_ref<typename DT::storage> a, tile_ref<typename DT::storage> b) {
  using S = typename DT::storage;
  constexpr bool rowBlocks = RaggedRows && M > 4; /* few-row forms read all M rows */
  if constexpr (L == BLayout::NK && mma_reads_panels<DT>()) {
#if defined(__AVX512F__)
    if constexpr (std::is_same<DT, f32>::value) {
      mma_f32_panels<M, N, K, rowBlocks>(acc, all_rows<RaggedRows && !rowBlocks, M, K>(a), b);
      return;
    }
#endif
#if defined(__AVX512F__) && defined(__AVX512BF16__)
    if constexpr (std::is_same<DT, bf16>::value) {
#if defined(ARGUS_CPU_HAVE_AMX)
      if constexpr (amx_tiles_fit<M, N, K>()) {
        if (amx_usable()) {
          mma_bf16_amx_panels<M, N, K, RaggedRows>(acc, a, whole_panels<S, N, K>(b));
          return;
        }
      } else if constexpr (amx_few_rows_panels_fit<M, N, K>()) {
        if (amx_usable()) {
          mma_bf16_amx_few_rows_panels<M, N, K>(acc, all_rows<RaggedRows, M, K>(a), whole_panels<S, N, K>(b));
          return;
        }
      }
#endif
      mma_bf16_vnni_panels<M, N, K, rowBlocks>(acc, all_rows<RaggedRows && !rowBlocks, M, K>(a), b);
      return;
    }
#endif
  }
  constexpr int64_t ROWS = L == BLayout::NK ? N : K, COLS = L == BLayout::NK ? K : N;
  alignas(64) S dense[ROWS * COLS];
  unpanel<S, ROWS, COLS>(dense, whole_panels<S, ROWS, COLS>(b));
  mma_dispatch<DT, M, N, K, L, RaggedRows>(acc, a, dense);
}

/// A ragged window of ROWS x COLS as a dense tile in its own scratch, the
/// columns past its in-bounds ones zero (the tail copy there is not needed
/// any more: the in-bounds columns are read from the window).
template <class S, int64_t ROWS, int64_t COLS> inline tile_ref<S> densify(tile_ref<S> w) {
  for (int64_t r = 0; r < ROWS; ++r) {
    std::memmove(w.scratch + r * COLS, w.data + r * w.ld, sizeof(S) * size_t(w.cols));
    std::memset(static_cast<void *>(w.scratch + r * COLS + w.cols), 0, sizeof(S) * size_t(COLS - w.cols));
  }
  return {w.scratch, COLS};
}

template <class DT, int64_t M, int64_t N, int64_t K, BLayout L>
void mma_ragged(float *acc, tile_ref<typename DT::storage> a, tile_ref<typename DT::storage> b);

/// acc (M x N) += a * b^T with a or b a window with ragged rows (load_ref:
/// the last row tile of M, or of N for b). The register-block micro-kernels
/// (f32 and bf16 on AVX-512, on plain or packed weights; AMX in 16-row
/// groups, the last partial one copied) and the inner-product form compute
/// only the rows of a in bounds, in place (an MoE expert of 33 rows in a
/// 64-row tile runs 40 rows, not 64); the accumulator's rows past them are
/// left as they are, where zero rows of a would have added 0 * b. So do the
/// panel forms for b's rows in a window of panels (panel_window: the columns
/// of the product, leaving the accumulator's columns past them). Every other
/// case (b's rows: columns of the product or k; few-row forms; a ragged last
/// k-step) makes the ragged operands dense and zero-padded in their scratch
/// first, which is what load_ref did before. Out of line and cold, like
/// mma_ragged.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L>
__attribute__((noinline, cold)) void mma_ragged_rows(float *acc, tile_ref<typename DT::storage> a,
                                                     tile_ref<typename DT::storage> b) {
  using S = typename DT::storage;
  constexpr int64_t ROWS = L == BLayout::NK ? N : K, COLS = L == BLayout::NK ? K : N;
  a = whole_panels<S, M, K>(a); /* packed weights as a are read whole anyway */
  if (b.rows >= 0 && !b.panels) b = densify_rows<S, ROWS, COLS>(b); /* panels: mma_panels computes b.rows */
  if constexpr (K >= kRaggedColumns || (L == BLayout::KN && N >= kRaggedColumns)) {
    if (a.cols >= 0 || b.cols >= 0) {
      mma_ragged<DT, M, N, K, L>(acc, a.rows >= 0 ? densify_rows<S, M, K>(a) : a, b);
      return;
    }
  }
  if (a.rows >= 0)
    mma_dispatch<DT, M, N, K, L, true>(acc, a, b);
  else
    mma_dispatch<DT, M, N, K, L>(acc, a, b);
}

/// acc (M x N) += a * b^T with a or b a ragged window (load_ref: a tile of
/// the last k-step whose columns reach past K). With both plain and laid out
/// N x K, the in-bounds k are computed in place, ragged_chunk(K) at a time,
/// and the last partial chunk from the windows' zero-padded copies (or, for
/// an operand that is not ragged, from where it lies: its columns there meet
/// the other's zeros). Gathering the whole tile and computing it at full
/// length instead made the last step of K = 3584 in 2048-long steps cost as
/// much as a full one (bf16, one row: 1.5x overall). Other cases (b laid out
/// K x N, whose columns are not k, or packed panels) make the ragged
/// operands dense in their scratch first. Out of line, and instantiated only
/// for tiles load_ref can make ragged: otherwise a second caller of the
/// micro-kernels (and their K) kept GCC from specialising them for the
/// common path, 5-10% slower (f32, 256 x 64 x 128 tiles, K = 4096).
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L>
__attribute__((noinline, cold)) void mma_ragged(float *acc, tile_ref<typename DT::storage> a,
                                                tile_ref<typename DT::storage> b) {
  using S = typename DT::storage;
  constexpr int64_t C = ragged_chunk(K);
  if constexpr (L == BLayout::NK && C < K) {
    if (!a.panels && !b.panels) {
      const int64_t cols = std::min(a.cols < 0 ? K : a.cols, b.cols < 0 ? K : b.cols);
      const int64_t full = cols / C * C;
      for (int64_t k0 = 0; k0 < full; k0 += C)
        mma_dispatch<DT, M, N, C, L>(acc, tile_ref<S>{a.data + k0, a.ld}, tile_ref<S>{b.data + k0, b.ld});
      if (full < cols) {
        auto last = [&](tile_ref<S> x) { return x.cols >= 0 ? tile_ref<S>{x.scratch, C} : tile_ref<S>{x.data + full, x.ld}; };
        mma_dispatch<DT, M, N, C, L>(acc, last(a), last(b));
      }
      return;
    }
  }
  constexpr int64_t ROWS = L == BLayout::NK ? N : K, COLS = L == BLayout::NK ? K : N;
  mma_dispatch<DT, M, N, K, L>(acc, a.cols >= 0 ? densify<S, M, K>(a) : a, b.cols >= 0 ? densify<S, ROWS, COLS>(b) : b);
}

/// acc (M x N) += a (M x K) * b^T, b laid out as L says: ragged windows
/// apart, mma_dispatch.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, class OperandA, class OperandB,
          class Scale = no_scale>
inline void mma_any(float *acc, OperandA aOperand, OperandB bOperand, Scale scale = {}) {
  /* load_ref makes ragged windows of tiles at least kRaggedColumns wide only */
  constexpr bool mayBeRagged = K >= kRaggedColumns || (L == BLayout::KN && N >= kRaggedColumns);
  if constexpr (!std::is_pointer<OperandA>::value || !std::is_pointer<OperandB>::value) {
    const tile_ref<typename DT::storage> a = operand_ref(aOperand, K);
    const tile_ref<typename DT::storage> b = operand_ref(bOperand, L == BLayout::NK ? K : N);
    if (__builtin_expect(a.rows >= 0 || b.rows >= 0, 0)) { /* the last row tile of M or N */
      scale.template apply<M, N>(acc);
      mma_ragged_rows<DT, M, N, K, L>(acc, a, b);
      return;
    }
    if constexpr (mayBeRagged) {
      if (__builtin_expect(a.cols >= 0 || b.cols >= 0, 0)) { /* once per product, at its last k-step */
        scale.template apply<M, N>(acc);
        mma_ragged<DT, M, N, K, L>(acc, a, b);
        return;
      }
    }
  }
  mma_dispatch<DT, M, N, K, L>(acc, aOperand, bOperand, no_shadow{}, scale);
}

/// mma_any that also fetches `next` (an argus.prefetch the emitter paired
/// with this product): spread over the product when b is a plain window
/// lying like the tile, else at once before it.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, int LEVEL, class OperandA, class OperandB,
          class Scale = no_scale>
inline void mma_any(float *acc, OperandA aOperand, OperandB bOperand, tile_shadow<LEVEL> &next, Scale scale = {}) {
  using S = typename DT::storage;
  constexpr int64_t ROWS = L == BLayout::NK ? N : K, COLS = L == BLayout::NK ? K : N;
  const tile_ref<S> a = operand_ref(aOperand, K), b = operand_ref(bOperand, COLS);
  std::ptrdiff_t delta = 0;
  if (a.rows < 0 && a.cols < 0 && !a.panels && b.rows < 0 && b.cols < 0 && !b.panels &&
      next.template take<ROWS, COLS, int(sizeof(S))>(b.data, b.ld, delta)) {
    mma_dispatch<DT, M, N, K, L>(acc, aOperand, bOperand, line_shadow<LEVEL>{delta}, scale);
    return;
  }
  next.burst();
  mma_any<DT, M, N, K, L>(acc, aOperand, bOperand, scale);
}

/// Whether mma_dispatch computes plain or ragged windows of these tiles with
/// the packed register blocks (mma_f32_avx512, mma_bf16_avx512): f32 and
/// bf16 tiles that neither the inner-product form, the bf16 rows form nor
/// AMX (where the CPU has it) takes. The one place that says so: the
/// dispatch and mma_scaled both ask it.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L> inline bool uses_packed_blocks() {
#if defined(__AVX512F__)
  constexpr bool innerProduct = L == BLayout::NK && inner_product_fits<DT, M, K>();
  if constexpr (std::is_same<DT, f32>::value) return !innerProduct;
#if defined(__AVX512BF16__)
  if constexpr (std::is_same<DT, bf16>::value) {
#if defined(__AVX512BW__)
    if constexpr (innerProduct || (L == BLayout::KN && kn_rows_fit<M>())) return false;
#endif
#if defined(ARGUS_CPU_HAVE_AMX)
    if constexpr (amx_tiles_fit<M, N, K>() || (L == BLayout::NK && amx_few_rows_fit<M, N, K>()) ||
                  (L == BLayout::KN && amx_kn_pairs_fit<M, N, K>()))
      return !amx_usable();
#endif
    return true;
  }
#endif
#endif
  return false;
}

#if defined(__AVX512F__)
/// The packed register blocks for DT (where uses_packed_blocks); `start`:
/// see acc_start.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, bool RaggedRows, class S>
inline void mma_packed_blocks(float *acc, tile_ref<S> a, tile_ref<S> b, acc_start start = {}) {
  if constexpr (std::is_same<DT, f32>::value) mma_f32_avx512<M, N, K, L, RaggedRows>(acc, a, b, start);
#if defined(__AVX512BF16__)
  if constexpr (std::is_same<DT, bf16>::value) mma_bf16_avx512<M, N, K, L, RaggedRows>(acc, a, b, start);
#endif
}
#endif

/// Whether a product tagged pack_reuse keeps b's panels: f32 and bf16
/// products that take the packed register blocks, on operands read in
/// place, whose panels are small enough to keep (panel_keepable).
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, class S>
inline bool keeps_panels(const tile_ref<S> &a, const tile_ref<S> &b) {
#if defined(__AVX512F__)
  using P = typename std::conditional<std::is_same<DT, f32>::value, float, uint32_t>::type;
  constexpr bool packedType = std::is_same<DT, f32>::value
#if defined(__AVX512BF16__)
                              || std::is_same<DT, bf16>::value
#endif
      ;
  if constexpr (packedType && panel_keepable<P, N <= 16 ? 16 : 32, K>())
    return a.rows < 0 && a.cols < 0 && !a.panels && keepable(b) && uses_packed_blocks<DT, M, N, K, L>();
#endif
  return false;
}

/// The packed register blocks on the launch's kept panels of b (where
/// keeps_panels); `start`: see acc_start.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, class S>
inline void mma_kept_panels(float *acc, tile_ref<S> a, tile_ref<S> b, acc_start start = {}) {
#if defined(__AVX512F__)
  if constexpr (std::is_same<DT, f32>::value) mma_f32_avx512<M, N, K, L, false>(acc, a, b, start, panels_kept{});
#if defined(__AVX512BF16__)
  if constexpr (std::is_same<DT, bf16>::value) mma_bf16_avx512<M, N, K, L, false>(acc, a, b, start, panels_kept{});
#endif
#endif
}

/// mma_any for a product tagged pack_reuse.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, class OperandA, class Scale = no_scale>
inline void mma_reusing(float *acc, OperandA aOperand, tile_ref<typename DT::storage> b, Scale scale = {}) {
  const tile_ref<typename DT::storage> a = operand_ref(aOperand, K);
  if (keeps_panels<DT, M, N, K, L>(a, b)) { /* every row of a in bounds: each block scales its rows */
    mma_kept_panels<DT, M, N, K, L>(acc, a, b, acc_start{nullptr, scale.factors()});
    return;
  }
  mma_any<DT, M, N, K, L>(acc, aOperand, b, scale);
}

/// acc (M x N) += a (M x K) * b^T, b laid out as L says, no operand ragged
/// in its columns; picks the micro-kernel for the element type, the tile
/// shape and the CPU. RaggedRows (from mma_ragged_rows): only a.rows rows of
/// a are in bounds; micro-kernels that take it compute those, the others get
/// a dense zero-padded copy (all_rows). `shadow` (line_shadow: a tile like b
/// to fetch): the few-row forms spread its lines over their reads of b, the
/// others fetch them first. `scale` (row_scale): the rows forms scale acc in
/// their epilogue, the others first. Always inlined into mma_any, as it was
/// before ragged windows.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L, bool RaggedRows, class OperandA, class OperandB,
          class Shadow, class Scale>
__attribute__((always_inline)) inline void mma_dispatch(float *acc, OperandA aOperand, OperandB bOperand,
                                                        Shadow shadow, Scale scale) {
  const tile_ref<typename DT::storage> a = operand_ref(aOperand, K);
  const tile_ref<typename DT::storage> b = operand_ref(bOperand, L == BLayout::NK ? K : N);
  if constexpr (Scale::scales) {
    if (!takes_row_scale<DT, M, L>() || a.panels || b.panels) {
      scale.template apply<M, N>(acc);
      mma_dispatch<DT, M, N, K, L, RaggedRows>(acc, aOperand, bOperand, shadow);
      return;
    }
  }
  constexpr bool rowBlocks = RaggedRows && M > 4; /* few-row forms read all M rows */
  auto unspread = [&] { shadow.template burst<L == BLayout::NK ? N : K, L == BLayout::NK ? K : N>(b); };
  if constexpr (!std::is_pointer<OperandA>::value) { /* packed weights as the left operand: plain rows first */
    if (a.panels) {
      alignas(64) typename DT::storage dense[M * K];
      unpanel<typename DT::storage, M, K>(dense, whole_panels<typename DT::storage, M, K>(a));
      mma_dispatch<DT, M, N, K, L>(acc, dense, b, shadow);
      return;
    }
  }
  if constexpr (!std::is_pointer<OperandB>::value) { /* a window of a tensor: maybe of packed weights */
    if (b.panels) {
      unspread();
      mma_panels<DT, M, N, K, L, RaggedRows>(acc, a, b);
      return;
    }
  }
#if defined(__AVX512F__)
  if (uses_packed_blocks<DT, M, N, K, L>()) {
    unspread();
    mma_packed_blocks<DT, M, N, K, L, RaggedRows>(acc, a, b);
    return;
  }
  constexpr bool innerProduct = L == BLayout::NK && inner_product_fits<DT, M, K>();
  if constexpr (std::is_same<DT, f32>::value) { /* the rest took the packed blocks */
    if constexpr (innerProduct && lanes_fit<f32_dot, M, K>())
      mma_lanes<M, N, K, f32_dot, RaggedRows>(acc, a, b, shadow);
    else if constexpr (innerProduct)
      mma_dot<M, N, K, f32_dot, rowBlocks>(acc, all_rows<RaggedRows && !rowBlocks, M, K>(a), b, shadow);
    return;
  }
#if defined(ARGUS_CPU_HAVE_AMX)
  if constexpr (std::is_same<DT, bf16>::value && amx_tiles_fit<M, N, K>()) {
    if (amx_usable()) {
      unspread();
      mma_bf16_amx<M, N, K, L, RaggedRows>(acc, a, b);
      return;
    }
  } else if constexpr (std::is_same<DT, bf16>::value && L == BLayout::NK && amx_few_rows_fit<M, N, K>()) {
    if (amx_usable()) {
      mma_bf16_amx_few_rows<M, N, K>(acc, all_rows<RaggedRows, M, K>(a), b, shadow);
      return;
    }
  } else if constexpr (std::is_same<DT, bf16>::value && L == BLayout::KN && amx_kn_pairs_fit<M, N, K>()) {
    if (amx_usable()) {
      mma_bf16_amx_kn_pairs<M, N, K>(acc, all_rows<RaggedRows, M, K>(a), b, shadow, scale);
      return;
    }
  }
#endif
#if defined(__AVX512BF16__)
  if constexpr (std::is_same<DT, bf16>::value) {
#if defined(__AVX512BW__)
    if constexpr (innerProduct && lanes_fit<bf16_dot, M, K>()) {
      mma_lanes<M, N, K, bf16_dot, RaggedRows>(acc, a, b, shadow);
      return;
    } else if constexpr (innerProduct) {
      if constexpr (bf16_widen_fits<M>())
        if (bf16_widen_preferred()) {
          mma_dot_widened<M, N, K>(acc, all_rows<RaggedRows, M, K>(a), b, shadow);
          return;
        }
      mma_dot<M, N, K, bf16_dot, rowBlocks>(acc, all_rows<RaggedRows && !rowBlocks, M, K>(a), b, shadow);
      return;
    }
    if constexpr (L == BLayout::KN && kn_rows_fit<M>()) {
      if constexpr (bf16_widen_fits<M>())
        if (bf16_widen_preferred()) {
          mma_kn_widened<M, N, K>(acc, all_rows<RaggedRows, M, K>(a), b, shadow, scale);
          return;
        }
      mma_kn_rows<M, N, K>(acc, all_rows<RaggedRows, M, K>(a), b, shadow, scale);
      return;
    }
#endif
    return; /* the rest took the packed blocks */
  }
#endif
  unspread();
  if constexpr (std::is_same<DT, bf16>::value || std::is_same<DT, f16>::value) {
    /* no native 16-bit dot product: widen both operands (exactly) to f32 */
    alignas(64) float af[M * K];
    alignas(64) float bf[N * K];
    const tile_ref<typename DT::storage> aAll = all_rows<RaggedRows, M, K>(a);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k) af[m * K + k] = DT::load(aAll.data[m * aAll.ld + k]);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) bf[n * K + k] = DT::load(b_at<L>(b, n, k));
    mma_f32_avx512<M, N, K, BLayout::NK>(acc, {af, K}, {bf, K});
    return;
  }
#elif defined(__AVX2__) && defined(__FMA__)
  unspread();
  if constexpr (std::is_same<DT, f32>::value || std::is_same<DT, bf16>::value || std::is_same<DT, f16>::value) {
    if constexpr (L == BLayout::NK && lanes_fit8<DT, M, K>())
      mma_lanes8<DT, M, N, K>(acc, all_rows<RaggedRows, M, K>(a), b);
    else if constexpr (L == BLayout::NK && inner_product_fits_avx2<M, K>())
      mma_dot8<M, N, K, typename avx2_dot<DT>::type>(acc, all_rows<RaggedRows, M, K>(a), b);
    else if constexpr (L == BLayout::KN && M <= 4)
      mma_kn_rows8<M, N, K, typename avx2_dot<DT>::type>(acc, all_rows<RaggedRows, M, K>(a), b);
    else
      mma_packed8<DT, M, N, K, L>(acc, all_rows<RaggedRows, M, K>(a), b);
    return;
  }
#else
  unspread();
#endif
  mma_portable<DT, M, N, K, L>(acc, all_rows<RaggedRows, M, K>(a), b);
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

/// mma and mma_kn that also fetch `next`, a tile like b (tile_shadow: an
/// argus.prefetch before them), the lines spread over the product's reads.
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA, class OperandB, int LEVEL>
inline void mma(float *acc, OperandA a, OperandB b, tile_shadow<LEVEL> &next) {
  detail::mma_any<DT, M, N, K, detail::BLayout::NK>(acc, a, b, next);
}
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA, class OperandV, int LEVEL>
inline void mma_kn(float *acc, OperandA a, OperandV v, tile_shadow<LEVEL> &next) {
  detail::mma_any<DT, M, N, K, detail::BLayout::KN>(acc, a, v, next);
}

/// mma and mma_kn with acc's rows scaled first (row_scale), and that with
/// a tile to fetch.
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA, class OperandB>
inline void mma(float *acc, OperandA a, OperandB b, row_scale scale) {
  detail::mma_any<DT, M, N, K, detail::BLayout::NK>(acc, a, b, scale);
}
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA, class OperandV>
inline void mma_kn(float *acc, OperandA a, OperandV v, row_scale scale) {
  detail::mma_any<DT, M, N, K, detail::BLayout::KN>(acc, a, v, scale);
}
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA, class OperandB, int LEVEL>
inline void mma(float *acc, OperandA a, OperandB b, tile_shadow<LEVEL> &next, row_scale scale) {
  detail::mma_any<DT, M, N, K, detail::BLayout::NK>(acc, a, b, next, scale);
}
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA, class OperandV, int LEVEL>
inline void mma_kn(float *acc, OperandA a, OperandV v, tile_shadow<LEVEL> &next, row_scale scale) {
  detail::mma_any<DT, M, N, K, detail::BLayout::KN>(acc, a, v, next, scale);
}

/// mma and mma_kn, alone or with acc's rows scaled first, whose b panels
/// the thread keeps for the launch (pack_reuse, argus_cpu_pack_reuse.h).
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA>
inline void mma(float *acc, OperandA a, tile_ref<typename DT::storage> b, pack_reuse) {
  detail::mma_reusing<DT, M, N, K, detail::BLayout::NK>(acc, a, b);
}
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA>
inline void mma_kn(float *acc, OperandA a, tile_ref<typename DT::storage> v, pack_reuse) {
  detail::mma_reusing<DT, M, N, K, detail::BLayout::KN>(acc, a, v);
}
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA>
inline void mma(float *acc, OperandA a, tile_ref<typename DT::storage> b, row_scale scale, pack_reuse) {
  detail::mma_reusing<DT, M, N, K, detail::BLayout::NK>(acc, a, b, scale);
}
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA>
inline void mma_kn(float *acc, OperandA a, tile_ref<typename DT::storage> v, row_scale scale, pack_reuse) {
  detail::mma_reusing<DT, M, N, K, detail::BLayout::KN>(acc, a, v, scale);
}

/// acc (M x N, f32) = (a (M x K) * b (N x K)^T) * scale, acc's contents
/// ignored: a product started from zeros whose only use multiplies it by a
/// scalar (attention's scores; the emitter folds the two). The packed
/// register blocks start from zeros and scale as they store; the other
/// forms zero acc first and scale it after. Rounded alike either way.
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA, class OperandB>
inline void mma_scaled(float *acc, OperandA aOperand, OperandB bOperand, float scale) {
  const tile_ref<typename DT::storage> a = detail::operand_ref(aOperand, K), b = detail::operand_ref(bOperand, K);
  const bool plain = a.rows < 0 && a.cols < 0 && !a.panels && b.rows < 0 && b.cols < 0 && !b.panels;
  if (plain && detail::uses_packed_blocks<DT, M, N, K, detail::BLayout::NK>()) {
#if defined(__AVX512F__)
    detail::mma_packed_blocks<DT, M, N, K, detail::BLayout::NK, false>(acc, a, b, detail::acc_start{&scale});
#endif
    return;
  }
  fill<M * N>(acc, 0.0f);
  mma<DT, M, N, K>(acc, aOperand, bOperand);
  for (int64_t i = 0; i < M * N; ++i) acc[i] *= scale;
}

/// mma_scaled whose b panels the thread keeps for the launch (pack_reuse).
template <class DT, int64_t M, int64_t N, int64_t K, class OperandA>
inline void mma_scaled(float *acc, OperandA aOperand, tile_ref<typename DT::storage> b, float scale, pack_reuse) {
  const tile_ref<typename DT::storage> a = detail::operand_ref(aOperand, K);
  if (detail::keeps_panels<DT, M, N, K, detail::BLayout::NK>(a, b)) {
    detail::mma_kept_panels<DT, M, N, K, detail::BLayout::NK>(acc, a, b, detail::acc_start{&scale});
    return;
  }
  mma_scaled<DT, M, N, K>(acc, aOperand, b, scale);
}

} // namespace argus_cpu

#endif // ARGUS_CPU_MMA_H
