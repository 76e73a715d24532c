//===- argus_gemm_only.cpp - entry points a GPU library has no kernels for --===//
//
// The C ABI is the same for every target, so the cuda-sm90a and hip
// libraries export the attention and MoE entry points too; until their GPU
// kernels exist they say so instead of failing to link or to load.
//
//===----------------------------------------------------------------------===//
#include "argus_error.h"
#include "argus_kernels.h"
#include "argus_registry.h"

using namespace argus_rt;

namespace {

argus_status notYet(const char *function) {
  return fail(ARGUS_ERROR_UNSUPPORTED, "%s: this %s library has no kernels for it yet (only argus_gemm)",
              function, argus_generated_target);
}

} // namespace

extern "C" {

ARGUS_API argus_status argus_attention_prefill(const argus_attention_prefill_args *, void *) {
  return notYet("argus_attention_prefill");
}

ARGUS_API argus_status argus_attention_decode(const argus_attention_decode_args *, void *) {
  return notYet("argus_attention_decode");
}

ARGUS_API size_t argus_moe_workspace_size(const argus_moe_args *) {
  notYet("argus_moe_workspace_size");
  return 0;
}

ARGUS_API argus_status argus_moe(const argus_moe_args *, void *) { return notYet("argus_moe"); }

} // extern "C"
