//===- argus_gemm_validate.h - is an argus_gemm_args well-formed ----------===//
//
// The contract promises that bad arguments return an error with a message,
// never a crash; for GEMM that is this one function, run before the
// dispatcher looks at a single pointer. What it rejects, in order (the first
// failure wins, its message names the field):
//
//   args NULL; struct_size ending before b_packed (larger is accepted);
//   m, n, k < 0; m*k, n*k, m*n overflowing int64;
//   a_type/b_type/c_type outside the enum            -> INVALID_ARGUMENT
//   a supported dtype combination? (a=b=f32 -> f32;
//     a=b=bf16 -> bf16|f32; a=b=f16 -> f16|f32)       -> else UNSUPPORTED
//   lda < k, ldb < k, ldc < n; the byte extent of A, B or C overflowing;
//   a, b, c NULL while their matrix is non-empty      -> INVALID_ARGUMENT
// With b_packed (pre-packed weights) b and ldb are not read; whether the
// packed weights match is the target's to check (they may be device memory).
//
// alpha and beta may be any float, NaN and infinities included (BLAS).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_GEMM_VALIDATE_H
#define ARGUS_RUNTIME_GEMM_VALIDATE_H

#include "argus_kernels.h"

#include <cstddef>

namespace argus_rt {

/// The size of argus_gemm_args before b_packed: the smallest struct_size
/// accepted.
constexpr size_t kGemmArgsV1Size = offsetof(argus_gemm_args, b_packed);

/// args.b_packed, or NULL when struct_size ends before it.
inline const void *gemmPackedB(const argus_gemm_args &g) {
  return g.struct_size >= offsetof(argus_gemm_args, b_packed) + sizeof(g.b_packed) ? g.b_packed : nullptr;
}

/// Whether the runtime serves (a_type, b_type) -> c_type at all.
bool gemmDtypesSupported(argus_dtype a, argus_dtype b, argus_dtype c);

/// ARGUS_OK when `args` describes a valid GEMM; otherwise the status, with
/// "<function>: <what is wrong>" recorded as the last error.
argus_status validateGemm(const argus_gemm_args *args, const char *function);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_GEMM_VALIDATE_H
