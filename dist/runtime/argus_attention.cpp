//===- argus_attention.cpp - attention entry points of the C ABI ----------===//
//
// Validation (argus_attention_validate.h), then argus_attention_dispatch.cpp
// chooses and launches the CPU kernels.
//
//===----------------------------------------------------------------------===//
#include "argus_attention_dispatch.h"
#include "argus_attention_validate.h"
#include "argus_config.h"
#include "argus_error.h"
#include "argus_kernels.h"

using namespace argus_rt;

extern "C" {

ARGUS_API argus_status argus_attention_prefill(const argus_attention_prefill_args *args,
                                               void *stream) {
  (void)stream;
  return guard("argus_attention_prefill", [&] {
    if (auto s = ready("argus_attention_prefill")) return s;
    argus_attention_prefill_args a;
    if (auto s = validatePrefill(args, a)) return s;
    if (a.batch == 0) return ARGUS_OK;
    const Config &c = config();
    AttentionPlan plan;
    if (auto s = planPrefill(a, c, &plan)) return s;
    return runPrefill(a, plan, c.numThreads);
  });
}

ARGUS_API argus_status argus_attention_decode(const argus_attention_decode_args *args,
                                              void *stream) {
  (void)stream;
  return guard("argus_attention_decode", [&] {
    if (auto s = ready("argus_attention_decode")) return s;
    argus_attention_decode_args a;
    if (auto s = validateDecode(args, a)) return s;
    if (a.batch == 0) return ARGUS_OK;
    const Config &c = config();
    AttentionPlan plan;
    if (auto s = planDecode(a, c, &plan)) return s;
    return runDecode(a, plan, c.numThreads);
  });
}

} // extern "C"
