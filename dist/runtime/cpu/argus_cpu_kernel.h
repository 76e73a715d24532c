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
 *   4. tile memory     (masked global load/store, fill, copy, iota, transpose)
 *   5. reductions      (sum / max / min along one axis, keeping it as size 1)
 *   6. mma micro-kernels: AVX-512 FMA (f32), AVX512_BF16 vdpbf16ps (bf16),
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
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

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

template <class T> using unsigned_of = typename std::make_unsigned<T>::type;

/// Truncating signed division; MIN / -1 wraps to MIN, x / 0 gives 0 (no trap).
template <class T> inline T divsi(T a, T b) {
  if (b == 0) return 0;
  if (b == T(-1)) return T(unsigned_of<T>(0) - unsigned_of<T>(a));
  return T(a / b);
}
template <class T> inline T remsi(T a, T b) {
  if (b == 0 || b == T(-1)) return 0;
  return T(a % b);
}
template <class T> inline T divui(T a, T b) {
  return b == 0 ? T(0) : T(unsigned_of<T>(a) / unsigned_of<T>(b));
}
template <class T> inline T remui(T a, T b) {
  return b == 0 ? T(0) : T(unsigned_of<T>(a) % unsigned_of<T>(b));
}
/// Division rounding toward +infinity / -infinity (arith.ceildivsi / floordivsi).
template <class T> inline T ceildivsi(T a, T b) {
  T q = divsi(a, b);
  if (b != 0 && T(a - T(q * b)) != 0 && ((a < 0) == (b < 0))) q = T(q + 1);
  return q;
}
template <class T> inline T floordivsi(T a, T b) {
  T q = divsi(a, b);
  if (b != 0 && T(a - T(q * b)) != 0 && ((a < 0) != (b < 0))) q = T(q - 1);
  return q;
}
template <class T> inline T minui(T a, T b) { return unsigned_of<T>(a) < unsigned_of<T>(b) ? a : b; }
template <class T> inline T maxui(T a, T b) { return unsigned_of<T>(a) > unsigned_of<T>(b) ? a : b; }
/// Shifts by >= the width give 0 (or -1 for an arithmetic shift of a negative value).
template <class T> inline T shli(T a, T b) {
  return (b < 0 || int64_t(b) >= int64_t(sizeof(T) * 8)) ? T(0) : T(unsigned_of<T>(a) << b);
}
template <class T> inline T shrsi(T a, T b) {
  if (b < 0 || int64_t(b) >= int64_t(sizeof(T) * 8)) return a < 0 ? T(-1) : T(0);
  return T(a >> b);
}
template <class T> inline T shrui(T a, T b) {
  return (b < 0 || int64_t(b) >= int64_t(sizeof(T) * 8)) ? T(0) : T(unsigned_of<T>(a) >> b);
}
/// Zero-extension of the bits of `a` (arith.extui / index_castui / uitofp).
template <class T> inline unsigned_of<T> zext(T a) { return unsigned_of<T>(a); }

