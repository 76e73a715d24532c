//===- argus_error.h - thread-local errors and the ABI exception guard ----===//
//
// Every C entry point reports failure the same way: a status code plus a
// message in a thread-local buffer that argus_last_error() returns. This file
// owns that buffer and the two helpers every entry point uses:
//
//   return argus_rt::fail(ARGUS_ERROR_INVALID_ARGUMENT,
//                         "argus_gemm: lda (%lld) must be >= k (%lld)", lda, k);
//
//   argus_status argus_gemm(const argus_gemm_args *a, void *s) {
//     return argus_rt::guard("argus_gemm", [&] { return gemmImpl(a, s); });
//   }
//
// `guard` is the only place exceptions stop: anything thrown below an entry
// point (std::bad_alloc, a bug) becomes ARGUS_ERROR_INTERNAL with a message,
// never an exception crossing the C boundary.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_ERROR_H
#define ARGUS_RUNTIME_ERROR_H

#include "argus_kernels.h"

#include <exception>

namespace argus_rt {

/// Capacity of the per-thread message buffer, terminator included; longer
/// messages are truncated (they end in "...").
constexpr int kMaxErrorLength = 1024;

/// Formats the message into the calling thread's buffer and returns `status`.
/// @pre status != ARGUS_OK.
argus_status fail(argus_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// The calling thread's message ("" when nothing failed on this thread).
const char *lastError();

/// Runs `body` (returning argus_status); converts any exception into
/// ARGUS_ERROR_INTERNAL naming `function`.
template <typename Body>
argus_status guard(const char *function, Body &&body) noexcept {
  try {
    return body();
  } catch (const std::exception &e) {
    return fail(ARGUS_ERROR_INTERNAL, "%s: internal error: %s", function, e.what());
  } catch (...) {
    return fail(ARGUS_ERROR_INTERNAL, "%s: internal error: unknown exception", function);
  }
}

} // namespace argus_rt

#endif // ARGUS_RUNTIME_ERROR_H
