/*===- argus_cpu_panels.h - tiles of pre-packed (PANELS) weight tensors ---===*
 *
 * Part of section 4 of argus_cpu_kernel.h, which includes it. A tensor in the
 * PANELS layout (argus_cpu_abi.h: weights packed once by argus_pack_weights)
 * holds the same logical elements as a strided one; only where they lie
 * differs. Kernels are layout-polymorphic: ak::load and ak::load_ref read a
 * PANELS tensor through the helpers below, and the mma micro-kernels take a
 * tile of it in place when their ISA computes from that order (AVX-512 f32,
 * AVX512_BF16 and AMX bf16), skipping the packing they would otherwise do at
 * every k step. Anything else gathers the tile into plain rows first:
 * correct everywhere, fast where it matters.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_PANELS_H
#define ARGUS_CPU_PANELS_H

namespace argus_cpu {

/// A read-only window onto a 2-D tile, the operand form of the mma
/// micro-kernels: a tile that lies inside a tensor is read where it is
/// instead of copied first. Plain: rows `ld` elements apart. Panels (a tile
/// of a PANELS tensor that starts on a panel and a k group, or 16 rows into
/// a panel when it stays inside it): element (r, c) at
/// argus_cpu_panel_offset(r, c, ld, sizeof(S)) from `data`.
template <class S> struct tile_ref {
  const S *data;
  int64_t ld;
  bool panels = false;
  /// A ragged window (load_ref: a tile whose last columns lie past the
  /// tensor's end, read in place): how many columns are in bounds (-1: all),
  /// and the tile's scratch (as large as the tile), which starts with a
  /// dense zero-padded copy of the last partial chunk of ragged_chunk(columns)
  /// columns when the chunks do not divide `cols`.
  int64_t cols = -1;
  S *scratch = nullptr;
  /// A window with ragged rows (load_ref: a tile whose last rows lie past
  /// the tensor's end, read in place): how many rows are in bounds (-1: all).
  /// The scratch is set too. A window is ragged in its rows or its columns,
  /// never both.
  int64_t rows = -1;
};

/// The narrowest tile load_ref reads as a ragged window (narrower ones are
/// gathered whole).
constexpr int64_t kRaggedColumns = 512;

/// The chunk a ragged window's in-bounds columns are computed in: a quarter
/// of the tile's columns where that is a multiple of 32 (bf16 pairs, 16-lane
/// vectors), else 32; either divides the tile's columns (a multiple of 32).
constexpr int64_t ragged_chunk(int64_t columns) { return columns % 128 == 0 ? columns / 4 : 32; }

namespace detail {

/// k values side by side in a panel row: 1 for f32, 2 (VNNI pairs) for bf16.
template <class S> constexpr int64_t panel_group() { return sizeof(S) >= 4 ? 1 : 4 / int64_t(sizeof(S)); }

/// Whether the mma micro-kernels of this build compute from panels of DT
/// in place (argus_cpu_mma.h, mma_panels).
template <class DT> constexpr bool mma_reads_panels() {
#if defined(__AVX512F__)
  if (std::is_same<DT, f32>::value) return true;
#if defined(__AVX512BF16__) && defined(__AVX512BW__)
  if (std::is_same<DT, bf16>::value) return true;
#endif
#endif
  return false;
}

constexpr int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

/// Copies the tile of dims at `off` of a PANELS tensor into dense rows
/// (row-major, the tile's own shape); elements outside the tensor read `pad`.
template <class S, int R>
inline void gather_panels(S *dst, const argus_cpu_tensor &t, const int64_t *off, const int64_t *dims, S pad) {
  static_assert(R >= 2, "a PANELS tensor has an N x K matrix in its last two dimensions");
  const S *src = static_cast<const S *>(t.data);
  int64_t total = 1;
  for (int d = 0; d < R; ++d) total *= dims[d];
  for (int64_t i = 0; i < total; ++i) {
    int64_t idx[R], rest = i;
    for (int d = R - 1; d >= 0; --d) idx[d] = off[d] + rest % dims[d], rest /= dims[d];
    bool inside = true;
    int64_t at = 0;
    for (int d = 0; d < R; ++d) inside = inside && idx[d] >= 0 && idx[d] < t.shape[d];
    if (!inside) {
      dst[i] = pad;
      continue;
    }
    for (int d = 0; d < R - 2; ++d) at += idx[d] * t.stride[d];
    dst[i] = src[at + argus_cpu_panel_offset(idx[R - 2], idx[R - 1], t.stride[R - 2], int64_t(sizeof(S)))];
  }
}

/// The tile of dims at `off` of a PANELS tensor as an in-place panel
/// operand, when it is one: its rows are dimension R-2 (the others 1), it
/// starts on a panel (or the middle of one, for at most 16 rows) and a k
/// group, ends on one or at K, and its k stay within the zero-padded panels
/// (so the k it reads past the tensor are zeros, like a masked load's
/// padding). A tile whose last rows reach past N is a window with ragged
/// rows (`rows` in bounds, `scratch` set): the panel forms compute only the
/// panels that hold them, and only the 16-column half of a last panel that
/// needs no more; others copy it whole first (whole_panels). A transposed
/// MoE expert of 20 rows in a 64-row tile then computes 32 columns, not 64
/// read from a zero-padded copy per k-step (panel_copy).
template <class S, int R>
inline bool panel_window(S *scratch, const argus_cpu_tensor &t, const int64_t *off, const int64_t *dims,
                         tile_ref<S> *out) {
  constexpr int64_t G = panel_group<S>();
  int64_t at = 0;
  for (int d = 0; d < R - 2; ++d) {
    if (dims[d] != 1 || off[d] < 0 || off[d] >= t.shape[d]) return false;
    at += off[d] * t.stride[d];
  }
  const int64_t n0 = off[R - 2], k0 = off[R - 1], j0 = n0 % ARGUS_CPU_PANEL_ROWS, N = t.shape[R - 2];
  /* a panel's start, or the second half of one for a tile of at most 16 rows (decode's 16-column tiles) */
  const bool panelStart = j0 == 0 || (j0 == 16 && dims[R - 2] <= 16);
  /* whole panels and k groups: whole_panels copies it into the tile-sized scratch */
  const bool wholePanels = dims[R - 2] % ARGUS_CPU_PANEL_ROWS == 0 && dims[R - 1] % G == 0;
  const bool raggedRows = j0 == 0 && wholePanels && n0 < N && n0 + dims[R - 2] > N;
  if (n0 < 0 || !panelStart || (!raggedRows && n0 + dims[R - 2] > round_up(N, ARGUS_CPU_PANEL_ROWS))) return false;
  /* a tile ending inside a group would pair its last k with the next tile's first one (not a zero) */
  const bool wholeGroups = dims[R - 1] % G == 0 || k0 + dims[R - 1] == t.shape[R - 1];
  if (k0 < 0 || k0 % G != 0 || !wholeGroups || k0 + dims[R - 1] > round_up(t.shape[R - 1], G)) return false;
  const S *base = static_cast<const S *>(t.data) + at;
  *out = {base + argus_cpu_panel_offset(n0, k0, t.stride[R - 2], int64_t(sizeof(S))), t.stride[R - 2], true};
  if (raggedRows) out->rows = N - n0, out->scratch = scratch;
  return true;
}

