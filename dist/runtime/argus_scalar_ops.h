/*===- argus_scalar_ops.h - the arith ops C++ has no operator for ---------===*
 *
 * Generated kernels spell arith ops on scalars as C++ operators where those
 * mean the same thing and as these helpers where they do not: what MLIR
 * leaves as poison gets the interpreter's documented result (x / 0 = 0, no
 * trap; shifts past the width; saturating float -> integer conversions;
 * NaN-propagating maximum). One header for every backend: the CPU's kernels
 * (argus_cpu_kernel.h) and the GPU ones (argus_gpu_tile.h, where each helper
 * is a host-and-device function) read `ak::divsi(...)` the same way.
 *
 * Only compiler builtins, no libm: a HIP device compile has no device libs.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_SCALAR_OPS_H
#define ARGUS_SCALAR_OPS_H

#include <stdint.h>

#include <limits>
#include <type_traits>

#if defined(__HIP__) || defined(__CUDACC__)
#define ARGUS_SCALAR_FN __attribute__((host, device)) inline
#else
#define ARGUS_SCALAR_FN inline
#endif

namespace argus_scalar {

template <class T> using unsigned_of = typename std::make_unsigned<T>::type;

/// Truncating signed division; MIN / -1 wraps to MIN, x / 0 gives 0 (no trap).
template <class T> ARGUS_SCALAR_FN T divsi(T a, T b) {
  if (b == 0) return 0;
  if (b == T(-1)) return T(unsigned_of<T>(0) - unsigned_of<T>(a));
  return T(a / b);
}
template <class T> ARGUS_SCALAR_FN T remsi(T a, T b) {
  if (b == 0 || b == T(-1)) return 0;
  return T(a % b);
}
template <class T> ARGUS_SCALAR_FN T divui(T a, T b) {
  return b == 0 ? T(0) : T(unsigned_of<T>(a) / unsigned_of<T>(b));
}
template <class T> ARGUS_SCALAR_FN T remui(T a, T b) {
  return b == 0 ? T(0) : T(unsigned_of<T>(a) % unsigned_of<T>(b));
}
/// Division rounding toward +infinity / -infinity (arith.ceildivsi / floordivsi).
template <class T> ARGUS_SCALAR_FN T ceildivsi(T a, T b) {
  T q = divsi(a, b);
  if (b != 0 && T(a - T(q * b)) != 0 && ((a < 0) == (b < 0))) q = T(q + 1);
  return q;
}
template <class T> ARGUS_SCALAR_FN T floordivsi(T a, T b) {
  T q = divsi(a, b);
  if (b != 0 && T(a - T(q * b)) != 0 && ((a < 0) != (b < 0))) q = T(q - 1);
  return q;
}
/// Signed min / max (std::min is not a device function).
template <class T> ARGUS_SCALAR_FN T minsi(T a, T b) { return a < b ? a : b; }
template <class T> ARGUS_SCALAR_FN T maxsi(T a, T b) { return a > b ? a : b; }
template <class T> ARGUS_SCALAR_FN T minui(T a, T b) { return unsigned_of<T>(a) < unsigned_of<T>(b) ? a : b; }
template <class T> ARGUS_SCALAR_FN T maxui(T a, T b) { return unsigned_of<T>(a) > unsigned_of<T>(b) ? a : b; }
/// Shifts by >= the width give 0 (or -1 for an arithmetic shift of a negative value).
template <class T> ARGUS_SCALAR_FN T shli(T a, T b) {
  return (b < 0 || int64_t(b) >= int64_t(sizeof(T) * 8)) ? T(0) : T(unsigned_of<T>(a) << b);
}
template <class T> ARGUS_SCALAR_FN T shrsi(T a, T b) {
  if (b < 0 || int64_t(b) >= int64_t(sizeof(T) * 8)) return a < 0 ? T(-1) : T(0);
  return T(a >> b);
}
template <class T> ARGUS_SCALAR_FN T shrui(T a, T b) {
  return (b < 0 || int64_t(b) >= int64_t(sizeof(T) * 8)) ? T(0) : T(unsigned_of<T>(a) >> b);
}
/// Zero-extension of the bits of `a` (arith.extui / index_castui / uitofp).
template <class T> ARGUS_SCALAR_FN unsigned_of<T> zext(T a) { return unsigned_of<T>(a); }

/// Saturating float -> integer conversions; NaN gives 0 (arith.fptosi / fptoui).
template <class T, class F> ARGUS_SCALAR_FN T fptosi(F x) {
  if (x != x) return 0;
  if (x <= F(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (x >= F(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return T(x);
}
template <class T, class F> ARGUS_SCALAR_FN T fptoui(F x) {
  using U = unsigned_of<T>;
  if (x != x || x <= F(0)) return 0;
  if (x >= F(std::numeric_limits<U>::max())) return T(std::numeric_limits<U>::max());
  return T(U(x));
}

/// Reinterprets the bits of a scalar (arith.bitcast).
template <class To, class From> ARGUS_SCALAR_FN To bitcast(From x) {
  static_assert(sizeof(To) == sizeof(From), "bitcast needs equal widths");
  return __builtin_bit_cast(To, x);
}

/// IEEE maximum / minimum: NaN propagates, -0 < +0 (arith.maximumf, argus
/// max). Selects, not branches: on a GPU a branch per element diverges.
template <class T> ARGUS_SCALAR_FN T maximum(T a, T b) {
  T m = a > b ? a : b;
  if constexpr (std::is_floating_point<T>::value) {
    m = a == b ? (__builtin_signbit(a) ? b : a) : m;
    m = b != b ? b : m;
    m = a != a ? a : m;
  }
  return m;
}
template <class T> ARGUS_SCALAR_FN T minimum(T a, T b) {
  T m = a < b ? a : b;
  if constexpr (std::is_floating_point<T>::value) {
    m = a == b ? (__builtin_signbit(a) ? a : b) : m;
    m = b != b ? b : m;
    m = a != a ? a : m;
  }
  return m;
}
/// maxNum / minNum / fmod of libm (arith.maxnumf / minnumf / remf): the
/// compiler's builtins, which are libm's calls on the host and single
/// instructions (or an expansion) on the GPU.
template <class T> ARGUS_SCALAR_FN T maxnum(T a, T b) {
  if constexpr (std::is_same<T, float>::value) return __builtin_fmaxf(a, b);
  else return __builtin_fmax(a, b);
}
template <class T> ARGUS_SCALAR_FN T minnum(T a, T b) {
  if constexpr (std::is_same<T, float>::value) return __builtin_fminf(a, b);
  else return __builtin_fmin(a, b);
}
template <class T> ARGUS_SCALAR_FN T fmod(T a, T b) {
  if constexpr (std::is_same<T, float>::value) return __builtin_fmodf(a, b);
  else return __builtin_fmod(a, b);
}

} // namespace argus_scalar

#endif /* ARGUS_SCALAR_OPS_H */