/// Saturating float -> integer conversions; NaN gives 0 (arith.fptosi / fptoui).
template <class T, class F> inline T fptosi(F x) {
  if (x != x) return 0;
  if (x <= F(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (x >= F(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return T(x);
}
template <class T, class F> inline T fptoui(F x) {
  using U = unsigned_of<T>;
  if (x != x || x <= F(0)) return 0;
  if (x >= F(std::numeric_limits<U>::max())) return T(std::numeric_limits<U>::max());
  return T(U(x));
}

/// Reinterprets the bits of a scalar (arith.bitcast).
template <class To, class From> inline To bitcast(From x) {
  static_assert(sizeof(To) == sizeof(From), "bitcast needs equal widths");
  To y;
  std::memcpy(&y, &x, sizeof y);
  return y;
}

/*===----------------------------------------------------------------------===*
 * 3. Element math (overloaded on the compute type)
 *===----------------------------------------------------------------------===*/

/// IEEE maximum / minimum: NaN propagates, -0 < +0 (arith.maximumf, argus max).
template <class T> inline T maximum(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return std::signbit(a) ? b : a;
  }
  return a > b ? a : b;
}
template <class T> inline T minimum(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return std::signbit(a) ? a : b;
  }
  return a < b ? a : b;
}
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
/// e^x in single precision without a library call (exp_tile below is the
/// same computation 16 lanes at a time): Cody-Waite reduction x = n ln2 + r,
/// |r| <= ln2/2, a degree-6 polynomial for e^r (Cephes' coefficients), and
/// 2^n built in the exponent bits. Within 2 ulp of expf over the normal
/// range; below ln(FLT_MIN) it returns 0 (the exact result is subnormal), above
/// ln(FLT_MAX) +inf, NaN stays NaN.
inline float exp(float x) {
  constexpr float lo = -87.33654f, hi = 88.72283f; // ln(FLT_MIN), ln(FLT_MAX)
  float xc = x < lo ? lo : x;
  xc = xc > hi ? hi : xc;
  const float n = std::nearbyint(xc * 1.44269504088896341f);
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = p * r * r + r + 1.0f;
  // 2^n with n in [-126, 128]: two factors, so n = 128 stays finite.
  const int32_t ni = int32_t(n), half = ni / 2;
  float y = er * bitcast<float>(int32_t((half + 127) << 23)) * bitcast<float>(int32_t((ni - half + 127) << 23));
  y = x < lo ? 0.0f : y;
  y = x > hi ? INFINITY : y;
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

#if defined(__AVX512F__)
/// ak::exp on 16 lanes.
inline __m512 exp16(__m512 x) {
  const __m512 lo = _mm512_set1_ps(-87.33654f), hi = _mm512_set1_ps(88.72283f);
  const __m512 xc = _mm512_min_ps(_mm512_max_ps(x, lo), hi);
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_sub_ps(xc, _mm512_mul_ps(n, _mm512_set1_ps(0.693359375f)));
  r = _mm512_sub_ps(r, _mm512_mul_ps(n, _mm512_set1_ps(-2.12194440e-4f)));
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  for (float c : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f})
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(c));
  const __m512 er = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(p, r), r), r), _mm512_set1_ps(1.0f));
  const __m512i ni = _mm512_cvtps_epi32(n), half = _mm512_srai_epi32(ni, 1), bias = _mm512_set1_epi32(127);
  const __m512 s0 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(half, bias), 23));
  const __m512 s1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(ni, half), bias), 23));
  __m512 y = _mm512_mul_ps(_mm512_mul_ps(er, s0), s1);
  y = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, lo, _CMP_LT_OQ), y, _mm512_setzero_ps());
  y = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, hi, _CMP_GT_OQ), y, _mm512_set1_ps(INFINITY));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), y, x);
}
#endif

/// dst[i] = exp(src[i]) for the N elements of an f32 tile (dst may be src).
template <int64_t N> inline void exp_tile(float *dst, const float *src) {
  int64_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= N; i += 16) _mm512_storeu_ps(dst + i, exp16(_mm512_loadu_ps(src + i)));
  if (i < N) {
    const __mmask16 m = __mmask16((1u << (N - i)) - 1u);
    _mm512_mask_storeu_ps(dst + i, m, exp16(_mm512_maskz_loadu_ps(m, src + i)));
    return;
  }
#endif
  for (; i < N; ++i) dst[i] = exp(src[i]);
}

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

/// Software prefetch of the in-bounds rows of the tile at `off` of `dims`
/// (argus.prefetch): every cache line of each row, into all cache levels.
template <class DT, int RANK>
inline void prefetch(const argus_cpu_tensor &t, const int64_t (&off)[RANK], const int64_t (&dims)[RANK]) {
  constexpr int64_t elementBytes = sizeof(typename DT::storage);
  const int64_t first = std::max<int64_t>(off[RANK - 1], 0);
  const int64_t last = std::min<int64_t>(off[RANK - 1] + dims[RANK - 1], t.shape[RANK - 1]);
  if (first >= last) return;
  detail::for_each_row<RANK>(t, off, dims, [&](int64_t, int64_t base, bool inBounds) {
    if (!inBounds) return;
    const char *row = static_cast<const char *>(t.data) + (base + (first - off[RANK - 1]) * t.stride[RANK - 1]) * elementBytes;
    const int64_t bytes = (last - first) * t.stride[RANK - 1] * elementBytes;
    for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(row + b, 0, 3);
  });
}

