/*===- argus_cpu_kernel.h - what every generated CPU kernel includes -----===*
 *
 * The CPU backend (generator/lib/Backend/Cpu) turns an argus kernel into one
 * readable C++ translation unit. Everything that unit needs beyond plain C++
 * lives here, so the generated code reads like pseudocode:
 *
 *   ak::load<ak::bf16, 32, 128>(a, A, {row, koff}, 0.0);   // masked tile load
 *   ak::mma<ak::bf16, 32, 64, 128>(acc, a, b);              // acc += a * b^T
 *   ak::store<ak::f32, 32, 64>(out, C, {row, col});         // masked tile store
 *
 * Sections:
 *   1. element types   (storage type in memory, compute type in arithmetic)
 *   2. scalar helpers  (the arith ops C++ has no operator for; poison values
 *                       get the interpreter's documented results)
 *   3. element math    (exp, sigmoid, NaN-propagating max, ...)
 *   4. tile memory     (masked global load/store, fill, copy, iota, transpose,
 *                       load_ref: an mma operand read in place; tiles of
 *                       pre-packed PANELS tensors: argus_cpu_panels.h)
 *   5. reductions      (sum / max / min along one axis, keeping it as size 1)
 *   6. mma micro-kernels (argus_cpu_mma.h): AMX tiles, AVX512_BF16
 *                       vdpbf16ps (bf16), AVX-512 FMA (f32), on AVX2 the
 *                       inner-product form of short tiles (argus_cpu_mma_avx2.h),
 *                       portable C++ otherwise; the same header compiles with
 *                       -mavx512*, -mavx2 or no ISA flags at all.
 *
 * Every bf16/f16 conversion goes through argus_numerics.h: it is THE rounding
 * rule shared with the interpreter and the runtime.
 *
 * Tile storage: a tile of shape D0 x ... x Dn is a row-major array of
 * DT::storage (float, uint16_t for bf16/f16, int32_t, uint8_t for i1, ...).
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_KERNEL_H
#define ARGUS_CPU_KERNEL_H

#include "argus_cpu_abi.h"
#if __has_include("argus_numerics.h")
#include "argus_numerics.h"
#else
#include "../argus_numerics.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#if __has_include("argus_scalar_ops.h")
#include "argus_scalar_ops.h"
#else
#include "../argus_scalar_ops.h"
#endif

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

namespace argus_cpu {

/*===----------------------------------------------------------------------===*
 * 1. Element types
 *===----------------------------------------------------------------------===*/

/// f32: stored and computed as float.
struct f32 {
  using storage = float;
  using compute = float;
  static compute load(storage x) { return x; }
  static storage store(compute x) { return x; }
};
/// f64: stored and computed as double.
struct f64 {
  using storage = double;
  using compute = double;
  static compute load(storage x) { return x; }
  static storage store(compute x) { return x; }
};
/// bf16: stored as its 16 bits, computed in float, rounded on every store.
struct bf16 {
  using storage = uint16_t;
  using compute = float;
  static compute load(storage x) { return argus_num::bf16_to_f32(x); }
  static storage store(compute x) { return argus_num::f32_to_bf16(x); }
};
/// f16 (IEEE binary16): stored as its 16 bits, computed in float.
struct f16 {
  using storage = uint16_t;
  using compute = float;
  static compute load(storage x) { return argus_num::f16_to_f32(x); }
  static storage store(compute x) { return argus_num::f32_to_f16(x); }
};
/// Signed integers of each width (index is i64).
template <class T> struct int_type {
  using storage = T;
  using compute = T;
  static compute load(storage x) { return x; }
  static storage store(compute x) { return x; }
};
using i8 = int_type<int8_t>;
using i16 = int_type<int16_t>;
using i32 = int_type<int32_t>;
using i64 = int_type<int64_t>;
/// i1: one byte per element (0 or 1), computed as bool.
struct i1 {
  using storage = uint8_t;
  using compute = bool;
  static compute load(storage x) { return x != 0; }
  static storage store(compute x) { return x ? 1 : 0; }
};

/// Threads for the program-instance loop: the caller's bound, else OpenMP's default.
inline int thread_count(int requested) {
#ifdef _OPENMP
  return requested > 0 ? requested : omp_get_max_threads();
#else
  (void)requested;
  return 1;
#endif
}

/*===----------------------------------------------------------------------===*
 * 2. Scalar helpers (integer ops follow the interpreter's documented choices
 *    for what MLIR leaves as poison: x / 0 = 0 here instead of a trap)
 *===----------------------------------------------------------------------===*/

/// Rounds a float to the nearest bf16 / f16 value (the value stays a float).
inline float round_bf16(float x) { return argus_num::bf16_to_f32(argus_num::f32_to_bf16(x)); }
inline float round_f16(float x) { return argus_num::f16_to_f32(argus_num::f32_to_f16(x)); }

using namespace argus_scalar;

/*===----------------------------------------------------------------------===*
 * 3. Element math (overloaded on the compute type)
 *===----------------------------------------------------------------------===*/

/// Elementwise division: integers go through divsi (no trap on 0).
template <class T> inline T div(T a, T b) {
  if constexpr (std::is_floating_point<T>::value)
    return a / b;
  else
    return divsi(a, b);
}
template <class T> inline T pow(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    return std::pow(a, b);
  } else {
    if (b < 0) return a == 1 ? T(1) : (a == -1 ? T((b & 1) ? -1 : 1) : T(0));
    T r = 1;
    for (; b > 0; b = T(b >> 1), a = T(a * a))
      if (b & 1) r = T(r * a);
    return r;
  }
}
template <class T> inline T abs(T x) {
  if constexpr (std::is_floating_point<T>::value)
    return std::fabs(x);
  else
    return x < 0 ? T(unsigned_of<T>(0) - unsigned_of<T>(x)) : x;
}
/// e^x in single precision without a library call (exp_lanes below is the
/// same computation on a vector register, bit for bit): Cody-Waite reduction
/// x = n ln2 + r, |r| <= ln2/2, a degree-6 polynomial for e^r (Cephes'
/// coefficients) in fused multiply-adds (one instruction each where the
/// vector form runs: half the instructions of separate products and sums),
/// and 2^n built in the exponent bits. Within 2 ulp of expf over the normal
/// range; below ln(FLT_MIN) it returns 0 (the exact result is subnormal), above
/// ln(FLT_MAX) +inf, NaN stays NaN. Inputs are clamped to [ln(FLT_MIN), 89]:
/// past ln(FLT_MAX) = 88.7228 the product below overflows to inf by itself
/// (n = 128, e^r > 1), which spares the vector form a compare and a blend.
inline float exp(float x) {
  constexpr float lo = -87.33654f, hi = 89.0f; // ln(FLT_MIN); above ln(FLT_MAX), see above
  float xc = x < lo ? lo : x;
  xc = xc > hi ? hi : xc;
  const float n = std::nearbyint(xc * 1.44269504088896341f);
  float r = std::fma(-n, 0.693359375f, xc);
  r = std::fma(-n, -2.12194440e-4f, r);
  float p = std::fma(1.9875691500e-4f, r, 1.3981999507e-3f); /* unrolled: a loop over the */
  p = std::fma(p, r, 8.3334519073e-3f);                       /* coefficients stays a loop */
  p = std::fma(p, r, 4.1665795894e-2f);
  p = std::fma(p, r, 1.6666665459e-1f);
  p = std::fma(p, r, 5.0000001201e-1f);
  const float er = std::fma(p * r, r, r) + 1.0f;
  // er * 2^n with n in [-126, 128]: two exact factors, so n = 128 stays finite
  // and only the second product rounds (as one scaling by 2^n would).
  const int32_t ni = int32_t(n), half = ni / 2;
  float y = er * bitcast<float>(int32_t((half + 127) << 23)) * bitcast<float>(int32_t((ni - half + 127) << 23));
  y = x < lo ? 0.0f : y;
  return x != x ? x : y;
}
inline double exp(double x) { return std::exp(x); }
inline float exp2(float x) { return std::exp2(x); }
inline double exp2(double x) { return std::exp2(x); }
inline float log(float x) { return std::log(x); }
inline double log(double x) { return std::log(x); }
inline float sqrt(float x) { return std::sqrt(x); }
inline double sqrt(double x) { return std::sqrt(x); }
inline float rsqrt(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float tanh(float x) { return std::tanh(x); }
inline double tanh(double x) { return std::tanh(x); }
inline float recip(float x) { return 1.0f / x; }
inline double recip(double x) { return 1.0 / x; }
inline float sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }
inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline float silu(float x) { return x / (1.0f + exp(-x)); }
inline double silu(double x) { return x / (1.0 + std::exp(-x)); }

