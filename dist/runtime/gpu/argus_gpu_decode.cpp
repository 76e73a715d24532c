//===- argus_gpu_decode.cpp - what every GPU argus_attention_decode checks -===//
#include "argus_gpu_decode.h"

#include "argus_attention_validate.h"
#include "argus_checks.h"
#include "argus_error.h"
#include "argus_registry.h"

#include <climits>
#include <cmath>

namespace argus_rt {
namespace {

argus_status unsupportedShape(const argus_attention_decode_args &a, const GpuDecodeLimits &limits) {
  const char *function = "argus_attention_decode";
  if (a.dtype != ARGUS_DTYPE_BF16 && !(limits.takesF16 && a.dtype == ARGUS_DTYPE_F16))
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: a %s library's decode attention takes %s, got %s", function,
                argus_generated_target, limits.takesF16 ? "bf16 or f16" : "bf16", dtypeName(a.dtype));
  const int64_t group = a.num_heads / a.num_kv_heads;
  if (group > limits.maxGroup)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: %lld query heads per KV head (%s serves up to %d)", function,
                static_cast<long long>(group), limits.kernel, limits.maxGroup);
  if (a.head_dim % 8 != 0 || a.head_dim > limits.maxHeadDim || a.v_head_dim > limits.maxValueDim ||
      a.v_head_dim % limits.valueDimMultiple != 0)
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "%s: head_dim %lld / v_head_dim %lld (%s takes head_dim a multiple of 8 up to %d and v_head_dim a "
                "multiple of %d up to %d)",
                function, static_cast<long long>(a.head_dim), static_cast<long long>(a.v_head_dim), limits.kernel,
                limits.maxHeadDim, limits.valueDimMultiple, limits.maxValueDim);
  if (reinterpret_cast<uintptr_t>(a.k_cache) % unsigned(limits.keyAlignment) != 0)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: k_cache must be %d-byte aligned (the kernel reads keys %d bytes at a time)",
                function, limits.keyAlignment, limits.keyAlignment);
  const unsigned valueLoadBytes = 2u * unsigned(limits.valueDimMultiple);
  if (reinterpret_cast<uintptr_t>(a.v_cache) % valueLoadBytes != 0)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: v_cache must be %u-byte aligned (the kernel reads values %u bytes at a time)",
                function, valueLoadBytes, valueLoadBytes);
  if (a.num_heads > INT_MAX || a.page_size > INT_MAX || a.num_kv_heads > 65535 || a.batch > limits.maxBatch)
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "%s: num_heads and page_size must be below 2^31, num_kv_heads at most 65535 and batch at most %lld",
                function, static_cast<long long>(limits.maxBatch));
  return ARGUS_OK;
}

} // namespace

float decodeScale(const argus_attention_decode_args &a) {
  return a.scale != 0.0f ? a.scale : 1.0f / std::sqrt(float(a.head_dim));
}

argus_status prepareGpuDecode(const argus_attention_decode_args *args, const GpuDecodeLimits &limits,
                              argus_attention_decode_args &a, GpuDecodeStep *step, float *scaleLog2) {
  *step = GpuDecodeStep::Noop;
  if (argus_status s = validateDecode(args, a))
    return s;
  if (a.batch == 0)
    return ARGUS_OK;
  if (argus_status s = unsupportedShape(a, limits))
    return s;
  *scaleLog2 = decodeScale(a) * 1.4426950408889634f;
  *step = GpuDecodeStep::Kernel;
  return ARGUS_OK;
}

} // namespace argus_rt
