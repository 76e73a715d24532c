//===- argus_gpu_missing.cpp - the refusal of a missing GPU entry point ----===//
#include "argus_gpu_missing.h"

#include "argus_error.h"
#include "argus_registry.h"

namespace argus_rt {

argus_status missingKernels(const char *function) {
  return fail(ARGUS_ERROR_UNSUPPORTED, "%s: this %s library has no kernels for it yet", function,
              argus_generated_target);
}

} // namespace argus_rt
