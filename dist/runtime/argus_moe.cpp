//===- argus_moe.cpp - mixture-of-experts entry points of the C ABI -------===//
//
// Validation (argus_moe_validate.h, with the CPU's workspace size), then
// argus_moe_dispatch.cpp routes, groups, launches the experts and combines.
//
//===----------------------------------------------------------------------===//
#include "argus_moe_dispatch.h"
#include "argus_moe_validate.h"
#include "argus_config.h"
#include "argus_error.h"
#include "argus_kernels.h"

using namespace argus_rt;

extern "C" {

ARGUS_API size_t argus_moe_workspace_size(const argus_moe_args *args) {
  return moeWorkspaceQuery(args, moeWorkspaceBytes);
}

ARGUS_API argus_status argus_moe(const argus_moe_args *args, void *stream) {
  (void)stream;
  return guard("argus_moe", [&] {
    if (auto s = ready("argus_moe")) return s;
    if (auto s = validateMoe(args, moeWorkspaceBytes)) return s;
    if (args->num_tokens == 0) return ARGUS_OK;
    MoeWeights weights;
    if (auto s = openMoeWeights(*args, &weights)) return s;
    const Config &c = config();
    const argus_moe_kernel *kernels = nullptr;
    if (auto s = planMoe(*args, c, &kernels)) return s;
    runMoe(*args, *kernels, c.numThreads, weights);
    return ARGUS_OK;
  });
}

} // extern "C"
