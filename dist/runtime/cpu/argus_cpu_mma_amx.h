/*===- argus_cpu_mma_amx.h - bf16 mma on AMX tiles ------------------------===*
 *
 * Part of section 6 of argus_cpu_kernel.h, included by argus_cpu_mma.h (not
 * a standalone header). Defines ARGUS_CPU_HAVE_AMX where the compiler can
 * emit AMX; the kernels use it only where the CPU and the OS allow.
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_MMA_AMX_H
#define ARGUS_CPU_MMA_AMX_H

namespace argus_cpu {
namespace detail {

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

/// Ragged rows on AMX (a.rows of a's rows in bounds): the 16-row groups that
/// hold them are computed, the last partial one from a zero-padded copy of
/// its rows at the start of a.scratch, made here once per product.
template <int64_t K> inline void amx_copy_partial_group(tile_ref<uint16_t> a) {
  const int64_t full = a.rows / 16 * 16, rest = a.rows - full;
  for (int64_t r = 0; r < 16 && rest > 0; ++r) {
    if (r < rest)
      std::memcpy(a.scratch + r * K, a.data + (full + r) * a.ld, sizeof(uint16_t) * K);
    else
      std::memset(static_cast<void *>(a.scratch + r * K), 0, sizeof(uint16_t) * K);
  }
}

/// What a panel fetches into L2 while it computes: the lines of what follows
/// it (a pre-packed panel's rows further on, contiguous; or, for a plain b,
/// the next k-step's K columns of its 32 rows), spread evenly over all of the
/// panel's (row group, k-step) iterations. The first row group alone issued
/// them all before, a burst that waited on the core's outstanding misses
/// when they came from memory: pre-packed weights beyond the last-level
/// cache, two threads, spread: 64, 128 and 512 x 4096 x 4096 1.08x, 1.11-1.20x
/// and 1.06-1.16x; 256 x 14336 x 4096 1.10x (plain weights: 128 rows 1.03x).
struct panel_fetch {
  const char *at = nullptr; /* nullptr: nothing to fetch */
  int64_t ldBytes = 0, linesPerRow = 0, lines = 0;

  /// Contiguous lines: `bytes` from `from`.
  static panel_fetch contiguous(const void *from, int64_t bytes) {
    return {static_cast<const char *>(from), 0, bytes / 64, bytes / 64};
  }
  /// `rows` rows of `rowBytes`, `ldBytes` apart.
  static panel_fetch strided(const char *from, int64_t rows, int64_t rowBytes, int64_t ldBytes) {
    return {from, ldBytes, rowBytes / 64, rows * (rowBytes / 64)};
  }

  /// Walks the lines in `steps` shares of lines / steps (the first
  /// lines % steps one more), each call of next() the following share.
  /// A running cursor: the tile loops pay a few instructions a step.
  class cursor {
    const char *line_;
    int64_t ldBytes_, linesPerRow_, col_ = 0, perStep_, extra_, step_ = 0;

  public:
    cursor(const panel_fetch &f, int64_t steps)
        : line_(f.at), ldBytes_(f.ldBytes), linesPerRow_(f.linesPerRow), perStep_(f.lines / steps),
          extra_(f.lines % steps) {}
    /// Calls fetch(address) for each line of the next share.
    template <class Fetch> __attribute__((always_inline)) void next(Fetch fetch) {
      if (!line_) return;
      int64_t count = perStep_ + (step_++ < extra_);
      if (!ldBytes_) {
        for (; count > 0; --count, line_ += 64) fetch(line_);
        return;
      }
      for (; count > 0; --count, line_ += 64)
        if (fetch(line_), ++col_ == linesPerRow_) col_ = 0, line_ += ldBytes_ - linesPerRow_ * 64;
    }
    __attribute__((always_inline)) void next() {
      next([](const char *line) __attribute__((always_inline)) { prefetch_line<2>(line); });
    }
  };
};

