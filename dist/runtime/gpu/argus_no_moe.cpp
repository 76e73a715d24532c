//===- argus_no_moe.cpp - argus_moe without GPU kernels --------------------===//
#include "argus_gpu_missing.h"

extern "C" {

ARGUS_API size_t argus_moe_workspace_size(const argus_moe_args *) {
  argus_rt::missingKernels("argus_moe_workspace_size");
  return 0;
}

ARGUS_API argus_status argus_moe(const argus_moe_args *, void *) { return argus_rt::missingKernels("argus_moe"); }

} // extern "C"
