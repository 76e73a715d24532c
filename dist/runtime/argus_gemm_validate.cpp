//===- argus_gemm_validate.cpp - argus_gemm argument checks ---------------===//
#include "argus_gemm_validate.h"

#include "argus_checks.h"

namespace argus_rt {
namespace {

/// Elements spanned by a row-major rows x cols matrix with leading dimension
/// ld: (rows - 1) * ld + cols, times the element size, must fit in int64 so
/// that no kernel's address arithmetic can wrap. @pre rows, cols >= 0, ld >= cols.
argus_status extent(const Checker &check, const char *name, int64_t rows, int64_t cols,
                    int64_t ld, argus_dtype type) {
  if (rows == 0 || cols == 0) return ARGUS_OK;
  int64_t span = 0, bytes = 0;
  bool ok = mulNonNegative(rows - 1, ld, &span) && !__builtin_add_overflow(span, cols, &span) &&
            mulNonNegative(span, dtypeSize(type), &bytes);
  if (ok) return ARGUS_OK;
  return check.fail(ARGUS_ERROR_INVALID_ARGUMENT,
                    "the extent of %s ((%lld - 1) * ld %lld + %lld elements of %s) overflows "
                    "int64 bytes",
                    name, static_cast<long long>(rows), static_cast<long long>(ld),
                    static_cast<long long>(cols), dtypeName(type));
}

} // namespace

bool gemmDtypesSupported(argus_dtype a, argus_dtype b, argus_dtype c) {
  if (a != b) return false;
  switch (a) {
  case ARGUS_DTYPE_F32:
    return c == ARGUS_DTYPE_F32;
  case ARGUS_DTYPE_BF16:
    return c == ARGUS_DTYPE_BF16 || c == ARGUS_DTYPE_F32;
  case ARGUS_DTYPE_F16:
    return c == ARGUS_DTYPE_F16 || c == ARGUS_DTYPE_F32;
  default:
    return false;
  }
}

argus_status validateGemm(const argus_gemm_args *args, const char *function) {
  Checker check(function);
  if (!args) return check.fail(ARGUS_ERROR_INVALID_ARGUMENT, "args is NULL");
  const argus_gemm_args &g = *args;
  if (auto s = check.structSize(g.struct_size, kGemmArgsV1Size)) return s;
  const void *packedB = gemmPackedB(g);
  const void *b = packedB ? packedB : g.b;
  const int64_t ldb = packedB ? g.k : g.ldb; /* packed weights have no leading dimension */

  // The common case first: every size and leading dimension in [0, 2^30)
  // and ld >= its row length, so no product or extent can overflow int64
  // bytes; only dtypes and pointers remain to be checked. (Seen from a
  // serving engine this is most of a dispatch: ~15 ns of ~60.)
  if (((g.m | g.n | g.k | g.lda | ldb | g.ldc) >> 30) == 0 && g.lda >= g.k && ldb >= g.k && g.ldc >= g.n &&
      gemmDtypesSupported(g.a_type, g.b_type, g.c_type) && (g.a || g.m * g.k == 0) && (b || g.n * g.k == 0) &&
      (g.c || g.m * g.n == 0))
    return ARGUS_OK;

  // Otherwise each check in turn, for the message of the first that fails.
  if (auto s = check.nonNegative("m", g.m)) return s;
  if (auto s = check.nonNegative("n", g.n)) return s;
  if (auto s = check.nonNegative("k", g.k)) return s;
  int64_t mk = 0, nk = 0, mn = 0;
  if (auto s = check.product("m*k", g.m, g.k, &mk)) return s;
  if (auto s = check.product("n*k", g.n, g.k, &nk)) return s;
  if (auto s = check.product("m*n", g.m, g.n, &mn)) return s;

  if (auto s = check.knownDtype("a_type", g.a_type)) return s;
  if (auto s = check.knownDtype("b_type", g.b_type)) return s;
  if (auto s = check.knownDtype("c_type", g.c_type)) return s;
  if (!gemmDtypesSupported(g.a_type, g.b_type, g.c_type))
    return check.fail(ARGUS_ERROR_UNSUPPORTED,
                      "unsupported dtype combination a_type=%s, b_type=%s, c_type=%s (supported: "
                      "f32 x f32 -> f32, bf16 x bf16 -> bf16|f32, f16 x f16 -> f16|f32)",
                      dtypeName(g.a_type), dtypeName(g.b_type), dtypeName(g.c_type));

  if (auto s = check.atLeast("lda", g.lda, "k", g.k)) return s;
  if (auto s = check.atLeast("ldb", ldb, "k", g.k)) return s;
  if (auto s = check.atLeast("ldc", g.ldc, "n", g.n)) return s;
  if (auto s = extent(check, "A", g.m, g.k, g.lda, g.a_type)) return s;
  if (auto s = extent(check, "B", g.n, g.k, ldb, g.b_type)) return s;
  if (auto s = extent(check, "C", g.m, g.n, g.ldc, g.c_type)) return s;

  // A and B are read only when C is non-empty, but a NULL with a non-empty
  // shape is a caller bug either way: report it.
  if (auto s = check.pointer("a", g.a, mk)) return s;
  if (auto s = check.pointer("b", b, nk)) return s;
  if (auto s = check.pointer("c", g.c, mn)) return s;
  return ARGUS_OK;
}

} // namespace argus_rt