/// The vector registers exp_lanes computes on: 16 f32 lanes on AVX-512, 8 on
/// AVX2, one elsewhere (one algorithm, three widths). `where(m, a, b)` is a
/// where m holds, b elsewhere.
#if defined(__AVX512F__)
struct f32x16 {
  using reg = __m512;
  using mask = __mmask16;
  static constexpr int64_t lanes = 16;
  static reg set1(float x) { return _mm512_set1_ps(x); }
  static reg add(reg a, reg b) { return _mm512_add_ps(a, b); }
  static reg sub(reg a, reg b) { return _mm512_sub_ps(a, b); }
  static reg mul(reg a, reg b) { return _mm512_mul_ps(a, b); }
  static reg fma(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
  static reg div(reg a, reg b) { return _mm512_div_ps(a, b); }
  static reg min(reg a, reg b) { return _mm512_min_ps(a, b); }
  static reg max(reg a, reg b) { return _mm512_max_ps(a, b); }
  static reg round(reg x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  /// x * 2^n for integral n in [-126, 128], rounded once (vscalefps).
  static reg scale2(reg x, reg n) { return _mm512_scalef_ps(x, n); }
  /// scale2, 0 where `zero` holds: one zero-masked vscalefps.
  static reg scale2_or_zero(mask zero, reg x, reg n) { return _mm512_maskz_scalef_ps(mask(~zero), x, n); }
  /// c - a * b, rounded once.
  static reg fnma(reg a, reg b, reg c) { return _mm512_fnmadd_ps(a, b, c); }
  static mask lt(reg a, reg b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  static mask le(reg a, reg b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
  static mask gt(reg a, reg b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
  static mask ge(reg a, reg b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
  static mask eq(reg a, reg b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
  static mask ne(reg a, reg b) { return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ); }
  static reg bit_and(reg a, reg b) {
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
  }
  static reg bit_or(reg a, reg b) {
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
  }
  static mask unordered(reg a) { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
  static reg where(mask m, reg a, reg b) { return _mm512_mask_blend_ps(m, b, a); }
  static mask first(int64_t n) { return __mmask16((1u << n) - 1u); }
  static reg load(const float *p) { return _mm512_loadu_ps(p); }
  static reg load(const float *p, mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void store(float *p, reg v) { _mm512_storeu_ps(p, v); }
  static void store(float *p, reg v, mask m) { _mm512_mask_storeu_ps(p, m, v); }
  static bool any(mask m) { return m != 0; }
  static float reduce_add(reg v) { return _mm512_reduce_add_ps(v); }
  static float reduce_max(reg v) { return _mm512_reduce_max_ps(v); }
  static float reduce_min(reg v) { return _mm512_reduce_min_ps(v); }
  /// The first 4Q lanes (Q = 1, 2, 3) by plain 16- and 32-byte moves, the
  /// lanes past them undefined: a masked 64-byte load of what a 16-byte
  /// store just wrote is not forwarded from it and waits for the store to
  /// retire (decode's exp of its 4 row maxima: 2.5% of a page step).
  template <int Q> static reg load_quads(const float *p) {
    static_assert(Q >= 1 && Q <= 3, "one to three quads");
    if constexpr (Q == 1) return _mm512_castps128_ps512(_mm_loadu_ps(p));
    const reg low = _mm512_castps256_ps512(_mm256_loadu_ps(p));
    if constexpr (Q == 2) return low;
    else return _mm512_insertf32x4(low, _mm_loadu_ps(p + 8), 2);
  }
  template <int Q> static void store_quads(float *p, reg v) {
    static_assert(Q >= 1 && Q <= 3, "one to three quads");
    if constexpr (Q == 1) {
      _mm_storeu_ps(p, _mm512_castps512_ps128(v));
    } else {
      _mm256_storeu_ps(p, _mm512_castps512_ps256(v));
      if constexpr (Q == 3) _mm_storeu_ps(p + 8, _mm512_extractf32x4_ps(v, 2));
    }
  }
  /// argus_num::f32_to_bf16 on every lane: round to nearest even, NaN quiet.
  static void store_bf16(uint16_t *p, reg v) {
#if defined(__AVX512BF16__)
    /* vcvtneps2bf16 rounds alike but reads denormals as zero: only vectors
       without one take it */
    if (_mm512_fpclass_ps_mask(v, 0x20) == 0) {
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), (__m256i)_mm512_cvtneps_pbh(v));
      return;
    }
#endif
    const __m512i bits = _mm512_castps_si512(v);
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(bits, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))), 16);
    r = _mm512_mask_blend_epi32(unordered(v), r, _mm512_or_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(0x40)));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), _mm512_cvtepi32_epi16(r));
  }
  /// store_bf16 of a vector known to hold no denormal lane (exp_lanes'
  /// results: 0 or at least FLT_MIN): vcvtneps2bf16 without the check.
  static void store_bf16_normal(uint16_t *p, reg v) {
#if defined(__AVX512BF16__)
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), (__m256i)_mm512_cvtneps_pbh(v));
#else
    store_bf16(p, v);
#endif
  }
};
using f32xN = f32x16;