/// A panel window with ragged rows (panel_window) as whole panels, for the
/// forms that read every panel of a ROWS x COLS tile (AMX, gathers): in
/// place when the tensor's zero-padded panels hold the tile (N = 40 in a
/// 64-row tile), else the panels holding its rows copied into its scratch,
/// those past them zeros. Other windows as they are.
template <class S, int64_t ROWS, int64_t COLS> inline tile_ref<S> whole_panels(tile_ref<S> w) {
  constexpr int64_t P = ARGUS_CPU_PANEL_ROWS, perPanel = COLS * P; /* whole k groups: panel_window */
  if (!w.panels || w.rows < 0) return w;
  if (round_up(w.rows, P) >= ROWS) return {w.data, w.ld, true};
  for (int64_t p = 0; p < (ROWS + P - 1) / P; ++p) {
    S *panel = w.scratch + p * perPanel;
    if (p * P < w.rows)
      std::memcpy(panel, w.data + p * w.ld, sizeof(S) * size_t(perPanel));
    else
      std::memset(static_cast<void *>(panel), 0, sizeof(S) * size_t(perPanel));
  }
  return {w.scratch, perPanel, true};
}

/// How many columns of a panel operand of N rows its forms compute: N, or
/// for a window with ragged rows those in bounds (a panel's padding rows are
/// zeros, and the forms step 16 columns at a time).
template <class S> inline int64_t panel_columns(const tile_ref<S> &b, int64_t N) {
  return b.rows < 0 ? N : std::min(N, b.rows);
}

