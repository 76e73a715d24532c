//===- argus_no_prefill.cpp - argus_attention_prefill without GPU kernels --===//
#include "argus_gpu_missing.h"

extern "C" ARGUS_API argus_status argus_attention_prefill(const argus_attention_prefill_args *, void *) {
  return argus_rt::missingKernels("argus_attention_prefill");
}