/// Lane i of the result: the 16 lanes of v[i] combined by `op` (add, max:
/// associative and commutative), by one transposing tree: ops on unpacked
/// pairs, then on 128-bit lane shuffles, 3 instructions a vector where a
/// horizontal reduction each takes 8 in a chain. Always inlined: in a large
/// caller (decode's instance function) GCC called it, and each block's 16
/// sums went through the stack on the way.
template <class Op> __attribute__((always_inline)) inline __m512 reduce_lanes16(const __m512 (&v)[16], Op op) {
  __m512 x[8], y[4];
  for (int i = 0; i < 8; ++i) /* per 128-bit lane: (v2i, v2i+1, v2i, v2i+1) pairs combined */
    x[i] = op(_mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]), _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]));
  for (int i = 0; i < 4; ++i) { /* per 128-bit lane: one partial result of each of v4i .. v4i+3 */
    const __m512d a = _mm512_castps_pd(x[2 * i]), b = _mm512_castps_pd(x[2 * i + 1]);
    y[i] = op(_mm512_castpd_ps(_mm512_unpacklo_pd(a, b)), _mm512_castpd_ps(_mm512_unpackhi_pd(a, b)));
  }
  /* across the four 128-bit lanes: lanes (0, 2) with (1, 3), twice */
  const __m512 w01 = op(_mm512_shuffle_f32x4(y[0], y[1], 0x88), _mm512_shuffle_f32x4(y[0], y[1], 0xdd));
  const __m512 w23 = op(_mm512_shuffle_f32x4(y[2], y[3], 0x88), _mm512_shuffle_f32x4(y[2], y[3], 0xdd));
  return op(_mm512_shuffle_f32x4(w01, w23, 0x88), _mm512_shuffle_f32x4(w01, w23, 0xdd));
}
#elif defined(__AVX2__) && defined(__FMA__)
struct f32x8 {
  using reg = __m256;
  using mask = __m256;
  static constexpr int64_t lanes = 8;
  static reg set1(float x) { return _mm256_set1_ps(x); }
  static reg add(reg a, reg b) { return _mm256_add_ps(a, b); }
  static reg sub(reg a, reg b) { return _mm256_sub_ps(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_ps(a, b); }
  static reg fma(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
  static reg div(reg a, reg b) { return _mm256_div_ps(a, b); }
  static reg min(reg a, reg b) { return _mm256_min_ps(a, b); }
  static reg max(reg a, reg b) { return _mm256_max_ps(a, b); }
  static reg round(reg x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  /// x * 2^n for integral n in [-126, 128], rounded once: two exact factors
  /// built in the exponent bits (AVX2 has no vscalefps).
  static reg scale2(reg x, reg n) {
    const __m256i ni = _mm256_cvtps_epi32(n), half = _mm256_srai_epi32(ni, 1), bias = _mm256_set1_epi32(127);
    const reg s0 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, bias), 23));
    const reg s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(ni, half), bias), 23));
    return _mm256_mul_ps(_mm256_mul_ps(x, s0), s1);
  }
  static reg scale2_or_zero(mask zero, reg x, reg n) { return where(zero, _mm256_setzero_ps(), scale2(x, n)); }
  static reg fnma(reg a, reg b, reg c) { return _mm256_fnmadd_ps(a, b, c); }
  static mask lt(reg a, reg b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static mask le(reg a, reg b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
  static mask gt(reg a, reg b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static mask ge(reg a, reg b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
  static mask eq(reg a, reg b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
  static mask ne(reg a, reg b) { return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ); }
  static reg bit_and(reg a, reg b) { return _mm256_and_ps(a, b); }
  static reg bit_or(reg a, reg b) { return _mm256_or_ps(a, b); }
  static mask unordered(reg a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
  static reg where(mask m, reg a, reg b) { return _mm256_blendv_ps(b, a, m); }
  static __m256i first(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static reg load(const float *p) { return _mm256_loadu_ps(p); }
  static reg load(const float *p, __m256i m) { return _mm256_maskload_ps(p, m); }
  static void store(float *p, reg v) { _mm256_storeu_ps(p, v); }
  static void store(float *p, reg v, __m256i m) { _mm256_maskstore_ps(p, m, v); }
  static bool any(mask m) { return _mm256_movemask_ps(m) != 0; }
  static float reduce_add(reg v) {
    __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    return _mm_cvtss_f32(_mm_add_ss(x, _mm_movehdup_ps(x)));
  }
  static float reduce_max(reg v) {
    __m128 x = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_max_ps(x, _mm_movehl_ps(x, x));
    return _mm_cvtss_f32(_mm_max_ss(x, _mm_movehdup_ps(x)));
  }
  static float reduce_min(reg v) {
    __m128 x = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_min_ps(x, _mm_movehl_ps(x, x));
    return _mm_cvtss_f32(_mm_min_ss(x, _mm_movehdup_ps(x)));
  }
  /// argus_num::f32_to_bf16 on every lane: round to nearest even, NaN quiet.
  static void store_bf16(uint16_t *p, reg v) {
    const __m256i bits = _mm256_castps_si256(v);
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(_mm256_add_epi32(bits, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff))), 16);
    const __m256i nan = _mm256_or_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x40));
    r = _mm256_blendv_epi8(r, nan, _mm256_castps_si256(unordered(v)));
    const __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(p), packed);
  }
  static void store_bf16_normal(uint16_t *p, reg v) { store_bf16(p, v); }
};
using f32xN = f32x8;
#else
/// No vector unit the kernels target: the same algorithms a lane at a time.
struct f32x1 {
  using reg = float;
  using mask = bool;
  static constexpr int64_t lanes = 1;
  static reg set1(float x) { return x; }
  static reg add(reg a, reg b) { return a + b; }
  static reg sub(reg a, reg b) { return a - b; }
  static reg mul(reg a, reg b) { return a * b; }
  static reg fma(reg a, reg b, reg c) { return std::fma(a, b, c); }
  static reg fnma(reg a, reg b, reg c) { return std::fma(-a, b, c); }
  static reg div(reg a, reg b) { return a / b; }
  static reg min(reg a, reg b) { return a < b ? a : b; } /* b where either is NaN, as vminps */
  static reg max(reg a, reg b) { return a > b ? a : b; }
  static reg round(reg x) { return std::nearbyint(x); }
  static reg scale2(reg x, reg n) {
    if (n != n) return n; /* NaN: no integer to convert it to */
    const int32_t ni = int32_t(n), half = ni / 2;
    return x * bitcast<float>(int32_t((half + 127) << 23)) * bitcast<float>(int32_t((ni - half + 127) << 23));
  }
  static mask lt(reg a, reg b) { return a < b; }
  static mask le(reg a, reg b) { return a <= b; }
  static mask gt(reg a, reg b) { return a > b; }
  static mask ge(reg a, reg b) { return a >= b; }
  static mask eq(reg a, reg b) { return a == b; }
  static mask ne(reg a, reg b) { return a != b; }
  static reg bit_and(reg a, reg b) { return bitcast<float>(bitcast<uint32_t>(a) & bitcast<uint32_t>(b)); }
  static reg bit_or(reg a, reg b) { return bitcast<float>(bitcast<uint32_t>(a) | bitcast<uint32_t>(b)); }
  static mask unordered(reg a) { return a != a; }
  static reg where(mask m, reg a, reg b) { return m ? a : b; }
  static reg scale2_or_zero(mask zero, reg x, reg n) { return zero ? 0.0f : scale2(x, n); }
  static mask first(int64_t n) { return n > 0; }
  static reg load(const float *p) { return *p; }
  static reg load(const float *p, mask m) { return m ? *p : 0.0f; }
  static void store(float *p, reg v) { *p = v; }
  static void store(float *p, reg v, mask m) {
    if (m) *p = v;
  }
  static bool any(mask m) { return m; }
  static float reduce_add(reg v) { return v; }
  static float reduce_max(reg v) { return v; }
  static float reduce_min(reg v) { return v; }
  static void store_bf16(uint16_t *p, reg v) { *p = argus_num::f32_to_bf16(v); }
  static void store_bf16_normal(uint16_t *p, reg v) { store_bf16(p, v); }
};
using f32xN = f32x1;
#endif

/// ak::exp on every lane of a register (V: f32x16, f32x8 or f32x1), the same
/// steps. NaN needs no blend of its own: max(lo, x) and min(hi, .) return
/// their second operand when either is NaN (as vmaxps and vminps do), and
/// every later step keeps it NaN. 16 instructions on AVX-512 where a blend
/// per special case took 22 (bf16 prefill's softmax: 11% of its time).
template <class V> inline typename V::reg exp_lanes(typename V::reg x) {
  using reg = typename V::reg;
  const reg lo = V::set1(-87.33654f), hi = V::set1(89.0f);
  const reg xc = V::min(hi, V::max(lo, x));
  const reg n = V::round(V::mul(xc, V::set1(1.44269504088896341f)));
  reg r = V::fnma(n, V::set1(0.693359375f), xc);
  r = V::fnma(n, V::set1(-2.12194440e-4f), r);
  reg p = V::fma(V::set1(1.9875691500e-4f), r, V::set1(1.3981999507e-3f));
  p = V::fma(p, r, V::set1(8.3334519073e-3f));
  p = V::fma(p, r, V::set1(4.1665795894e-2f));
  p = V::fma(p, r, V::set1(1.6666665459e-1f));
  p = V::fma(p, r, V::set1(5.0000001201e-1f));
  const reg er = V::add(V::fma(V::mul(p, r), r, r), V::set1(1.0f));
  return V::scale2_or_zero(V::lt(x, lo), er, n);
}

