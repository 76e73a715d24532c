/*===- argus_cpu_pack_avx512.h - packing b into k-major panels ------------===*
 *
 * Part of section 6 of argus_cpu_kernel.h, included by argus_cpu_mma.h (not
 * a standalone header). The plain (N x K) weights of a k-step are packed per
 * call into the panels the AVX-512 register blocks read: f32 panels of 16
 * or 32 columns, bf16 in VNNI pairs (16 x 16 register transposes).
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_PACK_AVX512_H
#define ARGUS_CPU_PACK_AVX512_H

#include "argus_cpu_transpose.h" /* transpose16x16, pack_panel32 */

namespace argus_cpu {
namespace detail {

#if defined(__AVX512F__)
inline __mmask16 lane_mask(int64_t n) {
  return n >= 16 ? __mmask16(0xffff) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1u);
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
