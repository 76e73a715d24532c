//===- argus_gpu_decode.h - what every GPU argus_attention_decode checks ---===//
//
// The cuda-sm90a and hip libraries take the same path up to the launch:
// arguments valid (argus_attention_validate.h) -> empty batch (no work) ->
// what the target's kernel is compiled for (bf16, group, head dims, the
// alignment of its vector loads, sizes of its 32-bit indexing), each refusal
// ARGUS_ERROR_UNSUPPORTED naming the limit -> the scale, resolved.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_DECODE_H
#define ARGUS_GPU_DECODE_H

#include "argus_kernels.h"

#include <stdint.h>

namespace argus_rt {

/// What a target's decode kernel takes.
struct GpuDecodeLimits {
  const char *kernel;        // "the CDNA kernel", in messages
  int maxGroup;              // query heads per KV head
  int maxHeadDim;            // q and k, a multiple of 8 (16-byte key loads)
  int maxValueDim;           // v and o
  int valueDimMultiple;      // 1, or the elements of one value load
  int64_t maxBatch;          // the grid dimension sequences go on
  bool takesF16;             // f16 as well as bf16
  int keyAlignment = 16;     // bytes: k_cache's, for the kernel's key loads
};

enum class GpuDecodeStep { Noop, Kernel };

/// The softmax scale of validated arguments: theirs, 1/sqrt(head_dim) for 0.
float decodeScale(const argus_attention_decode_args &a);

/// The steps above. On ARGUS_OK with *step == Kernel, `a` holds the validated
/// arguments and *scaleLog2 decodeScale(a) times log2(e).
argus_status prepareGpuDecode(const argus_attention_decode_args *args, const GpuDecodeLimits &limits,
                              argus_attention_decode_args &a, GpuDecodeStep *step, float *scaleLog2);

} // namespace argus_rt

#endif // ARGUS_GPU_DECODE_H