/// Unary functions with a vector form: scalar() is the function ak::
/// defines above, lanes<V>() the same steps on every lane of a register.
struct exp_fn {
  static float scalar(float x) { return exp(x); }
  template <class V> static typename V::reg lanes(typename V::reg x) { return exp_lanes<V>(x); }
};
struct silu_fn {
  static float scalar(float x) { return silu(x); }
  template <class V> static typename V::reg lanes(typename V::reg x) {
    return V::div(x, V::add(V::set1(1.0f), exp_lanes<V>(V::sub(V::set1(0.0f), x))));
  }
};
struct sigmoid_fn {
  static float scalar(float x) { return sigmoid(x); }
  template <class V> static typename V::reg lanes(typename V::reg x) {
    return V::div(V::set1(1.0f), V::add(V::set1(1.0f), exp_lanes<V>(V::sub(V::set1(0.0f), x))));
  }
};

/// dst[i] = Fn(src[i]) for the N elements of an f32 tile (dst may be src),
/// a register of lanes at a time where the target has vectors (a loop
/// calling the scalar function does not vectorise: softmax's exp would cost
/// as much as attention's two products).
template <class Fn, int64_t N> inline void map_tile(float *dst, const float *src) {
  using V = f32xN;
  constexpr int64_t tail = N % V::lanes, body = N - tail;
  for (int64_t i = 0; i < body; i += V::lanes) V::store(dst + i, Fn::template lanes<V>(V::load(src + i)));
  if constexpr (tail > 0) {
#if defined(__AVX512F__)
    if constexpr (tail % 4 == 0) { /* whole quads: unmasked moves (f32x16::load_quads) */
      V::store_quads<int(tail / 4)>(dst + body, Fn::template lanes<V>(V::load_quads<int(tail / 4)>(src + body)));
      return;
    }
#endif
    const auto m = V::first(tail);
    V::store(dst + body, Fn::template lanes<V>(V::load(src + body, m)), m);
  }
}
template <int64_t N> inline void exp_tile(float *dst, const float *src) { map_tile<exp_fn, N>(dst, src); }
template <int64_t N> inline void silu_tile(float *dst, const float *src) { map_tile<silu_fn, N>(dst, src); }
template <int64_t N> inline void sigmoid_tile(float *dst, const float *src) { map_tile<sigmoid_fn, N>(dst, src); }

/*  Row pipelines: the CPU emitter fuses a run of elementwise operations and
 *  last-axis reductions over one R x C f32 shape into one loop over rows,
 *  a register of columns at a time (EmitRowFusion.cpp); these are the lane
 *  forms it calls where a register instruction alone differs from ak::'s
 *  scalar semantics. */

/// ak::maximum / ak::minimum lane by lane: NaN propagates (a's first), and
/// -0 < +0 (for equal operands the bits of both: and / or).
template <class V> inline typename V::reg maximum_lanes(typename V::reg a, typename V::reg b) {
  const typename V::reg m = V::where(V::eq(a, b), V::bit_and(a, b), V::max(a, b)); /* b where either is NaN */
  return V::where(V::unordered(a), a, m);
}
template <class V> inline typename V::reg minimum_lanes(typename V::reg a, typename V::reg b) {
  const typename V::reg m = V::where(V::eq(a, b), V::bit_or(a, b), V::min(a, b));
  return V::where(V::unordered(a), a, m);
}

/// A row's sum, maximum or minimum, fed a register of its columns at a time;
/// maximum and minimum propagate NaN (as reduce_max / reduce_min). On
/// 16-lane registers, results16 gives 16 rows' results at once from their
/// accumulators (row_results).
template <class V> struct row_sum {
  using lanes_type = V;
  typename V::reg acc = V::set1(0.0f);
  void add(typename V::reg x) { acc = V::add(acc, x); }
  float result() const { return V::reduce_add(acc); }
#if defined(__AVX512F__)
  static void results16(const __m512 (&accs)[16], float *out) {
    _mm512_storeu_ps(out, reduce_lanes16(accs, [](__m512 a, __m512 b) { return _mm512_add_ps(a, b); }));
  }
#endif
};
template <class V, bool IsMax> struct row_extremum {
  using lanes_type = V;
  typename V::reg acc = V::set1(IsMax ? -INFINITY : INFINITY);
  /* vmaxps / vminps give their second operand where either is NaN: x's NaN
     enters, and one already in acc stays by the where. */
  void add(typename V::reg x) { acc = V::where(V::unordered(acc), acc, IsMax ? V::max(acc, x) : V::min(acc, x)); }
  float result() const {
    if (V::any(V::unordered(acc))) return std::numeric_limits<float>::quiet_NaN();
    return IsMax ? V::reduce_max(acc) : V::reduce_min(acc);
  }
#if defined(__AVX512F__)
  /* the tree's vmaxps / vminps would drop a NaN: rows holding one (one
     compare per two rows finds them) take result() */
  static void results16(const __m512 (&accs)[16], float *out) {
    __mmask16 nan = 0;
    for (int i = 0; i < 16; i += 2) nan |= _mm512_cmp_ps_mask(accs[i], accs[i + 1], _CMP_UNORD_Q);
    if (nan) {
      for (int i = 0; i < 16; ++i) out[i] = row_extremum{accs[i]}.result();
      return;
    }
    _mm512_storeu_ps(out, reduce_lanes16(accs, [](__m512 a, __m512 b) {
      return IsMax ? _mm512_max_ps(a, b) : _mm512_min_ps(a, b);
    }));
  }
#endif
};
template <class V> using row_max = row_extremum<V, true>;
template <class V> using row_min = row_extremum<V, false>;

/// out[r] for the R rows of a row loop, as each row's reducer (Red: row_sum,
/// row_max, row_min) finishes: put(r, red) in order of r. On 16-lane
/// registers the reducers of 16 rows are put aside and one tree reduces
/// them (results16) where a horizontal reduction a row was a chain of 8
/// dependent instructions (bf16 prefill: the row sums and maxima took 6% of
/// its time); rows past the last whole 16, and narrower registers, reduce
/// one by one.
template <class Red, int64_t R> class row_results {
public:
  explicit row_results(float *out) : out_(out) {}
  void put(int64_t r, const Red &red) {
#if defined(__AVX512F__)
    if constexpr (Red::lanes_type::lanes == 16 && R >= 16) {
      if (r < R / 16 * 16) {
        pending_[r % 16] = red.acc;
        if (r % 16 == 15) Red::results16(pending_, out_ + r - 15);
        return;
      }
    }
#endif
    out_[r] = red.result();
  }

private:
  float *out_;
#if defined(__AVX512F__)
  __m512 pending_[16];
#endif
};


/// Converts one element between element types: float results round to
/// nearest even, float -> integer truncates and saturates (NaN gives 0).
template <class To, class From> inline typename To::storage cast(typename From::storage x) {
  using CF = typename From::compute;
  using CT = typename To::compute;
  const CF v = From::load(x);
  if constexpr (std::is_same<CT, bool>::value) {
    return To::store(v != CF(0));
  } else if constexpr (std::is_floating_point<CT>::value) {
    if constexpr (std::is_same<CF, double>::value && !std::is_same<CT, double>::value)
      return To::store(CT(float(v))); /* f64 -> 16-bit floats go through f32 */
    else
      return To::store(CT(v));
  } else if constexpr (std::is_floating_point<CF>::value) {
    return To::store(fptosi<CT>(v));
  } else {
    return To::store(CT(v));
  }
}

