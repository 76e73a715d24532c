//===- argus_gemm.cpp - the argus_gemm entry points of the C ABI ----------===//
//
// The entry point is only sequencing: library ready (environment, ISA,
// tables) -> arguments valid -> plan -> run, each step reporting its own
// error. `stream` is ignored on CPU targets.
//
//===----------------------------------------------------------------------===//
#include "argus_config.h"
#include "argus_error.h"
#include "argus_gemm_dispatch.h"
#include "argus_gemm_validate.h"
#include "argus_kernels.h"
#include "argus_packed_weights.h"

using namespace argus_rt;

extern "C" {

ARGUS_API argus_status argus_gemm(const argus_gemm_args *args, void *stream) {
  (void)stream;
  return guard("argus_gemm", [&] {
    if (auto s = ready("argus_gemm")) return s;
    if (auto s = validateGemm(args, "argus_gemm")) return s;
    PackedWeights packed;
    const void *packedB = gemmPackedB(*args);
    if (packedB && args->m > 0 && args->n > 0 && args->k > 0)
      if (auto s = openPackedWeights(packedB, 1, args->n, args->k, args->b_type, "argus_gemm", "b_packed", &packed))
        return s;
    const Config &c = config();
    GemmPlan plan;
    if (auto s = planGemm(*args, c, "argus_gemm", &plan)) return s;
    runGemm(*args, plan, c.numThreads, packedB ? &packed : nullptr);
    return ARGUS_OK;
  });
}

ARGUS_API const char *argus_gemm_kernel_name(const argus_gemm_args *args) {
  const char *name = nullptr;
  guard("argus_gemm_kernel_name", [&] {
    if (auto s = ready("argus_gemm_kernel_name")) return s;
    if (auto s = validateGemm(args, "argus_gemm_kernel_name")) return s;
    GemmPlan plan;
    if (auto s = planGemm(*args, config(), "argus_gemm_kernel_name", &plan)) return s;
    name = plan.name;
    return ARGUS_OK;
  });
  return name;
}

} // extern "C"
