//===- argus_gpu_prefill.h - what every GPU argus_attention_prefill checks -===//
//
// The cuda-sm90a and hip libraries take the same path up to the launch:
// arguments valid (argus_attention_validate.h) -> empty batch or no query
// (no work) -> what the target's kernel is compiled for (bf16, head dims,
// 16-byte aligned q, k and v, sizes of its grid and 32-bit indexing), each
// refusal ARGUS_ERROR_UNSUPPORTED naming the limit -> the kernel's argument.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_PREFILL_H
#define ARGUS_GPU_PREFILL_H

#include "argus_kernels.h"
#include "gpu/argus_gpu_prefill_params.h"

namespace argus_rt {

/// What a target's prefill kernel takes: head_dim a multiple of headDimMultiple
/// up to maxHeadDim, v_head_dim likewise, and (when set) only the listed pairs.
struct GpuPrefillLimits {
  const char *kernel;  // "the CDNA kernel", in messages
  int headDimMultiple, maxHeadDim, valueDimMultiple, maxValueDim;
  int rowsPerBlock;    // query rows per CTA / workgroup: max_seqlen_q + rows must fit 32 bits
  bool (*compiledFor)(int headDim, int valueDim);  // null: every pair within the limits
  bool takesF16;       // f16 as well as bf16
  int inputAlignment = 16;  // bytes q, k and v start on (16: 16-byte row loads)
  int outputAlignment = 4;  // bytes o starts on (4: bf16 pairs stored together)
};

/// The call's softmax scale: its own, or 1/sqrt(head_dim) for 0.
float prefillScale(const argus_attention_prefill_args &a);

enum class GpuPrefillStep { Noop, Kernel };

/// The steps above. On ARGUS_OK with *step == Kernel, `a` holds the validated
/// arguments and `params` (unless null) the kernel's argument (the scale resolved).
argus_status prepareGpuPrefill(const argus_attention_prefill_args *args, const GpuPrefillLimits &limits,
                               argus_attention_prefill_args &a, GpuPrefillStep *step, argus::gpu::PrefillParams *params);

} // namespace argus_rt

#endif // ARGUS_GPU_PREFILL_H