/*===----------------------------------------------------------------------===*
 * 4. Tile memory
 *===----------------------------------------------------------------------===*/

template <int64_t N, class T> inline void fill(T *dst, T value) {
  for (int64_t i = 0; i < N; ++i) dst[i] = value;
}
/// dst <- src (N elements); a no-op when both name the same storage.
template <int64_t N, class T> inline void copy(T *dst, const T *src) {
  if (dst != src) std::memmove(dst, src, sizeof(T) * N);
}

namespace detail {

template <class S> inline void copy_row_in(S *dst, const S *src, int64_t n, int64_t stride) {
  if (stride == 1) {
    std::memcpy(dst, src, sizeof(S) * n);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i * stride];
  }
}
template <class S> inline void copy_row_out(S *dst, const S *src, int64_t n, int64_t stride) {
  if (stride == 1) {
    std::memcpy(dst, src, sizeof(S) * n);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i * stride] = src[i];
  }
}

/// dst[r * rs + c * cs] = src[r * COLS + c] for a dense ROWS x COLS tile
/// whose columns lie apart in the tensor (a transposed view: C^T of a
/// product computed transposed). Row by row, each row's stores would hit
/// one cache set (columns ldc apart); 16 x 16 blocks, rows innermost, write
/// runs along the tensor's own rows instead.
template <class S>
inline void copy_tile_out_strided(S *dst, int64_t rs, int64_t cs, const S *src, int64_t rows, int64_t cols) {
  constexpr int64_t B = 16;
  for (int64_t r0 = 0; r0 < rows; r0 += B)
    for (int64_t c0 = 0; c0 < cols; c0 += B) {
      const int64_t r1 = std::min(rows, r0 + B), c1 = std::min(cols, c0 + B);
      for (int64_t c = c0; c < c1; ++c)
        for (int64_t r = r0; r < r1; ++r) dst[r * rs + c * cs] = src[r * cols + c];
    }
}

/// True when the box [off, off + dims) lies inside the tensor.
template <int RANK>
inline bool box_inside(const argus_cpu_tensor &t, const int64_t *off, const int64_t *dims) {
  bool inside = true;
  for (int d = 0; d < RANK; ++d)
    inside = inside && off[d] >= 0 && off[d] <= t.shape[d] - dims[d];
  return inside;
}

/// Visits every row (all dimensions but the innermost) of a tile placed at
/// `off`: fn(row index, element offset of the row start in the tensor, row in bounds).
template <int RANK, class Fn>
inline void for_each_row(const argus_cpu_tensor &t, const int64_t *off, const int64_t *dims, Fn fn) {
  int64_t rows = 1;
  for (int d = 0; d < RANK - 1; ++d) rows *= dims[d];
  int64_t idx[RANK > 1 ? RANK - 1 : 1] = {0};
  for (int64_t r = 0; r < rows; ++r) {
    int64_t base = off[RANK - 1] * t.stride[RANK - 1];
    bool ok = true;
    for (int d = 0; d < RANK - 1; ++d) {
      const int64_t g = off[d] + idx[d];
      ok = ok && g >= 0 && g < t.shape[d];
      base += g * t.stride[d];
    }
    fn(r, base, ok);
    for (int d = RANK - 2; d >= 0; --d) { /* odometer over the outer dimensions */
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
}

} // namespace detail

/// One cache line towards cache LEVEL (1 = L1). Inline assembly on x86:
/// GCC 12 deletes __builtin_prefetch calls inside the row walk below as dead
/// code, which silently left every argus.prefetch without effect.
template <int LEVEL>
inline void prefetch_line(const char *p) {
  static_assert(LEVEL >= 1 && LEVEL <= 3, "cache levels 1 to 3");
#if defined(__x86_64__) || defined(__i386__)
  if constexpr (LEVEL == 1) asm volatile("prefetcht0 %0" ::"m"(*p));
  else if constexpr (LEVEL == 2) asm volatile("prefetcht1 %0" ::"m"(*p));
  else asm volatile("prefetcht2 %0" ::"m"(*p));
#else
  __builtin_prefetch(p, 0, 4 - LEVEL);
#endif
}

/// Calls visit(line) for every cache line (64-byte aligned address) that
/// the in-bounds part of the tile at `off` of `sizes` touches, in address
/// order within each run: a size of -1 spans its whole dimension (the offset
/// there is 0), and trailing dimensions dense in memory merge into one run,
/// so a whole page is one sweep rather than a row walk. (A run's lines may
/// repeat the previous run's last line.)
template <int ElementBytes, int RANK, class Visit>
inline void for_each_tile_line(const argus_cpu_tensor &t, const int64_t (&off)[RANK], const int64_t (&sizes)[RANK],
                               Visit visit) {
  int64_t lo[RANK], n[RANK]; /* the in-bounds box: an element is in bounds iff each coordinate is */
  for (int d = 0; d < RANK; ++d) {
    const int64_t size = sizes[d] < 0 ? t.shape[d] : sizes[d];
    lo[d] = std::max<int64_t>(off[d], 0);
    n[d] = std::min<int64_t>(off[d] + size, t.shape[d]) - lo[d];
    if (n[d] <= 0) return;
    if (t.stride[d] == 0) n[d] = 1; /* a broadcast dimension repeats the same lines */
  }
  int inner = RANK - 1;
  int64_t run = t.stride[RANK - 1] == 1 ? n[RANK - 1] : 1;
  if (t.stride[RANK - 1] != 1) ++inner; /* strided innermost: element by element */
  while (inner > 0 && t.stride[inner - 1] == run) run *= n[--inner];
  const int64_t runBytes = run * ElementBytes;
  const char *p = static_cast<const char *>(t.data); /* the current run's first byte */
  for (int d = 0; d < RANK; ++d) p += lo[d] * t.stride[d] * ElementBytes;
  int64_t idx[RANK] = {0};
  for (;;) {
    const char *line = reinterpret_cast<const char *>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(63));
    for (; line < p + runBytes; line += 64) visit(line);
    /* odometer over the dimensions outside the run, moving p with it */
    int d = inner - 1;
    for (; d >= 0 && ++idx[d] == n[d]; --d) {
      idx[d] = 0;
      p -= (n[d] - 1) * t.stride[d] * ElementBytes;
    }
    if (d < 0) return;
    p += t.stride[d] * ElementBytes;
  }
}

/// Software prefetch of the tile's lines (for_each_tile_line; argus.prefetch)
/// into cache LEVEL and the levels beyond it.
template <class DT, int LEVEL, int RANK>
inline void prefetch(const argus_cpu_tensor &t, const int64_t (&off)[RANK], const int64_t (&sizes)[RANK]) {
  if (t.layout == ARGUS_CPU_PANELS) return; /* a hint: weights packed once stream well without it */
  for_each_tile_line<int(sizeof(typename DT::storage))>(t, off, sizes,
                                                        [](const char *line) { prefetch_line<LEVEL>(line); });
}

