//===- argus_hip_gemm.cpp - argus_gemm of a hip-gfx942 / hip-gfx90a library -===//
//
// The front shared with CUDA (argus_gpu_gemm.h), then the CDNA kernel for the
// call: bf16 (or f16) in and out; the catalog bucket's shape, else the one
// chooseGemmShape picks, and the code object's generated kernel of that shape
// (argus_hip_registry.h), which launches itself. Pointers are
// device pointers; the kernel is enqueued on `stream` (a hipStream_t, NULL for
// the default stream) through the dlopen'd HIP runtime, and nothing
// synchronises.
//
//===----------------------------------------------------------------------===//
#include "argus_error.h"
#include "argus_gpu_gemm.h"
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
  const argus_hip_gemm_kernel *kernel = nullptr; // the code object's kernel for the call
  const char *name = "argus_noop";               // what argus_gemm_kernel_name reports
};

bool isGfx942() { return std::strcmp(argus_hip_arch, "gfx942") == 0; }

const argus_hip_gemm_kernel *kernelFor(int32_t shape, bool f16) {
  for (int32_t i = 0; i < argus_hip_gemm_kernel_count; ++i)
    if (argus_hip_gemm_kernels[i].shape == shape && (argus_hip_gemm_kernels[i].f16 != 0) == f16)
      return &argus_hip_gemm_kernels[i];
  return nullptr;
}

argus_status prepare(const argus_gemm_args *args, const char *function, HipGemmPlan *plan) {
  bool strict;
  if (argus_status s = prepareGpuGemm(args, argus_generated_target, /*f16Too=*/true, function, &plan->step, &strict))
    return s;
  if (plan->step == GpuGemmStep::Noop)
    return ARGUS_OK;
  const argus_gemm_args &g = *args;
  const bool f16 = g.a_type == ARGUS_DTYPE_F16;
  // k == 0 (C = beta·C + bias) runs the same kernels: their K loop takes no step.
  const argus_hip_gemm_group *group = nullptr;
  int32_t bucket = 0, shape = -1;
  // The catalog's GEMMs are bf16; an f16 call of the same (n, k) takes the generic path.
  if (!f16 && findGemmBucket(argus_hip_gemm_groups, argus_hip_gemm_group_count, g, &group, &bucket)) {
    shape = group->shapes[bucket];
    plan->name = group->names[bucket];
  } else if (strict) {
    return strictGemmRefusal(g, function);
  } else {
    const GemmShape s = argus::hip::chooseGemmShape(g.m, g.n, argus::hip::computeUnits(isGfx942()), f16);
    for (int32_t i = 0; i < argus::hip::kGemmShapeCount; ++i)
      if (argus::hip::kGemmShapes[i] == s)
        shape = i;
    plan->name = nullptr;
  }
  plan->kernel = kernelFor(shape, f16);
  if (!plan->kernel)
    return fail(ARGUS_ERROR_INTERNAL, "%s: the code object has no %s kernel of shape %d", function,
                f16 ? "f16" : "bf16", int(shape));
  if (!plan->name)
    plan->name = plan->kernel->symbol;
  return ARGUS_OK;
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
    return plan.step == GpuGemmStep::Noop ? ARGUS_OK : plan.kernel->launch(args, plan.kernel->symbol, stream);
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
