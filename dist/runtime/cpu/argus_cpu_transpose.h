/*===- argus_cpu_transpose.h - 32-bit rows into k-major panels ------------===*
 *
 * The 16 x 16 register transpose that packs rows of 32-bit elements (f32, or
 * bf16 pairs) into k-major panels. Shared by the kernels (argus_cpu_pack_avx512.h,
 * b packed per call) and by the runtime (argus_packed_weights.cpp), which is
 * compiled without -mavx512f: the functions carry the target themselves, and
 * the runtime calls them only where its kernels were built for AVX-512.
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_TRANSPOSE_H
#define ARGUS_CPU_TRANSPOSE_H

#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ARGUS_CPU_HAVE_TRANSPOSE16 1

namespace argus_cpu {
namespace detail {

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push /* GCC 12 flags _mm512_undefined_*() in its own headers */
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// r[c] lane i = r[i] lane c before, for 16 vectors of 32-bit elements in
/// registers. Four shuffle stages: 32-bit pairs, 64-bit pairs, then 128-bit
/// lanes twice; u[4i+j] lane L holds column 4L+j of rows 4i..4i+3.
__attribute__((target("avx512f"), always_inline)) inline void transpose16x16_regs(__m512i (&r)[16]) {
  __m512i t[16];
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
    t[0 + j] = _mm512_shuffle_i32x4(v0, w0, 0x88);
    t[8 + j] = _mm512_shuffle_i32x4(v0, w0, 0xdd);
    t[4 + j] = _mm512_shuffle_i32x4(v1, w1, 0x88);
    t[12 + j] = _mm512_shuffle_i32x4(v1, w1, 0xdd);
  }
  for (int i = 0; i < 16; ++i) r[i] = t[i];
}

/// dst[c][r] = src[r][c] for a 16 x 16 block of 32-bit elements (strides in
/// elements; dst may be src).
__attribute__((target("avx512f"))) inline void transpose16x16(const void *src, int64_t lds, void *dst, int64_t ldd) {
  const uint32_t *s = static_cast<const uint32_t *>(src);
  uint32_t *d = static_cast<uint32_t *>(dst);
  __m512i r[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_si512(s + i * lds);
  transpose16x16_regs(r);
  for (int i = 0; i < 16; ++i) _mm512_storeu_si512(d + i * ldd, r[i]);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// Packs rows n0 .. n0+nb of a row-major matrix of 32-bit elements (rows of
/// `cols` elements, `ld` apart) k-major into a panel of width PW:
/// panel[c][j] = m[n0 + j][c], zero for j >= nb. Full 16 x 16 blocks are
/// transposed in registers, columns outside, the edges element by element;
/// both row groups of a column block go together, so a long panel's lines
/// are written once while in cache (the runtime packs whole weight rows).
template <int64_t PW>
__attribute__((target("avx512f"))) inline void pack_panel32(uint32_t *panel, const uint32_t *m, int64_t ld,
                                                            int64_t cols, int64_t n0, int64_t nb) {
  const int64_t blocked = cols / 16 * 16, fullGroups = (nb < PW ? nb : PW) / 16 * 16;
  for (int64_t c0 = 0; c0 < blocked; c0 += 16)
    for (int64_t j0 = 0; j0 < fullGroups; j0 += 16)
      transpose16x16(m + (n0 + j0) * ld + c0, ld, panel + c0 * PW + j0, PW);
  for (int64_t j0 = 0; j0 < PW; j0 += 16)
    for (int64_t c = j0 < fullGroups ? blocked : 0; c < cols; ++c)
      for (int64_t j = j0; j < j0 + 16; ++j) panel[c * PW + j] = j < nb ? m[(n0 + j) * ld + c] : 0u;
}

} // namespace detail
} // namespace argus_cpu

#endif // x86-64 GCC or Clang
#endif // ARGUS_CPU_TRANSPOSE_H
