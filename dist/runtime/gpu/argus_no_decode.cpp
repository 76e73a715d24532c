//===- argus_no_decode.cpp - argus_attention_decode without GPU kernels ----===//
#include "argus_gpu_missing.h"

extern "C" ARGUS_API argus_status argus_attention_decode(const argus_attention_decode_args *, void *) {
  return argus_rt::missingKernels("argus_attention_decode");
}
