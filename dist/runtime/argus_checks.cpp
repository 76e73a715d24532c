//===- argus_checks.cpp - the messages of the shared argument checks ------===//
#include "argus_checks.h"

#include <cstdarg>
#include <cstdio>

namespace argus_rt {

const char *dtypeName(argus_dtype t) {
  switch (t) {
  case ARGUS_DTYPE_F32:
    return "f32";
  case ARGUS_DTYPE_F16:
    return "f16";
  case ARGUS_DTYPE_BF16:
    return "bf16";
  case ARGUS_DTYPE_FP8_E4M3:
    return "fp8_e4m3";
  }
  // Out-of-enum values: one static name per thread is enough for a message.
  thread_local char buffer[32];
  std::snprintf(buffer, sizeof buffer, "dtype(%d)", static_cast<int>(t));
  return buffer;
}

argus_status Checker::fail(argus_status status, const char *format, ...) const {
  char body[kMaxErrorLength];
  va_list args;
  va_start(args, format);
  std::vsnprintf(body, sizeof body, format, args);
  va_end(args);
  return argus_rt::fail(status, "%s: %s", function_, body);
}

argus_status Checker::structTooSmall(size_t got, size_t expected) const {
  return fail(ARGUS_ERROR_INVALID_ARGUMENT,
              "struct_size (%zu) must be >= sizeof the v1 args struct (%zu); set it to "
              "sizeof(the struct)",
              got, expected);
}

argus_status Checker::notAtLeast(const char *field, int64_t value, const char *minimumName,
                                 int64_t minimum) const {
  if (!minimumName)
    return fail(ARGUS_ERROR_INVALID_ARGUMENT, "%s (%lld) must be >= %lld", field, static_cast<long long>(value),
                static_cast<long long>(minimum));
  return fail(ARGUS_ERROR_INVALID_ARGUMENT, "%s (%lld) must be >= %s (%lld)", field,
              static_cast<long long>(value), minimumName, static_cast<long long>(minimum));
}

argus_status Checker::productOverflows(const char *what, const int64_t *factors, int count) const {
  char values[256];
  int used = 0;
  for (int j = 0; j < count && used < static_cast<int>(sizeof values); ++j)
    used += std::snprintf(values + used, sizeof values - used, "%s%lld", j ? " * " : "",
                          static_cast<long long>(factors[j]));
  return fail(ARGUS_ERROR_INVALID_ARGUMENT, "%s (%s) overflows int64", what, values);
}

argus_status Checker::nullWithElements(const char *field, int64_t elements) const {
  return fail(ARGUS_ERROR_INVALID_ARGUMENT, "%s is NULL but has %lld elements", field,
              static_cast<long long>(elements));
}

argus_status Checker::unknownDtype(const char *field, argus_dtype t) const {
  return fail(ARGUS_ERROR_INVALID_ARGUMENT,
              "%s (%d) is not an argus_dtype (expected 0=f32, 1=f16, 2=bf16, 3=fp8_e4m3)", field,
              static_cast<int>(t));
}

} // namespace argus_rt
