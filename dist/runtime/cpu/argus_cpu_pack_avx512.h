/*===- argus_cpu_pack_avx512.h - packing b into k-major panels ------------===*
 *
 * Part of section 6 of argus_cpu_kernel.h, included by argus_cpu_mma.h (not
 * a standalone header). The plain (N x K) weights of a k-step are packed per
 * call into the panels the AVX-512 register blocks read: f32 panels of 16
 * or 32 columns, bf16 in VNNI pairs (16 x 16 register transposes).
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_PACK_AVX512_H
#define ARGUS_CPU_PACK_AVX512_H

namespace argus_cpu {
namespace detail {

#if defined(__AVX512F__)
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
#endif // __AVX512F__

} // namespace detail
} // namespace argus_cpu

#endif // ARGUS_CPU_PACK_AVX512_H
