/*===- argus_numerics.h - bf16 / f16 / fp8 conversions, header-only ------===*
 *
 * The one definition of how Argus rounds to 16-bit floats and MI300's fp8, shared by the
 * interpreter (reference semantics), the generated CPU kernels and the
 * runtime. Rounding is to nearest, ties to even; NaN stays NaN.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_NUMERICS_H
#define ARGUS_NUMERICS_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
namespace argus_num {
#endif
#if defined(__CUDACC__) /* the CUDA kernels round the same way, on the device */
#define ARGUS_NUM_INLINE static inline __host__ __device__
#else
#define ARGUS_NUM_INLINE static inline
#endif

/* bfloat16: the top 16 bits of an IEEE f32. */
ARGUS_NUM_INLINE float bf16_to_f32(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

ARGUS_NUM_INLINE uint16_t f32_to_bf16(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it quiet and NaN */
    return (uint16_t)((bits >> 16) | 0x0040u);
  uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u); /* ties to even */
  return (uint16_t)((bits + rounding) >> 16);
}

/* IEEE binary16. */
ARGUS_NUM_INLINE float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { /* subnormal: normalise */
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        exp--;
      }
      mant &= 0x3ffu;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

ARGUS_NUM_INLINE uint16_t f32_to_f16(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t absBits = bits & 0x7fffffffu;
  if (absBits > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);   /* NaN */
  if (absBits >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);  /* overflow -> inf */
  if (absBits < 0x38800000u) {                                     /* subnormal or zero */
    if (absBits < 0x33000000u) return (uint16_t)sign;              /* below half the min */
    uint32_t exp = absBits >> 23;
    uint32_t mant = (absBits & 0x7fffffu) | 0x800000u;
    uint32_t s = 113 - exp + 13; /* total right shift of the 24-bit mantissa */
    uint32_t result = mant >> s;
    uint32_t rem = mant & ((1u << s) - 1);
    uint32_t halfway = 1u << (s - 1);
    if (rem > halfway || (rem == halfway && (result & 1u))) result++;
    return (uint16_t)(sign | result);
  }
  uint32_t rounded = absBits + 0xfffu + ((absBits >> 13) & 1u);
  return (uint16_t)(sign | ((rounded - 0x38000000u) >> 13));
}

/* E4M3FNUZ, the fp8 of MI300 (gfx942): value (-1)^s 2^(e-8) (1 + m/8), e = 0
 * subnormal m/8 2^-7; no infinities, no -0, 0x80 the only NaN. */
ARGUS_NUM_INLINE float fp8_e4m3fnuz_to_f32(uint8_t b) {
  uint32_t sign = (uint32_t)(b & 0x80u) << 24;
  uint32_t exp = (b >> 3) & 15u;
  uint32_t mant = b & 7u;
  uint32_t bits;
  if (b == 0x80u) {
    bits = 0x7fc00000u;
  } else if (exp == 0 && mant == 0) {
    bits = 0;
  } else {
    if (exp == 0) { /* subnormal: normalise */
      exp = 1;
      while ((mant & 8u) == 0) {
        mant <<= 1;
        exp--;
      }
      mant &= 7u;
    }
    bits = sign | ((exp + 127 - 8) << 23) | (mant << 20);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Nearest, ties to even; NaN and magnitudes from 248 on (past 240, the
 * largest) give NaN, as an unclamped conversion; what rounds to zero is +0. */
ARGUS_NUM_INLINE uint8_t f32_to_fp8_e4m3fnuz(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  uint32_t sign = (bits >> 24) & 0x80u;
  uint32_t absBits = bits & 0x7fffffffu;
  if (absBits >= 0x43780000u) return 0x80u; /* 248 and up, infinities and NaN */
  if (absBits < 0x3a000000u) return 0;       /* at most half the smallest subnormal, 2^-11 */
  uint32_t code;
  if (absBits < 0x3c000000u) { /* below 2^-7: subnormal, m quanta of 2^-10 */
    uint32_t mant = (absBits & 0x7fffffu) | 0x800000u;
    uint32_t s = 140 - (absBits >> 23); /* total right shift of the 24-bit mantissa */
    uint32_t rem = mant & ((1u << s) - 1), halfway = 1u << (s - 1);
    code = mant >> s;
    if (rem > halfway || (rem == halfway && (code & 1u))) code++;
  } else {
    uint32_t rounded = absBits + 0x7ffffu + ((absBits >> 20) & 1u);
    code = (rounded >> 20) - ((127u - 8u) << 3);
  }
  return (uint8_t)(code == 0 ? 0 : (sign | code));
}

#ifdef __cplusplus
} /* namespace argus_num */
#endif
#undef ARGUS_NUM_INLINE

#endif /* ARGUS_NUMERICS_H */
