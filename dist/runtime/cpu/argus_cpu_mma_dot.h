/*===- argus_cpu_mma_dot.h - the inner-product form's blocking ------------===*
 *
 * Part of section 6 of argus_cpu_kernel.h (not a standalone header). The
 * inner-product form of mma (short tiles: vectors run along k in both
 * operands) blocks the same way on every ISA; only the MR x NR register
 * block differs (argus_cpu_mma.h for AVX-512, argus_cpu_mma_avx2.h for AVX2).
 * Also unroll<N>, which every register block of section 6 is written with.
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_MMA_DOT_H
#define ARGUS_CPU_MMA_DOT_H

namespace argus_cpu {
namespace detail {

template <class F, int... I>
__attribute__((always_inline)) inline void unroll_each(F &f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>()), ...);
}

/// What every body handed to unroll is marked with (`[&](auto r)
/// ARGUS_UNROLLED { ... }`): unroll is inlined, but the body is a call of its
/// own, which GCC outlines when it grows; out of line it takes the register
/// block's address, and GCC then keeps the block in memory, stored at every
/// step of k (CpuRegisterBlocks: one bf16 row against 128 columns of v, a
/// panel of 16 columns).
#define ARGUS_UNROLLED __attribute__((always_inline))

/// Calls f(std::integral_constant<int, I>()) for I = 0 .. N-1, unrolled by
/// the compiler front end: a register block indexed only by such constants
/// stays in registers. (`#pragma GCC unroll` promises no such thing: GCC
/// kept a 6 x 2 block of ymm accumulators on the stack, at a third of the
/// FMA rate.) Always inlined: one left out of line takes the block's address.
template <int N, class F> __attribute__((always_inline)) inline void unroll(F f) {
  unroll_each(f, std::make_integer_sequence<int, N>());
}

/// Rows of b a register block fetches into L2 while it computes: `count`
/// rows `ldBytes` apart from `rows` on, one line of each per k-step of one
/// vector (64 bytes of a row). See mma_dot_blocks.
struct dot_next {
  const char *rows = nullptr;
  int64_t ldBytes = 0, count = 0;
};

/// No scaling of the accumulator before a product: the micro-kernels' default.
struct no_scale {
  static constexpr bool scales = false;
  static const float *factors() { return nullptr; }
  template <class V> V rescale(V old, int) const { return old; }
  template <int64_t M, int64_t N> void apply(float *) const {}
};

} // namespace detail

/// The accumulator's rows scaled before a product adds to it:
/// acc[m][:] = acc[m][:] * by[m] + (a b^T)[m][:] (attention's output,
/// rescaled by exp(m_old - m_new) as each page adds to it). The rows forms
/// scale acc as their epilogue reads it to add their sums, where a pass of
/// its own would read and write acc once more; the other forms make that
/// pass first (apply). The same multiply and add, rounded apart.
struct row_scale {
  const float *by;
  static constexpr bool scales = true;
  /// The factor of each row (acc_start's rowScale).
  const float *factors() const { return by; }
  template <class V> V rescale(V old, int row) const { return old * by[row]; }
  template <int64_t M, int64_t N> void apply(float *acc) const {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) acc[m * N + n] *= by[m];
  }
};

namespace detail {

/// No tile to fetch alongside a product: the micro-kernels' default.
struct no_shadow {
  void fetch(const void *) const {}
  template <int64_t ROWS, int64_t COLS, class S> void burst(tile_ref<S>) const {}
};

/// A tile_shadow a product took (ak::mma(..., shadow)): the micro-kernels
/// that spread it fetch, with each 64 bytes of b they read, the tile's bytes
/// `delta` further on; the others fetch its lines at once (burst).
template <int LEVEL> struct line_shadow {
  std::ptrdiff_t delta;
  void fetch(const void *bBytes) const { prefetch_line<LEVEL>(static_cast<const char *>(bBytes) + delta); }
  /// The tile's lines now: b's ROWS x COLS window moved by delta.
  template <int64_t ROWS, int64_t COLS, class S> void burst(tile_ref<S> b) const {
    tile_shadow<LEVEL> tile(reinterpret_cast<const char *>(b.data) + delta, ROWS, COLS * int64_t(sizeof(S)),
                            b.ld * int64_t(sizeof(S)));
    tile.burst();
  }
};

/// acc (M x N) += a * b^T by register blocks: per block of NR columns of b,
/// blocks of MR rows of a (the last one shorter), so each row of b comes
/// from memory once and from L1 for the other row blocks. Rows of a that lie
/// a multiple of 4 KiB apart (K = 4096 activations) would share L1 sets and
/// evict each other, so more than one block of them is first copied dense.
/// Only the first row block reads its columns of b from memory: the later
/// ones fetch the next column block's rows into L2 in shares, so the weight
/// stream runs while they compute (f32, 16 rows, N x K = 14336 x 4096 and
/// 4096 x 14336, two threads: 1.15-1.2x; 9 rows, one thread: 1.2-1.25x).
/// `block(mr, nr, c, ldc, a, lda, b, ldb, K, next, shadow)` computes one
/// block, its row and column counts as std::integral_constant, and fetches
/// `next` (dot_next) and, in the first row block, `shadow`'s share
/// (line_shadow: the lines of a tile like b, as it reads b). RaggedRows: only
/// a.rows rows of a are in bounds; blocks past them are skipped (their acc
/// rows kept).
template <int64_t M, int64_t N, int64_t K, int MR, int NR, bool RaggedRows = false, class SA, class SB, class Block,
          class Shadow = no_shadow>
inline void mma_dot_blocks(float *acc, tile_ref<SA> a, tile_ref<SB> b, Block block, Shadow shadow = {}) {
  static_assert(M <= 32, "the inner-product form is for short tiles");
  static_assert(!RaggedRows || M > MR, "ragged rows need the dense copy of a");
  constexpr int rest = int(M % MR); /* rows of the last, shorter block */
  /* ragged rows (a.rows in bounds): only the blocks that hold them, rows past them zero */
  const int64_t used = RaggedRows ? std::min<int64_t>(M, (a.rows + MR - 1) / MR * MR) : M;
  alignas(64) SA dense[M > MR ? M * K : 1];
  if (M > MR && (RaggedRows || a.ld != K)) {
    const int64_t in = RaggedRows ? a.rows : M;
    for (int64_t m = 0; m < in; ++m) std::memcpy(dense + m * K, a.data + m * a.ld, K * sizeof(SA));
    if (used > in) std::memset(static_cast<void *>(dense + in * K), 0, size_t(used - in) * K * sizeof(SA));
    a = {dense, K};
  }
  const int64_t blocks = used / MR + (rest != 0 && used == M ? 1 : 0);
  const int64_t share = blocks > 1 ? (NR + blocks - 2) / (blocks - 1) : 0; /* rows per later block */
  auto next = [&](int64_t n, int64_t m) { /* block m's share of the rows from n + NR on */
    const int64_t first = (m / MR - 1) * share, count = std::min<int64_t>(share, NR - first);
    if (m == 0 || count <= 0 || n + NR + first >= N) return dot_next{};
    return dot_next{reinterpret_cast<const char *>(b.data + (n + NR + first) * b.ld), b.ld * int64_t(sizeof(SB)),
                    std::min<int64_t>(count, N - n - NR - first)};
  };
  auto columns = [&](auto nr, int64_t n) {
    for (int64_t m = 0; m + MR <= used; m += MR) {
      /* the block that reads b from memory fetches the shadow (MR <= M: it always runs); one call site
         without a shadow (two copies of the inlined block ran an f32 16 x 64 x 512 GEMM tile 1.7x slower) */
      if constexpr (std::is_same<Shadow, no_shadow>::value)
        block(std::integral_constant<int, MR>(), nr, acc + m * N + n, N, a.data + m * a.ld, a.ld, b.data + n * b.ld,
              b.ld, K, next(n, m), no_shadow{});
      else if (m == 0)
        block(std::integral_constant<int, MR>(), nr, acc + n, N, a.data, a.ld, b.data + n * b.ld, b.ld, K, next(n, 0),
              shadow);
      else
        block(std::integral_constant<int, MR>(), nr, acc + m * N + n, N, a.data + m * a.ld, a.ld, b.data + n * b.ld,
              b.ld, K, next(n, m), no_shadow{});
    }
    if constexpr (rest != 0)
      if (used == M)
        block(std::integral_constant<int, rest>(), nr, acc + (M - rest) * N + n, N, a.data + (M - rest) * a.ld, a.ld,
            b.data + n * b.ld, b.ld, K, next(n, M - rest), no_shadow{});
  };
  int64_t n = 0;
  for (; n + NR <= N; n += NR) columns(std::integral_constant<int, NR>(), n);
  if constexpr (N % NR != 0) /* (GCC warns of undefined behaviour in the tail loop even when it is dead) */
    for (; n < N; ++n) columns(std::integral_constant<int, 1>(), n);
}

} // namespace detail
} // namespace argus_cpu

#endif // ARGUS_CPU_MMA_DOT_H
