//===- argus_hip_gemm.cpp - argus_gemm of a hip-gfx942 / hip-gfx90a library -===//
//
// The front shared with CUDA (argus_gpu_gemm.h), then the CDNA kernel for the
// call: bf16 (or f16) in and out; the catalog bucket's, else the one
// chooseGemmShape picks. Pointers are
// device pointers; the kernel is enqueued on `stream` (a hipStream_t, NULL for
// the default stream) through the dlopen'd HIP runtime, and nothing
// synchronises.
//
//===----------------------------------------------------------------------===//
#include "argus_error.h"
#include "argus_gpu_gemm.h"
#include "argus_hip_gemm_params.h"
#include "argus_hip_registry.h"
#include "argus_hip_runtime.h"
#include "argus_hip_schedule.h"

#include <algorithm>
#include <cstring>

namespace argus_rt {
namespace {

using argus::hip::GemmShape;

struct HipGemmPlan {
  GpuGemmStep step = GpuGemmStep::Noop;
  GemmShape shape{};
  char symbol[48] = "argus_noop";  // the kernel's name in the code object
  const char *name = "argus_noop"; // what argus_gemm_kernel_name reports
};

bool isGfx942() { return std::strcmp(argus_hip_arch, "gfx942") == 0; }

argus_status prepare(const argus_gemm_args *args, const char *function, HipGemmPlan *plan) {
  bool strict;
  if (argus_status s = prepareGpuGemm(args, argus_generated_target, /*f16Too=*/true, function, &plan->step, &strict))
    return s;
  const bool f16 = args->a_type == ARGUS_DTYPE_F16;
  if (plan->step == GpuGemmStep::BetaScale) {
    std::strcpy(plan->symbol, f16 ? "argus_hip_gemm_f16_beta_scale" : "argus_hip_gemm_beta_scale");
    plan->name = plan->symbol;
  }
  if (plan->step != GpuGemmStep::Kernel)
    return ARGUS_OK;
  const argus_gemm_args &g = *args;
  if (!argus::hip::operandsAligned(g.a, g.lda) || !argus::hip::operandsAligned(g.b, g.ldb))
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "%s: the CDNA kernels read A and B with 16-byte buffer loads, which need 16-byte aligned a and b and "
                "lda and ldb multiples of 8 below 2^23 (got lda=%lld, ldb=%lld)",
                function, static_cast<long long>(g.lda), static_cast<long long>(g.ldb));
  const argus_hip_gemm_group *group = nullptr;
  int32_t bucket = 0;
  // The catalog's GEMMs are bf16; an f16 call of the same (n, k) takes the generic path.
  if (!f16 && findGemmBucket(argus_hip_gemm_groups, argus_hip_gemm_group_count, g, &group, &bucket)) {
    const int32_t index = group->shapes[bucket];
    if (index < 0 || index >= argus::hip::kGemmShapeCount)
      return fail(ARGUS_ERROR_INTERNAL, "%s: the catalog table names kernel shape %d, which this runtime lacks",
                  function, int(index));
    plan->shape = argus::hip::kGemmShapes[index];
    plan->name = group->names[bucket];
  } else if (strict) {
    return strictGemmRefusal(g, function);
  } else {
    plan->shape = argus::hip::chooseGemmShape(g.m, g.n, argus::hip::computeUnits(isGfx942()));
    plan->name = nullptr;
  }
  argus::hip::gemmKernelSymbol(plan->shape, f16, plan->symbol);
  if (!plan->name)
    plan->name = plan->symbol;
  return ARGUS_OK;
}

argus_status run(const argus_gemm_args &g, const HipGemmPlan &plan, void *stream) {
  argus::hip::GemmParams params{static_cast<const uint16_t *>(g.a), static_cast<const uint16_t *>(g.b),
                                static_cast<uint16_t *>(g.c),       static_cast<const uint16_t *>(g.bias),
                                g.lda,                              g.ldb,
                                g.ldc,                              int32_t(g.m),
                                int32_t(g.n),                       int32_t(g.k),
                                g.alpha,                            g.beta};
  if (plan.step == GpuGemmStep::BetaScale) {
    int workGroups = int(std::min<int64_t>((g.m * g.n + 255) / 256, 4096));
    void *arguments[] = {&params, &workGroups};
    return hipLaunch("argus_gemm", {plan.symbol, unsigned(workGroups), 1, 256, arguments}, stream);
  }
  void *arguments[] = {&params};
  const GemmShape &s = plan.shape;
  return hipLaunch("argus_gemm",
                   {plan.symbol, unsigned((g.n + s.bn - 1) / s.bn), unsigned((g.m + s.bm - 1) / s.bm),
                    unsigned(s.threads()), arguments},
                   stream);
}

} // namespace
} // namespace argus_rt

using namespace argus_rt;

extern "C" {

ARGUS_API argus_status argus_gemm(const argus_gemm_args *args, void *stream) {
  return guard("argus_gemm", [&] {
    HipGemmPlan plan;
    if (argus_status s = prepare(args, "argus_gemm", &plan))
      return s;
    return plan.step == GpuGemmStep::Noop ? ARGUS_OK : run(*args, plan, stream);
  });
}

ARGUS_API const char *argus_gemm_kernel_name(const argus_gemm_args *args) {
  static thread_local HipGemmPlan plan;  // the returned name may point into it
  const char *name = nullptr;
  guard("argus_gemm_kernel_name", [&] {
    plan = HipGemmPlan{};
    if (argus_status s = prepare(args, "argus_gemm_kernel_name", &plan))
      return s;
    name = plan.name;
    return ARGUS_OK;
  });
  return name;
}

} // extern "C"