/// One element at `idx` as a scalar (argus.read). The verifier proves the
/// index in bounds; an index that is not (bad caller data) reads 0 here
/// rather than outside the tensor.
template <class DT, int RANK>
inline typename DT::compute read(const argus_cpu_tensor &t, const int64_t (&idx)[RANK]) {
  int64_t at = 0;
  for (int d = 0; d < RANK; ++d) {
    if (idx[d] < 0 || idx[d] >= t.shape[d]) return typename DT::compute(0);
    at += idx[d] * t.stride[d];
  }
  return DT::load(static_cast<const typename DT::storage *>(t.data)[at]);
}

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

/// Masked store of a tile at `off`: out-of-bounds elements are not written.
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

/// Portable fallback (compiles anywhere; the inner loop auto-vectorises).
template <class DT, int64_t M, int64_t N, int64_t K>
inline void mma_portable(float *acc, const typename DT::storage *a, const typename DT::storage *b) {
  constexpr int64_t NB = N < 64 ? N : 64;
  alignas(64) float bt[K * NB];
  for (int64_t n0 = 0; n0 < N; n0 += NB) {
    const int64_t nb = std::min<int64_t>(NB, N - n0);
    for (int64_t j = 0; j < nb; ++j)
      for (int64_t k = 0; k < K; ++k) bt[k * NB + j] = float(DT::load(b[(n0 + j) * K + k]));
    for (int64_t m = 0; m < M; ++m) {
      float *c = acc + m * N + n0;
      for (int64_t k = 0; k < K; ++k) {
        const float av = float(DT::load(a[m * K + k]));
        const float *bk = bt + k * NB;
        for (int64_t j = 0; j < nb; ++j) c[j] += av * bk[j];
      }
    }
  }
}

#if defined(__AVX512F__)
constexpr int64_t kMR = 8; /* rows of acc per register block */

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
    int64_t c0 = 0;
    if (j0 + 16 <= nb)
      for (; c0 + 16 <= cols; c0 += 16) transpose16x16(m + (n0 + j0) * ld + c0, ld, panel + c0 * PW + j0, PW);
    for (int64_t c = c0; c < cols; ++c)
      for (int64_t j = j0; j < j0 + 16; ++j) panel[c * PW + j] = j < nb ? m[(n0 + j) * ld + c] : 0u;
  }
}

/// Loads the MR x (16*NV) accumulator block of c (row stride ldc); columns
/// past `nb` read as zero.
template <int MR, int NV> inline void load_acc(__m512 (&acc)[MR][NV], const float *c, int64_t ldc, int64_t nb) {
  const __mmask16 m0 = lane_mask(nb), m1 = lane_mask(nb - 16);
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    acc[r][0] = _mm512_maskz_loadu_ps(m0, c + r * ldc);
    if constexpr (NV == 2) acc[r][1] = _mm512_maskz_loadu_ps(m1, c + r * ldc + 16);
  }
}

/// Stores the block back; columns past `nb` are left untouched.
template <int MR, int NV> inline void store_acc(__m512 (&acc)[MR][NV], float *c, int64_t ldc, int64_t nb) {
  const __mmask16 m0 = lane_mask(nb), m1 = lane_mask(nb - 16);
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    _mm512_mask_storeu_ps(c + r * ldc, m0, acc[r][0]);
    if constexpr (NV == 2) _mm512_mask_storeu_ps(c + r * ldc + 16, m1, acc[r][1]);
  }
}

/// acc[MR x (16*NV)] += a[MR x K] * panel (PW wide); columns past `nb` masked off.
template <int MR, int NV, int64_t PW>
inline void f32_block(float *c, int64_t ldc, const float *a, int64_t lda, const float *bp, int64_t K,
                      int64_t nb) {
  __m512 acc[MR][NV];
  load_acc<MR, NV>(acc, c, ldc, nb);
  for (int64_t k = 0; k < K; ++k) {
    const __m512 b0 = _mm512_load_ps(bp + k * PW);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m512 av = _mm512_set1_ps(a[r * lda + k]);
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      if constexpr (NV == 2) acc[r][1] = _mm512_fmadd_ps(av, _mm512_load_ps(bp + k * PW + 16), acc[r][1]);
    }
  }
  store_acc<MR, NV>(acc, c, ldc, nb);
}

