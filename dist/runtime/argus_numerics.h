/*===- argus_numerics.h - bf16 / f16 conversions, header-only ------------===*
 *
 * The one definition of how Argus rounds to 16-bit floats, shared by the
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

#ifdef __cplusplus
} /* namespace argus_num */
#endif
#undef ARGUS_NUM_INLINE

#endif /* ARGUS_NUMERICS_H */
