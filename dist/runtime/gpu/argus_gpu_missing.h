//===- argus_gpu_missing.h - entry points a GPU library has no kernels for --===//
//
// The C ABI is the same for every target, so a GPU library exports every
// entry point; one whose kernels that target does not have yet is one of the
// files beside this header (argus_no_moe.cpp, for cuda-sm90a), listed in
// the target's sources.txt, and says so instead
// of failing to link or to load.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_MISSING_H
#define ARGUS_GPU_MISSING_H

#include "argus_kernels.h"

namespace argus_rt {

/// ARGUS_ERROR_UNSUPPORTED: "<function>: this <target> library has no kernels for it yet".
argus_status missingKernels(const char *function);

} // namespace argus_rt

#endif // ARGUS_GPU_MISSING_H