/// acc[:, n0 : n0+32] += a * panel (one 32-column VNNI panel, 16-pair rows
/// of 32 dwords): 2 x 2 (or 1 x 2) C tiles stay in tile registers over the
/// whole K loop. The configuration of amx_configure_square is loaded.
/// RaggedRows: see amx_copy_partial_group. `fetch`: see panel_fetch (AMX
/// computes a 32-row panel faster than memory delivers it). Inlined: out of
/// line, 16-row ragged tiles on panels ran 5% slower (8 x 14336 x 4096).
template <int64_t M, int64_t N, int64_t K, bool RaggedRows = false>
__attribute__((target("amx-tile,amx-bf16"), always_inline)) inline void amx_panel(float *acc, tile_ref<uint16_t> a,
                                                                   const uint32_t *bp, int64_t n0,
                                                                   const panel_fetch &fetch = {}) {
  constexpr int64_t PW = 32, cStride = N * 4, bStride = PW * 4, kSteps = K / 32;
  const int64_t aStride = a.ld * 2;
  const int64_t used = RaggedRows ? (a.rows + 15) / 16 * 16 : M, full = RaggedRows ? a.rows / 16 * 16 : M;
  /* row groups: one up to 32 rows, ragged or not (a division by constants) */
  const int64_t groups = M <= 32 ? 1 : (used + 31) / 32;
  panel_fetch::cursor fetching(fetch, groups * kSteps);
  for (int64_t m0 = 0; m0 < used; m0 += 32) {
    float *c = acc + m0 * N + n0;
    const uint16_t *am = a.data + m0 * a.ld, *am16 = am + 16 * a.ld;
    int64_t stride0 = aStride, stride16 = aStride;
    if constexpr (RaggedRows) { /* the partial group: its copy */
      if (m0 >= full) am = a.scratch, stride0 = K * 2;
      if (m0 + 16 >= full) am16 = a.scratch, stride16 = K * 2;
    }
    if (m0 + 32 <= used) {
      _tile_loadd(0, c, cStride);
      _tile_loadd(1, c + 16, cStride);
      _tile_loadd(2, c + 16 * N, cStride);
      _tile_loadd(3, c + 16 * N + 16, cStride);
      for (int64_t k0 = 0; k0 < K; k0 += 32) {
        fetching.next();
        _tile_loadd(4, am + k0, stride0);
        _tile_loadd(5, am16 + k0, stride16);
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
        fetching.next();
        _tile_loadd(4, am + k0, stride0);
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

/// Whether a product with plain b fetches the next k-step of b's rows as it
/// computes. Products 256 and more long in k are GEMM k-steps (cpuGemmKStep
/// in GemmPlan.cpp), whose next step reads the K columns after b's;
/// attention's are a head_dim long (64, 128), and those columns belong to the
/// next head. Tiles of 128 rows and more compute long enough per panel to
/// hide the fetch: at 16 rows (decode, memory-bound) it competed with the
/// panel's own reads (M x N x K = 16 x 4096-6144 x 4096, two threads, 0.93x).
template <int64_t M, int64_t K> constexpr bool amx_fetches_next_step() { return M >= 128 && K >= 256; }

/// acc (M x N) += a (M x K) * b (N x K)^T for M % 16 == 0, N % 32 == 0,
/// K % 32 == 0: each 32-column panel of b packed, then amx_panel. A plain b
/// in GEMM k-steps has its panel's rows of the next step fetched into L2 as
/// the panel computes (as f32_prefetch does for f32; amx_fetches_next_step).
template <int64_t M, int64_t N, int64_t K, BLayout L, bool RaggedRows = false>
__attribute__((target("amx-tile,amx-bf16"))) void mma_bf16_amx(float *acc, tile_ref<uint16_t> a, tile_ref<uint16_t> b) {
  static_assert(amx_tiles_fit<M, N, K>(), "AMX tiles need 16-row, 32-column, 32-k multiples");
  constexpr int64_t PW = 32;
  alignas(64) uint32_t bp[K / 2 * PW];
  if constexpr (RaggedRows) amx_copy_partial_group<K>(a);
  amx_configure_square();
  for (int64_t n0 = 0; n0 < N; n0 += PW) {
    pack_vnni_panel<L, PW, K>(bp, b, n0, PW);
    if constexpr (L == BLayout::NK && amx_fetches_next_step<M, K>())
      amx_panel<M, N, K, RaggedRows>(
          acc, a, bp, n0,
          panel_fetch::strided(reinterpret_cast<const char *>(b.data + n0 * b.ld + K), PW, K * 2, b.ld * 2));
    else
      amx_panel<M, N, K, RaggedRows>(acc, a, bp, n0);
  }
  _tile_release();
}

/// The same with b a panel operand (pre-packed weights): no packing at all.
/// Each panel's rows two k-steps on are fetched as it is read: M = 32,
/// N x K = 14336 x 4096, two threads, 1.15-1.25x (one step on: 1.1-1.2x).
template <int64_t M, int64_t N, int64_t K, bool RaggedRows = false>
__attribute__((target("amx-tile,amx-bf16"))) void mma_bf16_amx_panels(float *acc, tile_ref<uint16_t> a,
                                                                       tile_ref<uint16_t> b) {
  static_assert(amx_tiles_fit<M, N, K>(), "AMX tiles need 16-row, 32-column, 32-k multiples");
  constexpr int64_t PW = 32;
  if constexpr (RaggedRows) amx_copy_partial_group<K>(a);
  amx_configure_square();
  for (int64_t n0 = 0; n0 < N; n0 += PW) {
    const uint32_t *bp = reinterpret_cast<const uint32_t *>(b.data + n0 / PW * b.ld);
    amx_panel<M, N, K, RaggedRows>(acc, a, bp, n0, panel_fetch::contiguous(bp + K * PW, K * PW * 2));
  }
  _tile_release();
}

/*  Few rows of a (2 to 16: decode GEMMs, small MoE experts, decode
 *  attention's GROUP query heads of a KV head) run on AMX computed
 *  transposed, below, once per k-step of a tile. Their tile configuration
 *  (one for both of decode's products, so that a page's two products do not
 *  reload it) is loaded only when it is not the one loaded now:
 *  ldtilecfg costs 260-400 cycles on a 2-vCPU Emerald Rapids, while reading
 *  the loaded one back (sttilecfg) and comparing costs about 15 (bf16
 *  decode GEMMs, llama3-8b's N x K, two threads: 4 rows 1.08x, 8 rows
 *  1.10x). It stays loaded after the
 *  call; anything else in the process (oneDNN, a caller's own AMX code) may
 *  load another in between, which the comparison sees. */
template <int64_t M> inline amx_tile_config make_few_rows_config() {
  amx_tile_config cfg;
  cfg.rows[0] = 16, cfg.colsb[0] = M * 4; /* C^T: 16 rows of b x M, even 32-k steps */
  cfg.rows[1] = 16, cfg.colsb[1] = 64;    /* 16 rows of b, 32 k (or of v, 32 columns) */
  cfg.rows[2] = 16, cfg.colsb[2] = M * 4; /* 16 pairs of k of a^T */
  cfg.rows[3] = 16, cfg.colsb[3] = M * 4; /* C^T, odd 32-k steps */
  cfg.rows[4] = 16, cfg.colsb[4] = 64;    /* the next 16 x 64 bytes of b (or v) */
  if (M <= 8) { /* mma_bf16_amx_kn_pairs */
    cfg.rows[5] = 2 * M, cfg.colsb[5] = 64; /* a's rows as k-pairs (a, 0), then (0, a) */
    cfg.rows[6] = 2 * M, cfg.colsb[6] = 64; /* C: even columns of a 32-column chunk, then odd */
    cfg.rows[7] = 2 * M, cfg.colsb[7] = 64;
  }
  return cfg;
}
/// The few-rows configuration, built once per M.
template <int64_t M> inline const amx_tile_config &amx_few_rows_config() {
  static const amx_tile_config config = make_few_rows_config<M>();
  return config;
}

/// Loads `cfg` unless it is the tile configuration loaded now: the two
/// 64-byte configurations compared as one register (memcmp's call cost a
/// decode page step 1.5%).
__attribute__((target("amx-tile,avx512f"))) inline void amx_ensure_config(const amx_tile_config &cfg) {
  static_assert(sizeof(amx_tile_config) == 64, "a tile configuration is one 64-byte register");
  alignas(64) amx_tile_config loaded;
  _tile_storeconfig(&loaded);
  if (_mm512_cmpneq_epi32_mask(_mm512_load_si512(&loaded), _mm512_loadu_si512(&cfg)) == 0)
    return;
  alignas(64) amx_tile_config copy = cfg;
  __asm__ volatile("" : : "r"(&copy) : "memory"); /* (ldtilecfg's read of it, which GCC does not see) */
  _tile_loadconfig(&copy);
}

/// Whether a bf16 product with b laid out N x K takes the few-rows AMX form:
/// 2 to 16 rows (one row streams b in the inner-product form), whole tiles
/// of 16 rows of b and 32 k. Decode attention's scores (4 x 16 x 128, a page
/// of keys a tile of b) take it too.
template <int64_t M, int64_t N, int64_t K> constexpr bool amx_few_rows_fit() {
  return M >= 2 && M <= 16 && N % 16 == 0 && K % 32 == 0;
}

/// M vectors of 16 dwords rearranged into M others, M <= 8: lane l of output
/// o is element From{}(16 o + l) of the inputs read as one array. Each output
/// blends one two-source permute per pair of inputs (M = 4: 8 permutes and
/// 4 blends; four 16-lane gathers through memory instead cost a decode page
/// step 7%).
template <int M, class From> struct dword_shuffle {
  static constexpr int kPairs = (M + 1) / 2;
  struct Tables {
    int32_t index[M][kPairs][16];
    uint16_t mask[M][kPairs];
  };
  static constexpr Tables tables() {
    Tables t{};
    for (int o = 0; o < M; ++o)
      for (int l = 0; l < 16; ++l) {
        const int at = From{}(16 * o + l), pair = at / 32;
        t.index[o][pair][l] = at % 32;
        t.mask[o][pair] = uint16_t(t.mask[o][pair] | (1u << l));
      }
    return t;
  }
  __attribute__((target("avx512f"))) static void apply(__m512i (&out)[M], const __m512i (&in)[M]) {
    static constexpr Tables t = tables();
    for (int o = 0; o < M; ++o) {
      __m512i v = _mm512_setzero_si512();
      for (int p = 0; p < kPairs; ++p) {
        const __m512i index = _mm512_loadu_si512(t.index[o][p]);
        const __m512i hi = 2 * p + 1 < M ? in[2 * p + 1] : in[2 * p];
        v = _mm512_mask_mov_epi32(v, t.mask[o][p], _mm512_permutex2var_epi32(in[2 * p], index, hi));
      }
      out[o] = v;
    }
  }
};

/// ap[kc][kp][m] = {a[m][32kc + 2kp], a[m][32kc + 2kp + 1]}: the B tiles of
/// a^T for the few-rows form.
template <int64_t M, int64_t K>
__attribute__((target("avx512f"))) inline void amx_pack_transposed_pairs(uint32_t *ap, tile_ref<uint16_t> a) {
  constexpr int64_t KC = K / 32;
  if constexpr (M <= 8) {
    struct From { /* element kp * M + m of the chunk: pair kp of row m */
      constexpr int operator()(int f) const { return f % int(M) * 16 + f / int(M); }
    };
    for (int64_t kc = 0; kc < KC; ++kc) {
      __m512i rows[M], packed[M];
      for (int64_t m = 0; m < M; ++m) rows[m] = _mm512_loadu_si512(a.data + m * a.ld + 32 * kc);
      dword_shuffle<int(M), From>::apply(packed, rows);
      for (int64_t o = 0; o < M; ++o) _mm512_storeu_si512(ap + (kc * 16 * M) + 16 * o, packed[o]);
    }
  } else {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t kc = 0; kc < KC; ++kc) {
        alignas(64) uint32_t pairs[16];
        std::memcpy(pairs, a.data + m * a.ld + 32 * kc, sizeof pairs);
        for (int64_t kp = 0; kp < 16; ++kp) ap[(kc * 16 + kp) * M + m] = pairs[kp];
      }
  }
}

/// acc[m][0..15] += ct[n][m] for the 16 x M tile C^T.
template <int64_t M> __attribute__((target("avx512f"))) inline void amx_add_transposed(float *acc, int64_t ldc,
                                                                                       const float *ct) {
  if constexpr (M <= 8) {
    struct From { /* element m * 16 + n of acc's rows: ct[n][m] */
      constexpr int operator()(int f) const { return f % 16 * int(M) + f / 16; }
    };
    __m512i in[M], out[M];
    for (int64_t i = 0; i < M; ++i) in[i] = _mm512_loadu_si512(ct + 16 * i);
    dword_shuffle<int(M), From>::apply(out, in);
    for (int64_t m = 0; m < M; ++m)
      _mm512_storeu_ps(acc + m * ldc, _mm512_add_ps(_mm512_loadu_ps(acc + m * ldc), _mm512_castsi512_ps(out[m])));
  } else {
    const __m512i column = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                              _mm512_set1_epi32(int(M)));
    for (int64_t m = 0; m < M; ++m) {
      const __m512 c = _mm512_i32gather_ps(_mm512_add_epi32(column, _mm512_set1_epi32(int(m))), ct, 4);
      _mm512_storeu_ps(acc + m * ldc, _mm512_add_ps(_mm512_loadu_ps(acc + m * ldc), c));
    }
  }
}

/// acc (M x N) += a (M x K) * b (N x K)^T for few rows of a, computed
/// transposed: per 16 rows of b, C^T (16 x M) = b (16 x K) * a^T. The long
/// operand b (the weights, a page of keys) is then an A tile, read by
/// tileloadd where it lies, and only a is packed, per call, into VNNI pairs
/// of its transpose. The 32-k steps alternate between two C^T tiles, so that
/// each product waits on half as many before it (a tile product's latency is
/// several times its issue interval). `shadow` (line_shadow): the lines of a
/// tile like b, fetched as each step's tile of b is read.
/// (vdpbf16ps runs at half the FMA rate on Sapphire Rapids: a 4-row
/// inner-product form computes 8 bytes of weights a cycle, less than memory
/// delivers.)
template <int64_t M, int64_t N, int64_t K, class Shadow = no_shadow>
__attribute__((target("amx-tile,amx-bf16,avx512f"))) void mma_bf16_amx_few_rows(float *acc, tile_ref<uint16_t> a,
                                                                                tile_ref<uint16_t> b,
                                                                                Shadow shadow = {}) {
  static_assert(M >= 1 && M <= 16 && N % 16 == 0 && K % 32 == 0, "up to 16 rows of a, N a multiple of 16, K of 32");
  constexpr int64_t KC = K / 32;
  alignas(64) uint32_t ap[KC][16][M]; /* B tiles: rows of 4M bytes */
  amx_pack_transposed_pairs<M, K>(&ap[0][0][0], a);
  alignas(64) float ct[2][16][M];
  amx_ensure_config(amx_few_rows_config<M>());
  const int64_t bStride = b.ld * 2;
  for (int64_t n0 = 0; n0 < N; n0 += 16) {
    const uint16_t *bn = b.data + n0 * b.ld;
    _tile_zero(0);
    if constexpr (KC > 1) _tile_zero(3);
    for (int64_t kc = 0; kc < KC; ++kc) {
      for (int64_t r = 0; r < 16; ++r) shadow.fetch(bn + r * b.ld + 32 * kc);
      _tile_loadd(2, &ap[kc][0][0], M * 4);
      if (kc % 2 == 0) {
        _tile_loadd(1, bn + 32 * kc, bStride);
        _tile_dpbf16ps(0, 1, 2);
      } else {
        _tile_loadd(4, bn + 32 * kc, bStride);
        _tile_dpbf16ps(3, 4, 2);
      }
    }
    _tile_stored(0, &ct[0][0][0], M * 4);
    if constexpr (KC > 1) { /* the two halves summed before the transpose */
      _tile_stored(3, &ct[1][0][0], M * 4);
      for (int64_t i = 0; i < M; ++i)
        _mm512_store_ps(&ct[0][0][0] + 16 * i,
                        _mm512_add_ps(_mm512_load_ps(&ct[0][0][0] + 16 * i), _mm512_load_ps(&ct[1][0][0] + 16 * i)));
    }
    amx_add_transposed<M>(acc + n0, N, &ct[0][0][0]);
  }
}

/// Whether a bf16 product with b a panel operand (pre-packed weights) takes
/// the few-rows AMX panels form: 2 to 15 rows, whole 32-column panels, whole
/// 32-k steps (16 rows and more: mma_bf16_amx_panels). One row stays on
/// vdpbf16ps, which streams it faster (1 x 768 x 2048 and 1 x 2048 x 768 on
/// AMX tiles of one row: 0.7-0.8x; 2 to 4 rows on them: 1.24-1.35x).
template <int64_t M, int64_t N, int64_t K> constexpr bool amx_few_rows_panels_fit() {
  return M >= 2 && M < 16 && N % 32 == 0 && K % 32 == 0;
}

/// amx_panel's tiles for M < 16 rows: C (0, 1) and a (4) of M rows, the
/// panel's two halves (6, 7) of 16 pair-rows; built once per M.
template <int64_t M> inline const amx_tile_config &amx_few_rows_panels_config() {
  static const amx_tile_config config = [] {
    amx_tile_config cfg;
    for (int t = 0; t < 8; ++t) cfg.rows[t] = t < 6 ? M : 16, cfg.colsb[t] = 64;
    return cfg;
  }();
  return config;
}

/// acc (M x N) += a (M x K) * b^T for few rows of a and b a panel operand:
/// a panel's pair-rows are already B tiles (VNNI), so amx_panel's last-16-rows
/// form runs with tiles of M rows, a read where it lies. Before, these went
/// to the vdpbf16ps streaming form (mma_bf16_vnni_panels), which computes at
/// half the FMA rate: pre-packed bf16 MoE experts of 2-4 rows ran 0.6x their
/// plain-weight AMX form. The configuration stays loaded (amx_ensure_config).
template <int64_t M, int64_t N, int64_t K>
__attribute__((target("amx-tile,amx-bf16,avx512f"))) void mma_bf16_amx_few_rows_panels(float *acc, tile_ref<uint16_t> a,
                                                                                      tile_ref<uint16_t> b) {
  static_assert(amx_few_rows_panels_fit<M, N, K>(), "2 to 15 rows of a, whole panels and 32-k steps");
  constexpr int64_t PW = 32;
  amx_ensure_config(amx_few_rows_panels_config<M>());
  for (int64_t n0 = 0; n0 < N; n0 += PW) {
    const uint32_t *bp = reinterpret_cast<const uint32_t *>(b.data + n0 / PW * b.ld);
    amx_panel<M, N, K>(acc, a, bp, n0, panel_fetch::contiguous(bp + K * PW, K * PW * 2));
  }
}

/// Whether a bf16 product with b laid out K x N (attention's p v: K tokens of
/// values) takes the AMX pairs form: up to 8 rows, whole 32-column chunks,
/// whole 16-row blocks of v.
template <int64_t M, int64_t N, int64_t K> constexpr bool amx_kn_pairs_fit() {
  return M >= 2 && M <= 8 && N % 32 == 0 && K % 16 == 0;
}

/// acc (M x N) = scale(acc) + a (M x K) * v (K x N), v's rows read in place as
/// B tiles: AMX pairs k, but v's rows hold columns side by side, so a tile
/// row of v (32 columns) is read as 16 column pairs against A rows that pair
/// each a[m][k] with 0 (rows 0..M-1: the even columns) or 0 with it (rows
/// M..2M-1: the odd ones). Half of the products are by zero, and none of v is
/// moved: a tile of 16 rows of v is one tileloadd where a VNNI copy would
/// interleave its rows first. Two 32-column chunks at a time, in two C tiles;
/// the epilogue interleaves even and odd columns as it adds them to acc,
/// scaled (row_scale) as it is read, by one fused multiply-add. `shadow`: the lines of a tile like v,
/// fetched as each chunk of v is read. The configuration of
/// amx_few_rows_config<M> (tiles 1 and 4 for v, 5 to 7 for a and C).
template <int64_t M, int64_t N, int64_t K, class Shadow = no_shadow, class Scale = no_scale>
__attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw"))) void
mma_bf16_amx_kn_pairs(float *acc, tile_ref<uint16_t> a, tile_ref<uint16_t> v, Shadow shadow = {}, Scale scale = {}) {
  static_assert(amx_kn_pairs_fit<M, N, K>(), "2 to 8 rows, 32-column chunks, 16-row blocks of v");
  constexpr int64_t KB = K / 16, NC = N / 32;
  alignas(64) uint32_t pairs[KB][2 * M][16]; /* A tiles: (a, 0) rows, then (0, a) */
  for (int64_t kb = 0; kb < KB; ++kb)
    for (int64_t m = 0; m < M; ++m) {
      const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(a.data + m * a.ld + 16 * kb)));
      _mm512_store_si512(pairs[kb][m], w);
      _mm512_store_si512(pairs[kb][M + m], _mm512_slli_epi32(w, 16));
    }
  amx_ensure_config(amx_few_rows_config<M>());
  alignas(64) float c[NC][2 * M][16];
  const int64_t vStride = v.ld * 2;
  if constexpr (KB == 1) _tile_loadd(5, &pairs[0][0][0], 64);
  for (int64_t j = 0; j < NC; j += 2) {
    const bool two = j + 1 < NC;
    for (int64_t r = 0; r < K; ++r) {
      shadow.fetch(v.data + r * v.ld + 32 * j);
      if (two) shadow.fetch(v.data + r * v.ld + 32 * (j + 1));
    }
    _tile_zero(6);
    if (two) _tile_zero(7);
    for (int64_t kb = 0; kb < KB; ++kb) {
      if constexpr (KB > 1) _tile_loadd(5, &pairs[kb][0][0], 64);
      _tile_loadd(1, v.data + 16 * kb * v.ld + 32 * j, vStride);
      _tile_dpbf16ps(6, 5, 1);
      if (two) {
        _tile_loadd(4, v.data + 16 * kb * v.ld + 32 * (j + 1), vStride);
        _tile_dpbf16ps(7, 5, 4);
      }
    }
    _tile_stored(6, &c[j][0][0], 64);
    if (two) _tile_stored(7, &c[j + 1][0][0], 64);
  }
  const __m512i low = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i high = _mm512_add_epi32(low, _mm512_set1_epi32(8));
  for (int64_t m = 0; m < M; ++m) {
    /* acc * by + sum in one rounding (the rows forms round the product first) */
    const __m512 by = _mm512_set1_ps(Scale::scales ? scale.rescale(1.0f, int(m)) : 1.0f);
    for (int64_t j = 0; j < NC; ++j) {
      const __m512i even = _mm512_load_si512(c[j][m]), odd = _mm512_load_si512(c[j][M + m]);
      float *row = acc + m * N + 32 * j;
      const __m512 lo = _mm512_castsi512_ps(_mm512_permutex2var_epi32(even, low, odd));
      const __m512 hi = _mm512_castsi512_ps(_mm512_permutex2var_epi32(even, high, odd));
      _mm512_storeu_ps(row, _mm512_fmadd_ps(_mm512_loadu_ps(row), by, lo));
      _mm512_storeu_ps(row + 16, _mm512_fmadd_ps(_mm512_loadu_ps(row + 16), by, hi));
    }
  }
}

#endif // ARGUS_CPU_HAVE_AMX

} // namespace detail
} // namespace argus_cpu

#endif // ARGUS_CPU_MMA_AMX_H
