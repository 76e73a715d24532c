//===- argus_checks.h - argument-checking vocabulary shared by all ops ----===//
//
// Each entry point validates its args struct before touching a pointer. The
// checks are the same few shapes everywhere (struct_size, a size that must
// be >= 0 or >= 1, a product that must not overflow int64, a pointer that
// must be non-NULL when what it points to is non-empty, a dtype name in a
// message), so they live here once and each op's validator reads as a list:
//
//   Checker check("argus_gemm");
//   if (auto s = check.nonNegative("m", a.m)) return s;
//   if (auto s = check.product("m*k", a.m, a.k)) return s;
//
// Every failing check records a message naming the function and the field,
// with the expected and the actual value, and returns
// ARGUS_ERROR_INVALID_ARGUMENT; a passing check returns ARGUS_OK (0), hence
// the `if (auto s = ...)` idiom. The tests are inline and the messages out of
// line (cold): a call pays a few compares, not a function call per field.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_CHECKS_H
#define ARGUS_RUNTIME_CHECKS_H

#include "argus_error.h"
#include "argus_kernels.h"

#include <cstddef>
#include <cstdint>

namespace argus_rt {

/// "f32", "f16", "bf16", "fp8_e4m3", or "dtype(<value>)" outside the enum.
const char *dtypeName(argus_dtype t);

/// Whether `t` is one of the argus_dtype enumerators.
inline bool isKnownDtype(argus_dtype t) {
  return t == ARGUS_DTYPE_F32 || t == ARGUS_DTYPE_F16 || t == ARGUS_DTYPE_BF16 ||
         t == ARGUS_DTYPE_FP8_E4M3;
}

/// Bytes per element (1, 2 or 4); 0 for a value outside the enum.
inline int64_t dtypeSize(argus_dtype t) {
  switch (t) {
  case ARGUS_DTYPE_F32:
    return 4;
  case ARGUS_DTYPE_F16:
  case ARGUS_DTYPE_BF16:
    return 2;
  case ARGUS_DTYPE_FP8_E4M3:
    return 1;
  }
  return 0;
}

/// a * b into *out; false when it overflows int64. @pre a, b >= 0.
inline bool mulNonNegative(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}

class Checker {
public:
  explicit Checker(const char *function) : function_(function) {}

  /// The struct is at least as large as the v1 struct this runtime knows.
  argus_status structSize(size_t got, size_t expected) const {
    return got >= expected ? ARGUS_OK : structTooSmall(got, expected);
  }
  /// value >= 0.
  argus_status nonNegative(const char *field, int64_t value) const {
    return value >= 0 ? ARGUS_OK : notAtLeast(field, value, nullptr, 0);
  }
  /// value >= 1.
  argus_status positive(const char *field, int64_t value) const {
    return value >= 1 ? ARGUS_OK : notAtLeast(field, value, nullptr, 1);
  }
  /// value >= minimum, e.g. "lda (3) must be >= k (5)".
  argus_status atLeast(const char *field, int64_t value, const char *minimumName, int64_t minimum) const {
    return value >= minimum ? ARGUS_OK : notAtLeast(field, value, minimumName, minimum);
  }
  /// The product of `count` non-negative factors fits in int64; `what`
  /// names it ("m*k"). The product is stored in *out when out != nullptr.
  argus_status product(const char *what, const int64_t *factors, int count, int64_t *out = nullptr) const {
    int64_t result = 1;
    for (int i = 0; i < count; ++i)
      if (!mulNonNegative(result, factors[i], &result)) return productOverflows(what, factors, count);
    if (out) *out = result;
    return ARGUS_OK;
  }
  argus_status product(const char *what, int64_t a, int64_t b, int64_t *out = nullptr) const {
    int64_t f[2] = {a, b};
    return product(what, f, 2, out);
  }
  /// ptr != NULL, unless `elements` == 0.
  argus_status pointer(const char *field, const void *ptr, int64_t elements) const {
    return ptr || elements == 0 ? ARGUS_OK : nullWithElements(field, elements);
  }
  /// A dtype enumerator at all (a value outside the enum is invalid).
  argus_status knownDtype(const char *field, argus_dtype t) const {
    return isKnownDtype(t) ? ARGUS_OK : unknownDtype(field, t);
  }

  /// Records "<function>: <message>" and returns `status`.
  argus_status fail(argus_status status, const char *format, ...) const
      __attribute__((format(printf, 3, 4)));

  const char *function() const { return function_; }

private:
  // The failures: record the message, return the status.
  [[gnu::cold]] argus_status structTooSmall(size_t got, size_t expected) const;
  [[gnu::cold]] argus_status notAtLeast(const char *field, int64_t value, const char *minimumName,
                                        int64_t minimum) const;
  [[gnu::cold]] argus_status productOverflows(const char *what, const int64_t *factors, int count) const;
  [[gnu::cold]] argus_status nullWithElements(const char *field, int64_t elements) const;
  [[gnu::cold]] argus_status unknownDtype(const char *field, argus_dtype t) const;

  const char *function_;
};

} // namespace argus_rt

#endif // ARGUS_RUNTIME_CHECKS_H