/// An argus.prefetch that the product after it fetches as it goes (the
/// emitter pairs the prefetch with a later mma whose b operand has the tile's
/// shape: ak::mma(..., shadow)): as the product reads each 64 bytes of b, it
/// fetches the same 64 bytes of this tile, `delta` bytes further on. A decode
/// page's 64 lines fetched in one burst before its product queue behind each
/// other in the core's line-fill buffers while the product waits; spread
/// over it they overlap it. The lines go out at once instead (burst) when the
/// tile is not a window of rows (one run of bytes a row, rows evenly apart)
/// wholly in bounds, when its rows do not start on cache lines (a piece of b
/// would then span two lines of the tile: one fetch each would leave a line
/// a row behind), when the product cannot spread them (a form that does not,
/// or a b that does not lie with the tile's row pitch: a copy), and at the
/// end of the scope when no product took them.
template <int LEVEL> class tile_shadow {
public:
  /// `rows` runs of `rowBytes` bytes, `pitch` bytes apart, from `first`;
  /// rows 0: nothing left to fetch.
  tile_shadow(const char *first = nullptr, int64_t rows = 0, int64_t rowBytes = 0, int64_t pitch = 0)
      : first_(first), rows_(rows), rowBytes_(rowBytes), pitch_(pitch) {}
  tile_shadow(const tile_shadow &) = delete;
  tile_shadow &operator=(const tile_shadow &) = delete;
  ~tile_shadow() { burst(); }

  /// Hands the tile to a product whose b operand (ROWS x COLS elements of
  /// ElementBytes, rows `ld` apart, from `b`) lies like it: `delta` is then
  /// the distance from b to the tile. Otherwise its lines go out now. Either
  /// way they are taken, once.
  template <int64_t ROWS, int64_t COLS, int ElementBytes> bool take(const void *b, int64_t ld, std::ptrdiff_t &delta) {
    const bool onLines = reinterpret_cast<uintptr_t>(first_) % 64 == 0 && (ROWS == 1 || pitch_ % 64 == 0);
    if (rows_ == ROWS && rowBytes_ == COLS * ElementBytes && (ROWS == 1 || pitch_ == ld * ElementBytes) && onLines) {
      delta = first_ - static_cast<const char *>(b);
      rows_ = 0;
      return true;
    }
    burst();
    return false;
  }
  /// Fetches the lines not yet taken, now.
  void burst() {
    for_each_line([](const char *line) { prefetch_line<LEVEL>(line); });
    rows_ = 0;
  }
  /// Calls visit(line) for each cache line of the tile not yet taken.
  template <class Visit> void for_each_line(Visit visit) const {
    for (int64_t r = 0; r < rows_; ++r) {
      const char *run = first_ + r * pitch_;
      for (const char *line = reinterpret_cast<const char *>(reinterpret_cast<uintptr_t>(run) & ~uintptr_t(63));
           line < run + rowBytes_; line += 64)
        visit(line);
    }
  }

private:
  const char *first_;
  int64_t rows_, rowBytes_, pitch_;
};

/// argus.prefetch of a tile that the next product fetches (tile_shadow): a
/// window of rows wholly in bounds is handed over; any other tile is
/// prefetched now, as ak::prefetch does. Inlined: its checks then fold with
/// the tile's static sizes (out of line it was 2% of decode with pages in L2).
template <class DT, int LEVEL, int RANK>
__attribute__((always_inline)) inline tile_shadow<LEVEL> prefetch_shadow(const argus_cpu_tensor &t, const int64_t (&off)[RANK],
                                          const int64_t (&sizes)[RANK]) {
  constexpr int64_t bytes = int64_t(sizeof(typename DT::storage));
  int64_t n[RANK];
  bool rowsForm = t.layout != ARGUS_CPU_PANELS;
  const char *first = static_cast<const char *>(t.data);
  for (int d = 0; d < RANK; ++d) {
    n[d] = sizes[d] < 0 ? t.shape[d] : sizes[d];
    const int64_t at = sizes[d] < 0 ? 0 : off[d];
    rowsForm = rowsForm && n[d] > 0 && at >= 0 && at + n[d] <= t.shape[d];
    first += at * t.stride[d] * bytes;
  }
  /* trailing dimensions dense in memory make the row; one more may step the rows */
  int d = RANK - 1;
  int64_t run = 1;
  for (; d >= 0 && (n[d] == 1 || t.stride[d] == run); --d) run *= n[d];
  const int64_t rows = d >= 0 ? n[d] : 1, pitch = d >= 0 ? t.stride[d] * bytes : 0;
  for (int e = d - 1; e >= 0; --e) rowsForm = rowsForm && n[e] == 1;
  if (!rowsForm || (rows > 1 && pitch < run * bytes)) {
    prefetch<DT, LEVEL>(t, off, sizes);
    return {};
  }
  return {first, rows, run * bytes, pitch};
}

/// Rows [offsets[key], offsets[key + 1]) of `t` (argus.segment: sequence
/// `key` of a varlen batch), clamped to `t`, at most `limit` of them; no rows
/// for a key with no segment. Offset: `offsets`' element type.
template <int ElementBytes, class Offset>
inline argus_cpu_tensor segment(const argus_cpu_tensor &t, const argus_cpu_tensor &offsets, int64_t key,
                                int64_t limit = INT64_MAX) {
  int64_t start = 0, end = 0;
  if (key >= 0 && key + 1 < offsets.shape[0]) {
    const Offset *o = static_cast<const Offset *>(offsets.data);
    start = std::clamp<int64_t>(o[key * offsets.stride[0]], 0, t.shape[0]);
    end = std::clamp<int64_t>(o[(key + 1) * offsets.stride[0]], start, t.shape[0]);
    end = std::min(end, start + std::max<int64_t>(limit, 0));
  }
  argus_cpu_tensor s = t;
  s.data = static_cast<char *>(t.data) + start * t.stride[0] * ElementBytes;
  s.shape[0] = end - start;
  return s;
}

/// One element at `idx` as a scalar (argus.read). The verifier proves the
/// index in bounds; an index that is not (bad caller data) reads 0 here
/// rather than outside the tensor.
template <class DT, int RANK>
inline typename DT::compute read(const argus_cpu_tensor &t, const int64_t (&idx)[RANK]) {
  int64_t at = 0;
  for (int d = 0; d < RANK; ++d) {
    if (idx[d] < 0 || idx[d] >= t.shape[d]) return typename DT::compute(0);
    if (t.layout != ARGUS_CPU_PANELS || d < RANK - 2) at += idx[d] * t.stride[d];
  }
  if constexpr (RANK >= 2)
    if (t.layout == ARGUS_CPU_PANELS)
      at += argus_cpu_panel_offset(idx[RANK - 2], idx[RANK - 1], t.stride[RANK - 2], int64_t(sizeof(typename DT::storage)));
  return DT::load(static_cast<const typename DT::storage *>(t.data)[at]);
}

} // namespace argus_cpu

#include "argus_cpu_panels.h" /* section 4: tile_ref and tiles of PANELS tensors */
#include "argus_cpu_arena.h"  /* section 4: load_ref's copies off the stack */

