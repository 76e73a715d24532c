//===- argus_gpu_decode_params.h - a GPU decode kernel's one argument ------===//
//
// argus_attention_decode_args as the paged decode kernels of every GPU target
// take it by value (CDNA: hipModuleLaunchKernel's kernelParams = { &params };
// Hopper: a __global__ parameter): bf16 patterns, 32-bit sizes, the softmax
// scale times log2(e) (the kernels work in base 2). Plain C++, included as
// "gpu/argus_gpu_decode_params.h" from dist/runtime, which every kernel
// build has on its include path.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_DECODE_PARAMS_H
#define ARGUS_GPU_DECODE_PARAMS_H

#include <stdint.h>

namespace argus::gpu {

struct DecodeParams {
  const uint16_t *q;
  const uint16_t *kCache, *vCache;
  const int32_t *blockTable, *seqlens;
  uint16_t *o;
  int64_t maxPagesPerSeq;
  int32_t heads, kvHeads, headDim, valueDim, pageSize;
  float scaleLog2;
};

} // namespace argus::gpu

#endif // ARGUS_GPU_DECODE_PARAMS_H
