//===- argus_gpu_prefill_params.h - a GPU prefill kernel's one argument ----===//
//
// argus_attention_prefill_args as the prefill kernels of every GPU target
// take it by value: bf16 patterns, 32-bit sizes, the softmax scale times
// log2(e) (the kernels work in base 2). Plain C++, included as
// "gpu/argus_gpu_prefill_params.h" from dist/runtime.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_PREFILL_PARAMS_H
#define ARGUS_GPU_PREFILL_PARAMS_H

#include <stdint.h>

namespace argus::gpu {

struct PrefillParams {
  const uint16_t *q, *k, *v;
  uint16_t *o;
  const int32_t *cuSeqlensQ, *cuSeqlensKv;
  int32_t heads, kvHeads, headDim, valueDim, causal;
  float scaleLog2;
};

} // namespace argus::gpu

#endif // ARGUS_GPU_PREFILL_PARAMS_H
