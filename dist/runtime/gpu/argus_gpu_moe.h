//===- argus_gpu_moe.h - what every GPU argus_moe checks -------------------===//
//
// The cuda-sm90a and hip libraries take the same path up to their launches
// (and the same workspace, gpu/argus_gpu_moe_params.h): arguments valid
// (argus_moe_validate.h) -> no token (no work) -> what the GPU pipeline
// takes (bf16; at most kMaxMoeExperts experts and top-kMaxMoeTopK; hidden and
// intermediate multiples of 8 for 16-byte row loads, below 2^21; x, the
// weights and the workspace 16-byte aligned; routed rows below 2^30), each
// refusal ARGUS_ERROR_UNSUPPORTED naming the limit -> the pipeline's argument.
// argus_moe_workspace_size is defined beside it, once for both targets.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_MOE_H
#define ARGUS_GPU_MOE_H

#include "argus_kernels.h"
#include "gpu/argus_gpu_moe_params.h"

namespace argus_rt {

enum class GpuMoeStep { Noop, Kernels };

/// The steps above. On ARGUS_OK with *step == Kernels, *params is the
/// pipeline's argument, its workspace carved from args->workspace.
argus_status prepareGpuMoe(const argus_moe_args *args, GpuMoeStep *step, argus::gpu::MoeParams *params);

} // namespace argus_rt

#endif // ARGUS_GPU_MOE_H