/// Runs `block<MR>` over all M rows: full kMR-row blocks, then the remainder.
template <class Block> inline void for_row_blocks(int64_t M, Block block) {
  int64_t m = 0;
  for (; m + kMR <= M; m += kMR) block(std::integral_constant<int, int(kMR)>(), m);
  switch (M - m) {
  case 7: block(std::integral_constant<int, 7>(), m); break;
  case 6: block(std::integral_constant<int, 6>(), m); break;
  case 5: block(std::integral_constant<int, 5>(), m); break;
  case 4: block(std::integral_constant<int, 4>(), m); break;
  case 3: block(std::integral_constant<int, 3>(), m); break;
  case 2: block(std::integral_constant<int, 2>(), m); break;
  case 1: block(std::integral_constant<int, 1>(), m); break;
  default: break;
  }
}

template <int64_t M, int64_t N, int64_t K>
inline void mma_f32_avx512(float *acc, const float *a, const float *b) {
  constexpr int64_t PW = N <= 16 ? 16 : 32; /* panel width: 1 or 2 zmm of columns */
  alignas(64) float bp[K * PW];
  for (int64_t n0 = 0; n0 < N; n0 += PW) {
    const int64_t nb = std::min<int64_t>(PW, N - n0);
    pack_panel32<PW>(reinterpret_cast<uint32_t *>(bp), reinterpret_cast<const uint32_t *>(b), K, K, n0, nb);
    for_row_blocks(M, [&](auto mr, int64_t m) {
      if (PW == 32 && nb > 16)
        f32_block<decltype(mr)::value, 2, PW>(acc + m * N + n0, N, a + m * K, K, bp, K, nb);
      else
        f32_block<decltype(mr)::value, 1, PW>(acc + m * N + n0, N, a + m * K, K, bp, K, nb);
    });
  }
}
#endif // __AVX512F__

#if defined(__AVX512F__) && defined(__AVX512BF16__)
/// acc[MR x (16*NV)] += a[MR x K] (bf16) * VNNI panel (pairs of k, PW wide).
template <int MR, int NV, int64_t PW>
inline void bf16_block(float *c, int64_t ldc, const uint16_t *a, int64_t lda, const uint32_t *bp, int64_t K,
                       int64_t nb) {
  __m512 acc[MR][NV];
  load_acc<MR, NV>(acc, c, ldc, nb);
  auto step = [&](const uint32_t *bk, auto pairOf) {
    const __m512bh b0 = (__m512bh)_mm512_load_si512(bk);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m512bh av = (__m512bh)_mm512_set1_epi32(int(pairOf(r)));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], av, b0);
      if constexpr (NV == 2) acc[r][1] = _mm512_dpbf16_ps(acc[r][1], av, (__m512bh)_mm512_load_si512(bk + 16));
    }
  };
  const int64_t KP = K / 2;
  for (int64_t kp = 0; kp < KP; ++kp)
    step(bp + kp * PW, [&](int r) {
      uint32_t pair;
      std::memcpy(&pair, a + r * lda + 2 * kp, sizeof pair);
      return pair;
    });
  if (K & 1) /* odd K: the last k pairs with a zero */
    step(bp + KP * PW, [&](int r) { return uint32_t(a[r * lda + K - 1]); });
  store_acc<MR, NV>(acc, c, ldc, nb);
}

template <int64_t M, int64_t N, int64_t K>
inline void mma_bf16_avx512(float *acc, const uint16_t *a, const uint16_t *b) {
  constexpr int64_t PW = N <= 16 ? 16 : 32;
  constexpr int64_t KP = (K + 1) / 2;
  alignas(64) uint32_t bp[KP * PW];
  for (int64_t n0 = 0; n0 < N; n0 += PW) {
    const int64_t nb = std::min<int64_t>(PW, N - n0);
    if constexpr (K % 2 == 0) {
      /* rows of b are rows of K/2 bf16 pairs: pack them as 32-bit elements */
      pack_panel32<PW>(bp, reinterpret_cast<const uint32_t *>(b), KP, KP, n0, nb);
    } else {
      for (int64_t j = 0; j < PW; ++j) {
        const uint16_t *brow = b + (n0 + j) * K;
        for (int64_t kp = 0; kp < KP; ++kp) {
          const bool hasHigh = 2 * kp + 1 < K;
          bp[kp * PW + j] = j >= nb ? 0u : uint32_t(brow[2 * kp]) | (hasHigh ? uint32_t(brow[2 * kp + 1]) << 16 : 0u);
        }
      }
    }
    for_row_blocks(M, [&](auto mr, int64_t m) {
      if (PW == 32 && nb > 16)
        bf16_block<decltype(mr)::value, 2, PW>(acc + m * N + n0, N, a + m * K, K, bp, K, nb);
      else
        bf16_block<decltype(mr)::value, 1, PW>(acc + m * N + n0, N, a + m * K, K, bp, K, nb);
    });
  }
}
#endif // __AVX512BF16__

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

