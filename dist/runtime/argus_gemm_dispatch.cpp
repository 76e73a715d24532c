//===- argus_gemm_dispatch.cpp - table lookup, bucketing, the k == 0 case -===//
//
// Lookup is a linear scan of the groups: a catalog has tens of GEMMs, the
// scan touches a few cache lines, and it keeps the emitted tables trivially
// simple (no hashing scheme to keep in sync with the emitter).
//
//===----------------------------------------------------------------------===//
#include "argus_gemm_dispatch.h"

#include "argus_bucketing.h"
#include "argus_checks.h"
#include "argus_gemm_transposed.h"
#include "argus_numerics.h"
#include "argus_registry.h"
#include "argus_tensor_view.h"

#include <cstring>

namespace argus_rt {
namespace {

const argus_gemm_fallback *findFallback(argus_dtype a, argus_dtype b, argus_dtype c) {
  for (int32_t i = 0; i < argus_gemm_fallback_count; ++i) {
    const argus_gemm_fallback &f = argus_gemm_fallbacks[i];
    if (f.a_type == a && f.b_type == b && f.c_type == c) return &f;
  }
  return nullptr;
}

int32_t findGroup(const argus_gemm_args &g) {
  for (int32_t i = 0; i < argus_gemm_group_count; ++i) {
    const argus_gemm_group &group = argus_gemm_groups[i];
    if (group.n == g.n && group.k == g.k && group.a_type == g.a_type &&
        group.b_type == g.b_type && group.c_type == g.c_type)
      return i;
  }
  return -1;
}

float loadElement(const void *base, int64_t index, argus_dtype type) {
  switch (type) {
  case ARGUS_DTYPE_BF16:
    return argus_num::bf16_to_f32(static_cast<const uint16_t *>(base)[index]);
  case ARGUS_DTYPE_F16:
    return argus_num::f16_to_f32(static_cast<const uint16_t *>(base)[index]);
  default:
    return static_cast<const float *>(base)[index];
  }
}

void storeElement(void *base, int64_t index, argus_dtype type, float value) {
  switch (type) {
  case ARGUS_DTYPE_BF16:
    static_cast<uint16_t *>(base)[index] = argus_num::f32_to_bf16(value);
    break;
  case ARGUS_DTYPE_F16:
    static_cast<uint16_t *>(base)[index] = argus_num::f32_to_f16(value);
    break;
  default:
    static_cast<float *>(base)[index] = value;
    break;
  }
}

/// k == 0: the product is empty, so C = beta * C (+ bias), computed in f32
/// and rounded once to c_type like a kernel's epilogue. beta == 0 does not
/// read C (BLAS), so NaN in an uninitialised C does not survive.
void betaScale(const argus_gemm_args &g) {
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) {
      int64_t at = i * g.ldc + j;
      float value = g.beta == 0.0f ? 0.0f : g.beta * loadElement(g.c, at, g.c_type);
      if (g.bias) value += loadElement(g.bias, j, g.c_type);
      storeElement(g.c, at, g.c_type, value);
    }
  }
}

/// The catalog's kernel for a non-empty `g`, else the generic one.
argus_status planKernel(const argus_gemm_args &g, const Config &config, const char *function, GemmPlan *plan) {
  int32_t group = findGroup(g);
  if (group >= 0) {
    const argus_gemm_group &gr = argus_gemm_groups[group];
    int32_t bucket = argus_bucket_index(gr.bucket_bounds, gr.num_buckets, g.m);
    plan->kind = GemmPlanKind::Kernel;
    plan->kernel = gr.kernels[bucket];
    plan->name = gr.kernel_names[bucket];
    plan->group = group;
    plan->bucket = bucket;
    return ARGUS_OK;
  }
  const argus_gemm_fallback *fallback = findFallback(g.a_type, g.b_type, g.c_type);
  if (!fallback)
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "%s: no kernel for n=%lld, k=%lld, %s x %s -> %s in this library: the shape is "
                "not in its catalog and it has no generic kernel for these dtypes",
                function, static_cast<long long>(g.n), static_cast<long long>(g.k),
                dtypeName(g.a_type), dtypeName(g.b_type), dtypeName(g.c_type));
  if (config.strict)
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "%s: ARGUS_STRICT is set and the shape m=%lld, n=%lld, k=%lld (%s x %s -> %s) "
                "is not in this library's catalog; it would run the generic kernel '%s'",
                function, static_cast<long long>(g.m), static_cast<long long>(g.n),
                static_cast<long long>(g.k), dtypeName(g.a_type), dtypeName(g.b_type),
                dtypeName(g.c_type),
                fallback->kernel_names[argus_bucket_index(fallback->bucket_bounds, fallback->num_buckets, g.m)]);
  const int32_t bucket = argus_bucket_index(fallback->bucket_bounds, fallback->num_buckets, g.m);
  plan->kind = GemmPlanKind::Kernel;
  plan->kernel = fallback->kernels[bucket];
  plan->name = fallback->kernel_names[bucket];
  plan->fallback = true;
  plan->bucket = bucket;
  return ARGUS_OK;
}

} // namespace

argus_status planGemm(const argus_gemm_args &g, const Config &config, const char *function,
                      GemmPlan *plan) {
  *plan = GemmPlan();
  if (g.m == 0 || g.n == 0) return ARGUS_OK;
  if (g.k == 0) {
    plan->kind = GemmPlanKind::BetaScale;
    plan->name = "argus_beta_scale";
    return ARGUS_OK;
  }
  if (auto s = planKernel(g, config, function, plan)) return s;
  if (!config.strict && transposedFormFits(g))
    if (const argus_gemm_fallback *f = findFallback(g.a_type, g.b_type, ARGUS_DTYPE_F32)) { /* bf16 C: staged */
      const int32_t bucket = argus_bucket_index(f->bucket_bounds, f->num_buckets, g.n); /* n: its rows */
      plan->transposed = f->kernels[bucket];
      plan->name = f->kernel_names[bucket];
    }
  return ARGUS_OK;
}

void buildGemmKernelArgs(const argus_gemm_args &g, argus_cpu_arg out[7], const PackedWeights *packedB) {
  setMatrixArg(out[0], g.a, g.m, g.k, g.lda);
  if (packedB)
    out[1].tensor = packedB->matrix(0);
  else
    setMatrixArg(out[1], g.b, g.n, g.k, g.ldb);
  setMatrixArg(out[2], g.c, g.m, g.n, g.ldc);
  setMatrixArg(out[3], g.bias, g.n, 0, 1); /* the bias vector */
  setScalarArg(out[4], g.alpha, 0);
  setScalarArg(out[5], g.beta, 0);
  setScalarArg(out[6], 0, g.bias ? 1 : 0);
}

void runGemm(const argus_gemm_args &g, const GemmPlan &plan, int numThreads, const PackedWeights *packedB) {
  switch (plan.kind) {
  case GemmPlanKind::Noop:
    return;
  case GemmPlanKind::BetaScale:
    betaScale(g);
    return;
  case GemmPlanKind::Kernel: {
    if (plan.transposed && !packedB && runTransposedGemm(g, plan.transposed, numThreads)) return;
    argus_cpu_arg args[7];
    buildGemmKernelArgs(g, args, packedB);
    plan.kernel(args, numThreads);
    return;
  }
  }
}

} // namespace argus_rt
