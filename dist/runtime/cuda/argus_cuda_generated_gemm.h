//===- argus_cuda_generated_gemm.h - the cuda-sm90a library's generated GEMMs -===//
//
// What the Hopper kernels (TMA, wgmma) cannot take, a cuda-sm90a library runs
// on GEMM kernels argus-gen generates from templates/gemm/gemm_tn_cdna.argus
// with the CUDA backend (warps, mma.sync; loads that take any pitch and any
// 2-byte aligned pointer): f16 operands, and A or B that TMA cannot address.
// The library's tables include each generated unit whole (nvcc compiles the
// kernel and its launch function) and point at launchGeneratedGemm for it.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_CUDA_GENERATED_GEMM_H
#define ARGUS_CUDA_GENERATED_GEMM_H

#include "argus_cuda_registry.h"
#include "argus_cuda_tile_launch.h"

#if __has_include("gpu/argus_gpu_generated_gemm.h")
#include "gpu/argus_gpu_generated_gemm.h"
#else
#include "../gpu/argus_gpu_generated_gemm.h"
#endif

#include <cuda_runtime.h>

namespace argus_rt {

/// Enqueues the generated kernel Kernel (parameters Params, launch function
/// Launch) for the validated call `args` on `stream`; the launch's cudaError_t.
template <class Params, argus::gpu::tile::LaunchShape (*Launch)(Params &), void (*Kernel)(Params)>
int launchGeneratedGemm(const argus_gemm_args *args, void *stream) {
  Params p = generatedGemmParams<Params>(*args);
  const argus::gpu::tile::LaunchShape shape = Launch(p);
  if (shape.error)
    return int(cudaErrorInvalidValue);
  if (shape.sharedBytes > 48 * 1024) // past the default: the kernel must opt in
    if (cudaError_t e = cudaFuncSetAttribute(reinterpret_cast<const void *>(Kernel),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, shape.sharedBytes))
      return int(e);
  void *arguments[] = {&p};
  return int(cudaLaunchKernel(reinterpret_cast<const void *>(Kernel),
                              dim3(unsigned(shape.grid[0]), unsigned(shape.grid[1]), unsigned(shape.grid[2])),
                              dim3(unsigned(shape.threads)), arguments, size_t(shape.sharedBytes),
                              static_cast<cudaStream_t>(stream)));
}

} // namespace argus_rt

#endif // ARGUS_CUDA_GENERATED_GEMM_H