namespace argus_cpu {

/// Masked load of the D0 x ... x Dn tile whose first element is at `off`:
/// out-of-bounds elements read `padding`. The bounds are checked once per
/// tile; a tile fully inside the tensor is a plain row-by-row copy.
template <class DT, int64_t... D>
inline void load(typename DT::storage *dst, const argus_cpu_tensor &t,
                 const int64_t (&off)[sizeof...(D)], double padding) {
  using S = typename DT::storage;
  constexpr int R = int(sizeof...(D));
  constexpr int64_t dims[R] = {D...};
  constexpr int64_t inner = dims[R - 1];
  const S *src = static_cast<const S *>(t.data);
  const int64_t cs = t.stride[R - 1];
  if constexpr (R >= 2) {
    if (t.layout == ARGUS_CPU_PANELS) {
      detail::gather_panels<S, R>(dst, t, off, dims, DT::store(typename DT::compute(padding)));
      return;
    }
  }
  if (detail::box_inside<R>(t, off, dims)) {
    if constexpr (R == 2) {
      for (int64_t r = 0; r < dims[0]; ++r)
        detail::copy_row_in(dst + r * inner, src + (off[0] + r) * t.stride[0] + off[1] * cs, inner, cs);
    } else {
      detail::for_each_row<R>(t, off, dims, [&](int64_t r, int64_t base, bool) {
        detail::copy_row_in(dst + r * inner, src + base, inner, cs);
      });
    }
    return;
  }
  const S pad = DT::store(typename DT::compute(padding));
  const int64_t c0 = off[R - 1];
  const int64_t lo = std::min<int64_t>(inner, std::max<int64_t>(0, -c0));
  const int64_t hi = std::max<int64_t>(lo, std::min<int64_t>(inner, t.shape[R - 1] - c0));
  detail::for_each_row<R>(t, off, dims, [&](int64_t r, int64_t base, bool ok) {
    S *row = dst + r * inner;
    if (!ok || lo == hi) {
      for (int64_t i = 0; i < inner; ++i) row[i] = pad;
      return;
    }
    for (int64_t i = 0; i < lo; ++i) row[i] = pad;
    detail::copy_row_in(row + lo, src + base + lo * cs, hi - lo, cs);
    for (int64_t i = hi; i < inner; ++i) row[i] = pad;
  });
}

namespace detail {

/// True when the box lies inside the tensor but for its last columns, which
/// reach past the end, and is at least 512 columns wide (a ragged window:
/// load_ref). Narrower tiles (prefill k-steps of 128 and 256) gather: their
/// chunks of 32 or 64 would pass over the accumulators more often than the
/// gather costs (f32, 256 x 64 x 128 tiles at K = 3000: 3-7% slower).
template <int RANK>
inline bool ragged_inside(const argus_cpu_tensor &t, const int64_t *off, const int64_t *dims) {
  bool inside = dims[RANK - 1] >= kRaggedColumns && off[RANK - 1] >= 0 && off[RANK - 1] < t.shape[RANK - 1];
  for (int d = 0; d + 1 < RANK; ++d)
    inside = inside && off[d] >= 0 && off[d] <= t.shape[d] - dims[d];
  return inside;
}

/// True when the box lies inside the tensor but for its last rows (along
/// `rowDim`), which reach past the end, at least one of them in bounds
/// (a window with ragged rows: load_ref).
template <int RANK>
inline bool rows_ragged_inside(const argus_cpu_tensor &t, const int64_t *off, const int64_t *dims, int rowDim) {
  bool inside = rowDim >= 0 && off[rowDim] >= 0 && off[rowDim] < t.shape[rowDim];
  for (int d = 0; d < RANK; ++d)
    inside = inside && (d == rowDim || (off[d] >= 0 && off[d] <= t.shape[d] - dims[d]));
  return inside;
}

/// The ragged window of a ROWS x COLS tile at `in` (rows `ld` apart) of
/// which the first `cols` columns are in bounds: read in place, but for the
/// last partial chunk, copied zero-padded into `scratch`.
template <class S, int64_t ROWS, int64_t COLS>
inline tile_ref<S> ragged_window(S *scratch, const S *in, int64_t ld, int64_t cols) {
  constexpr int64_t C = ragged_chunk(COLS);
  const int64_t full = cols / C * C;
  for (int64_t r = 0; r < ROWS && full < cols; ++r) {
    std::memcpy(scratch + r * C, in + r * ld + full, sizeof(S) * size_t(cols - full));
    std::memset(static_cast<void *>(scratch + r * C + (cols - full)), 0, sizeof(S) * size_t(C - (cols - full)));
  }
  return {in, ld, false, cols, scratch};
}

} // namespace detail

/// ak::load for a tile that only mma reads (possibly through a reshape that
/// drops unit dimensions or a transpose folded into ak::mma_kn). The tile has
/// at most one dimension besides the innermost that is not 1: its rows. It is
/// read in the tensor's own memory when it lies inside with unit inner stride
/// (16-bit elements also need an even row stride: the micro-kernels may read
/// them in pairs), or is a panel window of a PANELS tensor that this build's
/// mma computes from. When only its last columns reach past the tensor (the
/// last k-step of a K the step does not divide) and the padding is zero, it
/// is a ragged window: read in place too, mma computing only the columns in
/// bounds. When only its last rows do (the last row tile of M), it is read in
/// place with its in-bounds row count, and mma leaves the accumulator's rows
/// past them as they were (they would add zero rows). Else it is copied,
/// masked, into `scratch` (all its elements; a pointer, or an arena slot's
/// tag: argus_cpu_arena.h). The common case, a window
/// wholly inside a plain tensor, is inlined (load_ref_window); the others
/// are a call (decode attention calls load_ref twice a page: the call and
/// its checks were 2% of its time with the pages in L2).
namespace detail {
template <int64_t... D> constexpr int load_ref_rows();
template <class DT, int64_t... D>
tile_ref<typename DT::storage> load_ref_other(typename DT::storage *scratch, const argus_cpu_tensor &t,
                                              const int64_t (&off)[sizeof...(D)], double padding);
} // namespace detail

template <class DT, int64_t... D, class Scratch>
__attribute__((always_inline)) inline tile_ref<typename DT::storage>
load_ref(Scratch scratch, const argus_cpu_tensor &t, const int64_t (&off)[sizeof...(D)], double padding) {
  using S = typename DT::storage;
  constexpr int R = int(sizeof...(D));
  constexpr int64_t dims[R] = {D...};
  const int64_t ld = detail::load_ref_rows<D...>() < 0 ? dims[R - 1] : t.stride[detail::load_ref_rows<D...>()];
  if (t.layout != ARGUS_CPU_PANELS && t.stride[R - 1] == 1 && (sizeof(S) != 2 || ld % 2 == 0) &&
      detail::box_inside<R>(t, off, dims)) {
    int64_t at = 0;
    for (int d = 0; d < R; ++d) at += off[d] * t.stride[d];
    return {static_cast<const S *>(t.data) + at, ld};
  }
  return detail::load_ref_other<DT, D...>(detail::scratch_pointer(scratch), t, off, padding);
}

namespace detail {

/// load_ref's row dimension: the one dimension besides the innermost that
/// is not 1, or -1.
template <int64_t... D> constexpr int load_ref_rows() {
  constexpr int R = int(sizeof...(D));
  constexpr int64_t dims[R] = {D...};
  int row = -1;
  for (int d = 0; d + 1 < R; ++d)
    if (dims[d] != 1) row = d;
  return row;
}

/// load_ref of every tile but a plain window wholly inside its tensor.
template <class DT, int64_t... D>
__attribute__((noinline)) tile_ref<typename DT::storage> load_ref_other(typename DT::storage *scratch,
                                                                        const argus_cpu_tensor &t,
                                                                        const int64_t (&off)[sizeof...(D)],
                                                                        double padding) {
  using S = typename DT::storage;
  constexpr int R = int(sizeof...(D));
  constexpr int64_t dims[R] = {D...};
  constexpr int rowDim = load_ref_rows<D...>();
  static_assert([] {
    int rows = 0;
    for (int d = 0; d + 1 < R; ++d) rows += dims[d] != 1;
    return rows <= 1;
  }(), "load_ref: a tile of rows and columns (all other dimensions 1)");
  if constexpr (R >= 2 && detail::mma_reads_panels<DT>()) {
    tile_ref<S> window;
    if (t.layout == ARGUS_CPU_PANELS && rowDim == R - 2 &&
        (detail::panel_window<S, R>(scratch, t, off, dims, &window) || detail::panel_copy<S, R>(scratch, t, off, dims, &window)))
      return window;
  }
  const int64_t ld = rowDim < 0 ? dims[R - 1] : t.stride[rowDim];
  const bool pairsAligned = sizeof(S) != 2 || ld % 2 == 0;
  if (t.layout != ARGUS_CPU_PANELS && t.stride[R - 1] == 1 && pairsAligned) {
    int64_t at = 0;
    for (int d = 0; d < R; ++d) at += off[d] * t.stride[d];
    const S *in = static_cast<const S *>(t.data) + at;
    if (detail::box_inside<R>(t, off, dims)) return {in, ld};
    if (padding == 0.0 && detail::ragged_inside<R>(t, off, dims)) /* the last k-step of a K the step does not divide */
      return detail::ragged_window<S, rowDim < 0 ? 1 : dims[rowDim], dims[R - 1]>(scratch, in, ld,
                                                                                 t.shape[R - 1] - off[R - 1]);
    if (padding == 0.0 && detail::rows_ragged_inside<R>(t, off, dims, rowDim)) /* the last row tile of M (or N) */
      return {in, ld, false, -1, scratch, t.shape[rowDim] - off[rowDim]};
  }
  load<DT, D...>(scratch, t, off, padding);
  return {scratch, dims[R - 1], false, -1, scratch}; /* a copy: its scratch set (detail::keepable) */
}

} // namespace detail

/// Masked store of a tile at `off`: out-of-bounds elements are not written.
/// (PANELS tensors are packed weights: read-only, never a store's target.)
template <class DT, int64_t... D>
inline void store(const typename DT::storage *src, const argus_cpu_tensor &t,
                  const int64_t (&off)[sizeof...(D)]) {
  using S = typename DT::storage;
  constexpr int R = int(sizeof...(D));
  constexpr int64_t dims[R] = {D...};
  constexpr int64_t inner = dims[R - 1];
  S *dst = static_cast<S *>(t.data);
  const int64_t cs = t.stride[R - 1];
  if (detail::box_inside<R>(t, off, dims)) {
    if constexpr (R == 2) {
      if (cs != 1) {
        detail::copy_tile_out_strided(dst + off[0] * t.stride[0] + off[1] * cs, t.stride[0], cs, src, dims[0], inner);
        return;
      }
      for (int64_t r = 0; r < dims[0]; ++r)
        detail::copy_row_out(dst + (off[0] + r) * t.stride[0] + off[1] * cs, src + r * inner, inner, cs);
    } else {
      detail::for_each_row<R>(t, off, dims, [&](int64_t r, int64_t base, bool) {
        detail::copy_row_out(dst + base, src + r * inner, inner, cs);
      });
    }
    return;
  }
  const int64_t c0 = off[R - 1];
  const int64_t lo = std::min<int64_t>(inner, std::max<int64_t>(0, -c0));
  const int64_t hi = std::max<int64_t>(lo, std::min<int64_t>(inner, t.shape[R - 1] - c0));
  detail::for_each_row<R>(t, off, dims, [&](int64_t r, int64_t base, bool ok) {
    if (ok && lo < hi) detail::copy_row_out(dst + base + lo * cs, src + r * inner + lo, hi - lo, cs);
  });
}

/// Tile whose elements are their coordinate along dimension DIM (i32).
template <int DIM, int64_t... D> inline void iota(int32_t *dst) {
  constexpr int R = int(sizeof...(D));
  constexpr int64_t dims[R] = {D...};
  int64_t inner = 1, total = 1;
  for (int d = DIM + 1; d < R; ++d) inner *= dims[d];
  for (int d = 0; d < R; ++d) total *= dims[d];
  for (int64_t i = 0; i < total; ++i) dst[i] = int32_t((i / inner) % dims[DIM]);
}

/// dst (C x R) = transpose of src (R x C).
template <int64_t R, int64_t C, class T> inline void transpose(T *dst, const T *src) {
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) dst[c * R + r] = src[r * C + c];
}

