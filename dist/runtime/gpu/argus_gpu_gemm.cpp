//===- argus_gpu_gemm.cpp - the shared front of every GPU argus_gemm ------===//
#include "argus_gpu_gemm.h"

#include "argus_checks.h"
#include "argus_env.h"
#include "argus_error.h"
#include "argus_gemm_validate.h"

#include <climits>
#include <cstdint>
#include <string>

namespace argus_rt {

argus_status prepareGpuGemm(const argus_gemm_args *args, const char *target, bool f16Too, const char *function,
                            GpuGemmStep *step, bool *strict) {
  static bool strictValue = false;
  static const std::string strictProblem = readSwitch("ARGUS_STRICT", &strictValue);
  if (!strictProblem.empty())
    return fail(ARGUS_ERROR_INVALID_ARGUMENT, "%s: %s", function, strictProblem.c_str());
  *strict = strictValue;
  if (argus_status s = validateGemm(args, function))
    return s;
  const argus_gemm_args &g = *args;
  if (gemmPackedB(g))
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: b_packed is a CPU-target feature; a %s library takes its weights in b",
                function, target);
  const bool same = g.a_type == g.b_type && g.b_type == g.c_type;
  if (!same || (g.a_type != ARGUS_DTYPE_BF16 && !(f16Too && g.a_type == ARGUS_DTYPE_F16)))
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: a %s library computes bf16 x bf16 -> bf16%s, got %s x %s -> %s", function,
                target, f16Too ? " and f16 x f16 -> f16" : "", dtypeName(g.a_type), dtypeName(g.b_type),
                dtypeName(g.c_type));
  if (g.m == 0 || g.n == 0) {
    *step = GpuGemmStep::Noop;
    return ARGUS_OK;
  }
  // Every kernel takes any pitch, but not a 2-byte element that straddles two.
  for (const void *p : {g.a, g.b, static_cast<const void *>(g.c), g.bias})
    if (reinterpret_cast<uintptr_t>(p) % 2 != 0)
      return fail(ARGUS_ERROR_UNSUPPORTED, "%s: a, b, c and bias must be aligned to their 2-byte elements", function);
  if (g.k == 0) {
    *step = GpuGemmStep::BetaScale;
    return ARGUS_OK;
  }
  if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: m, n and k must each be below 2^31 on %s", function, target);
  *step = GpuGemmStep::Kernel;
  return ARGUS_OK;
}

argus_status strictGemmRefusal(const argus_gemm_args &g, const char *function) {
  return fail(ARGUS_ERROR_UNSUPPORTED,
              "%s: no catalog kernel for n=%lld, k=%lld, and ARGUS_STRICT=1 forbids the generic kernels", function,
              static_cast<long long>(g.n), static_cast<long long>(g.k));
}

} // namespace argus_rt