/// acc (M x N) += a (M x K) * b (N x K)^T for M % 16 == 0, N % 32 == 0,
/// K % 32 == 0: per 32-column panel, 2 x 2 (or 1 x 2) C tiles stay in tile
/// registers over the whole K loop.
template <int64_t M, int64_t N, int64_t K>
__attribute__((target("amx-tile,amx-bf16"))) void mma_bf16_amx(float *acc, const uint16_t *a, const uint16_t *b) {
  static_assert(M % 16 == 0 && N % 32 == 0 && K % 32 == 0, "AMX tiles need 16-row, 32-column, 32-k multiples");
  constexpr int64_t KP = K / 2, PW = 32;
  alignas(64) uint32_t bp[KP * PW];
  alignas(64) amx_tile_config cfg;
  for (int t = 0; t < 8; ++t) cfg.rows[t] = 16, cfg.colsb[t] = 64;
  // GCC does not see ldtilecfg read the struct and may drop the stores above.
  __asm__ volatile("" : : "r"(&cfg) : "memory");
  _tile_loadconfig(&cfg);
  constexpr int64_t cStride = N * 4, aStride = K * 2, bStride = PW * 4;
  for (int64_t n0 = 0; n0 < N; n0 += PW) {
    pack_panel32<PW>(bp, reinterpret_cast<const uint32_t *>(b), KP, KP, n0, PW);
    for (int64_t m0 = 0; m0 < M; m0 += 32) {
      float *c = acc + m0 * N + n0;
      const uint16_t *am = a + m0 * K;
      if (m0 + 32 <= M) {
        _tile_loadd(0, c, cStride);
        _tile_loadd(1, c + 16, cStride);
        _tile_loadd(2, c + 16 * N, cStride);
        _tile_loadd(3, c + 16 * N + 16, cStride);
        for (int64_t k0 = 0; k0 < K; k0 += 32) {
          _tile_loadd(4, am + k0, aStride);
          _tile_loadd(5, am + 16 * K + k0, aStride);
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
          _tile_loadd(4, am + k0, aStride);
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
  _tile_release();
}
#endif // ARGUS_CPU_HAVE_AMX

} // namespace detail

/// acc (M x N, f32) += a (M x K) * b (N x K)^T, in place.
template <class DT, int64_t M, int64_t N, int64_t K>
inline void mma(float *acc, const typename DT::storage *a, const typename DT::storage *b) {
#if defined(__AVX512F__)
  if constexpr (std::is_same<DT, f32>::value) {
    detail::mma_f32_avx512<M, N, K>(acc, a, b);
    return;
  }
#if defined(ARGUS_CPU_HAVE_AMX)
  if constexpr (std::is_same<DT, bf16>::value && M % 16 == 0 && N % 32 == 0 && K % 32 == 0) {
    if (detail::amx_usable()) {
      detail::mma_bf16_amx<M, N, K>(acc, a, b);
      return;
    }
  }
#endif
#if defined(__AVX512BF16__)
  if constexpr (std::is_same<DT, bf16>::value) {
    detail::mma_bf16_avx512<M, N, K>(acc, a, b);
    return;
  }
#endif
  if constexpr (std::is_same<DT, bf16>::value || std::is_same<DT, f16>::value) {
    /* no native 16-bit dot product: widen both operands (exactly) to f32 */
    alignas(64) float af[M * K];
    alignas(64) float bf[N * K];
    for (int64_t i = 0; i < M * K; ++i) af[i] = DT::load(a[i]);
    for (int64_t i = 0; i < N * K; ++i) bf[i] = DT::load(b[i]);
    detail::mma_f32_avx512<M, N, K>(acc, af, bf);
    return;
  }
#endif
  detail::mma_portable<DT, M, N, K>(acc, a, b);
}

} // namespace argus_cpu

#endif // ARGUS_CPU_KERNEL_H
