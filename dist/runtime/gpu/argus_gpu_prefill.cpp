//===- argus_gpu_prefill.cpp - what every GPU argus_attention_prefill checks -===//
#include "argus_gpu_prefill.h"

#include "argus_attention_validate.h"
#include "argus_checks.h"
#include "argus_error.h"
#include "argus_registry.h"

#include <climits>
#include <cmath>

namespace argus_rt {
namespace {

bool aligned(const void *p, int bytes) { return reinterpret_cast<uintptr_t>(p) % uintptr_t(bytes) == 0; }

argus_status unsupportedShape(const argus_attention_prefill_args &a, const GpuPrefillLimits &limits) {
  const char *function = "argus_attention_prefill";
  if (a.dtype != ARGUS_DTYPE_BF16 && !(limits.takesF16 && a.dtype == ARGUS_DTYPE_F16))
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: a %s library's prefill attention takes %s, got %s", function,
                argus_generated_target, limits.takesF16 ? "bf16 or f16" : "bf16", dtypeName(a.dtype));
  const bool withinLimits = a.head_dim % limits.headDimMultiple == 0 && a.head_dim <= limits.maxHeadDim &&
                            a.v_head_dim % limits.valueDimMultiple == 0 && a.v_head_dim <= limits.maxValueDim;
  if (!withinLimits || (limits.compiledFor && !limits.compiledFor(int(a.head_dim), int(a.v_head_dim))))
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "%s: head_dim %lld / v_head_dim %lld (%s takes head_dim a multiple of %d up to %d and v_head_dim a "
                "multiple of %d up to %d%s)",
                function, static_cast<long long>(a.head_dim), static_cast<long long>(a.v_head_dim), limits.kernel,
                limits.headDimMultiple, limits.maxHeadDim, limits.valueDimMultiple, limits.maxValueDim,
                limits.compiledFor ? ", in the pairs it is compiled for" : "");
  const int in = limits.inputAlignment, out = limits.outputAlignment;
  if (!aligned(a.q, in) || !aligned(a.k, in) || !aligned(a.v, in))
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: q, k and v must be %d-byte aligned (%s)", function, in,
                in == 16 ? "16-byte row loads" : "whole elements");
  if (!aligned(a.o, out))
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: o must be %d-byte aligned (%s)", function, out,
                out == 4 ? "bf16 pairs are stored together" : "whole elements");
  if (a.num_heads > 65535 || a.batch > 65535 || a.max_seqlen_q > INT_MAX - limits.rowsPerBlock ||
      a.max_seqlen_kv > INT_MAX)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: num_heads and batch must be at most 65535, the lengths below 2^31",
                function);
  return ARGUS_OK;
}

} // namespace

float prefillScale(const argus_attention_prefill_args &a) {
  return a.scale != 0.0f ? a.scale : 1.0f / std::sqrt(float(a.head_dim));
}

argus_status prepareGpuPrefill(const argus_attention_prefill_args *args, const GpuPrefillLimits &limits,
                               argus_attention_prefill_args &a, GpuPrefillStep *step,
                               argus::gpu::PrefillParams *params) {
  *step = GpuPrefillStep::Noop;
  if (argus_status s = validatePrefill(args, a))
    return s;
  if (a.batch == 0 || a.max_seqlen_q == 0)
    return ARGUS_OK;
  if (argus_status s = unsupportedShape(a, limits))
    return s;
  const float scale = prefillScale(a);
  if (params)
    *params = {static_cast<const uint16_t *>(a.q),
               static_cast<const uint16_t *>(a.k),
               static_cast<const uint16_t *>(a.v),
               static_cast<uint16_t *>(a.o),
               a.cu_seqlens_q,
               a.cu_seqlens_kv,
               int32_t(a.num_heads),
               int32_t(a.num_kv_heads),
               int32_t(a.head_dim),
               int32_t(a.v_head_dim),
               a.causal != 0 ? 1 : 0,
               scale * 1.4426950408889634f};
  *step = GpuPrefillStep::Kernel;
  return ARGUS_OK;
}

} // namespace argus_rt