/// The tile of dims at `off` of a PANELS tensor copied into `scratch` as
/// panels of its own (dims[R-1] rows of k each), when it starts on a panel
/// and a k group and its rows fill whole panels, but it reaches past the
/// tensor's padded panels (the last k step of a K that is not a multiple of
/// it, the last column tile of a ragged N): each panel's rows of k are one
/// contiguous copy, the rest zeros, like a masked load's padding. (Gathering
/// such a tile element by element cost a third of a small expert's time.)
template <class S, int R>
inline bool panel_copy(S *scratch, const argus_cpu_tensor &t, const int64_t *off, const int64_t *dims,
                       tile_ref<S> *out) {
  constexpr int64_t G = panel_group<S>(), P = ARGUS_CPU_PANEL_ROWS;
  int64_t at = 0;
  for (int d = 0; d < R - 2; ++d) {
    if (dims[d] != 1 || off[d] < 0 || off[d] >= t.shape[d]) return false;
    at += off[d] * t.stride[d];
  }
  const int64_t n0 = off[R - 2], k0 = off[R - 1], rows = dims[R - 2], ks = dims[R - 1];
  if (n0 < 0 || n0 % P != 0 || rows % P != 0 || k0 < 0 || k0 % G != 0 || ks % G != 0) return false;
  const S *src = static_cast<const S *>(t.data) + at;
  const int64_t kEnd = std::min(k0 + ks, round_up(t.shape[R - 1], G)); /* k past it: zeros */
  const int64_t copied = std::max<int64_t>(kEnd - k0, 0) * P;           /* elements per panel */
  for (int64_t p = 0; p < rows / P; ++p) {
    S *panel = scratch + p * ks * P;
    const int64_t n = n0 + p * P;
    const int64_t used = n < t.shape[R - 2] ? copied : 0; /* a panel past N: zeros */
    if (used) std::memcpy(panel, src + argus_cpu_panel_offset(n, k0, t.stride[R - 2], int64_t(sizeof(S))), sizeof(S) * used);
    std::memset(panel + used, 0, sizeof(S) * (ks * P - used));
  }
  *out = {scratch, ks * P, true};
  return true;
}

/// dst (ROWS x COLS, dense) = the tile a panel operand points at.
template <class S, int64_t ROWS, int64_t COLS> inline void unpanel(S *dst, tile_ref<S> src) {
  for (int64_t r = 0; r < ROWS; ++r)
    for (int64_t c = 0; c < COLS; ++c)
      dst[r * COLS + c] = src.data[argus_cpu_panel_offset(r, c, src.ld, int64_t(sizeof(S)))];
}

} // namespace detail
} // namespace argus_cpu

#endif // ARGUS_CPU_PANELS_H
