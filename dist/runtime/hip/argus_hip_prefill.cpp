//===- argus_hip_prefill.cpp - argus_attention_prefill of a hip library ----===//
//
// Validation shared with every target (argus_attention_validate.h), then what
// the CDNA kernel takes: bf16; head_dim a multiple of 64 up to 192 and
// v_head_dim a multiple of 32 up to 128; q, k and v 16-byte aligned (16-byte
// row loads). One launch over (query blocks of max_seqlen_q, heads,
// sequences) on the caller's stream; cu_seqlens are read on the device, and
// no sequence may be longer than max_seqlen_q (the C ABI's contract).
//
//===----------------------------------------------------------------------===//
#include "argus_attention_validate.h"
#include "argus_checks.h"
#include "argus_error.h"
#include "argus_hip_attention_params.h"
#include "argus_hip_runtime.h"
#include "argus_registry.h"

#include <climits>
#include <cmath>
#include <cstdint>

namespace argus_rt {
namespace {

using namespace argus::hip;

bool aligned16(const void *p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

argus_status unsupportedShape(const argus_attention_prefill_args &a) {
  const char *function = "argus_attention_prefill";
  if (a.dtype != ARGUS_DTYPE_BF16)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: a %s library's prefill attention takes bf16, got %s", function,
                argus_generated_target, dtypeName(a.dtype));
  if (a.head_dim % 64 != 0 || a.head_dim > kMaxPrefillHeadDim || a.v_head_dim % 32 != 0 ||
      a.v_head_dim > kMaxPrefillValueDim)
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "%s: head_dim %lld / v_head_dim %lld (the CDNA kernel takes head_dim a multiple of 64 up to %d and "
                "v_head_dim a multiple of 32 up to %d)",
                function, static_cast<long long>(a.head_dim), static_cast<long long>(a.v_head_dim),
                kMaxPrefillHeadDim, kMaxPrefillValueDim);
  if (!aligned16(a.q) || !aligned16(a.k) || !aligned16(a.v))
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: q, k and v must be 16-byte aligned (16-byte row loads)", function);
  if (a.num_heads > 65535 || a.batch > 65535 || a.max_seqlen_q > INT_MAX - kPrefillRows ||
      a.max_seqlen_kv > INT_MAX)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: num_heads and batch must be at most 65535, the lengths below 2^31",
                function);
  return ARGUS_OK;
}

} // namespace
} // namespace argus_rt

using namespace argus_rt;

extern "C" ARGUS_API argus_status argus_attention_prefill(const argus_attention_prefill_args *args, void *stream) {
  return guard("argus_attention_prefill", [&] {
    argus_attention_prefill_args a;
    if (argus_status s = validatePrefill(args, a))
      return s;
    if (a.batch == 0 || a.max_seqlen_q == 0)
      return ARGUS_OK;
    if (argus_status s = unsupportedShape(a))
      return s;
    const float scale = a.scale != 0.0f ? a.scale : 1.0f / std::sqrt(float(a.head_dim));
    PrefillParams params{static_cast<const uint16_t *>(a.q),
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
    void *arguments[] = {&params};
    HipLaunch launch{"argus_hip_prefill", unsigned((a.max_seqlen_q + kPrefillRows - 1) / kPrefillRows),
                     unsigned(a.num_heads), kPrefillWaves * 64, arguments};
    launch.gridZ = unsigned(a.batch);
    return hipLaunch("argus_attention_prefill", launch, stream);
  });
}
