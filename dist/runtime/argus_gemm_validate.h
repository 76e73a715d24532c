//===- argus_gemm_validate.h - is an argus_gemm_args well-formed ----------===//
//
// The contract promises that bad arguments return an error with a message,
// never a crash; for GEMM that is this one function, run before the
// dispatcher looks at a single pointer. What it rejects, in order (the first
// failure wins, its message names the field):
//
//   args NULL; struct_size < sizeof(argus_gemm_args) (larger is accepted);
//   m, n, k < 0; m*k, n*k, m*n overflowing int64;
//   a_type/b_type/c_type outside the enum            -> INVALID_ARGUMENT
//   a supported dtype combination? (a=b=f32 -> f32;
//     a=b=bf16 -> bf16|f32; a=b=f16 -> f16|f32)       -> else UNSUPPORTED
//   lda < k, ldb < k, ldc < n; the byte extent of A, B or C overflowing;
//   a, b, c NULL while their matrix is non-empty      -> INVALID_ARGUMENT
//
// alpha and beta may be any float, NaN and infinities included (BLAS).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_GEMM_VALIDATE_H
#define ARGUS_RUNTIME_GEMM_VALIDATE_H

#include "argus_kernels.h"

namespace argus_rt {

/// Whether the runtime serves (a_type, b_type) -> c_type at all.
bool gemmDtypesSupported(argus_dtype a, argus_dtype b, argus_dtype c);

/// ARGUS_OK when `args` describes a valid GEMM; otherwise the status, with
/// "<function>: <what is wrong>" recorded as the last error.
argus_status validateGemm(const argus_gemm_args *args, const char *function);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_GEMM_VALIDATE_H