/*===----------------------------------------------------------------------===*
 * 5. Reductions: the tile is viewed as PRE x AX x POST, reduced over AX.
 *    Sums accumulate in the compute type; max/min propagate NaN.
 *===----------------------------------------------------------------------===*/

template <class DT, int64_t PRE, int64_t AX, int64_t POST>
inline void reduce_sum(typename DT::storage *dst, const typename DT::storage *src) {
  using C = typename DT::compute;
  for (int64_t p = 0; p < PRE; ++p) {
    const typename DT::storage *in = src + p * AX * POST;
    if constexpr (POST == 1) {
      C acc = C(0);
#pragma omp simd reduction(+ : acc)
      for (int64_t a = 0; a < AX; ++a) acc += DT::load(in[a]);
      dst[p] = DT::store(acc);
    } else {
      C acc[POST];
      for (int64_t q = 0; q < POST; ++q) acc[q] = C(0);
      for (int64_t a = 0; a < AX; ++a)
        for (int64_t q = 0; q < POST; ++q) acc[q] += DT::load(in[a * POST + q]);
      for (int64_t q = 0; q < POST; ++q) dst[p * POST + q] = DT::store(acc[q]);
    }
  }
}

namespace detail {
template <class DT, int64_t PRE, int64_t AX, int64_t POST, bool IsMax>
inline void reduce_extremum(typename DT::storage *dst, const typename DT::storage *src) {
  using C = typename DT::compute;
  constexpr C init = IsMax ? (std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                                   : std::numeric_limits<C>::lowest())
                           : (std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity()
                                                                   : std::numeric_limits<C>::max());
  for (int64_t p = 0; p < PRE; ++p) {
    const typename DT::storage *in = src + p * AX * POST;
    if constexpr (POST == 1) {
      C m = init;
      int nan = 0;
      if constexpr (IsMax) {
#pragma omp simd reduction(max : m) reduction(| : nan)
        for (int64_t a = 0; a < AX; ++a) {
          const C x = DT::load(in[a]);
          nan |= (x != x);
          m = x > m ? x : m;
        }
      } else {
#pragma omp simd reduction(min : m) reduction(| : nan)
        for (int64_t a = 0; a < AX; ++a) {
          const C x = DT::load(in[a]);
          nan |= (x != x);
          m = x < m ? x : m;
        }
      }
      dst[p] = DT::store(nan ? std::numeric_limits<C>::quiet_NaN() : m);
    } else {
      C m[POST];
      for (int64_t q = 0; q < POST; ++q) m[q] = init;
      for (int64_t a = 0; a < AX; ++a)
        for (int64_t q = 0; q < POST; ++q) {
          const C x = DT::load(in[a * POST + q]);
          m[q] = IsMax ? maximum(m[q], x) : minimum(m[q], x);
        }
      for (int64_t q = 0; q < POST; ++q) dst[p * POST + q] = DT::store(m[q]);
    }
  }
}
} // namespace detail

template <class DT, int64_t PRE, int64_t AX, int64_t POST>
inline void reduce_max(typename DT::storage *dst, const typename DT::storage *src) {
  detail::reduce_extremum<DT, PRE, AX, POST, true>(dst, src);
}
template <class DT, int64_t PRE, int64_t AX, int64_t POST>
inline void reduce_min(typename DT::storage *dst, const typename DT::storage *src) {
  detail::reduce_extremum<DT, PRE, AX, POST, false>(dst, src);
}

} // namespace argus_cpu

#include "argus_cpu_mma_dot.h"  /* section 6: the inner-product form's blocking */
#include "argus_cpu_mma_avx2.h" /* section 6: the inner-product form on AVX2 */
#include "argus_cpu_mma.h"      /* section 6 */


#endif // ARGUS_CPU_KERNEL_H
