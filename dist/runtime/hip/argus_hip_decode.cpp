//===- argus_hip_decode.cpp - argus_attention_decode of a hip library ------===//
//
// Validation shared with every target (argus_attention_validate.h), then what
// the CDNA kernel takes: bf16; head_dim a multiple of 8 up to 256 (16-byte
// key loads from a 16-byte aligned k_cache); v_head_dim up to 256; at most 8
// query heads per KV head. One launch over (KV heads, sequences) on the
// caller's stream; block_table and seqlens_kv are read on the device.
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

argus_status unsupportedShape(const argus_attention_decode_args &a) {
  const char *function = "argus_attention_decode";
  if (a.dtype != ARGUS_DTYPE_BF16)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: a %s library's decode attention takes bf16, got %s", function,
                argus_generated_target, dtypeName(a.dtype));
  const int64_t group = a.num_heads / a.num_kv_heads;
  if (group > kMaxDecodeGroup)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: %lld query heads per KV head (the CDNA kernel serves up to %d)", function,
                static_cast<long long>(group), kMaxDecodeGroup);
  if (a.head_dim % 8 != 0 || a.head_dim > kMaxDecodeHeadDim || a.v_head_dim > kMaxDecodeValueDim)
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "%s: head_dim %lld / v_head_dim %lld (the CDNA kernel takes head_dim a multiple of 8 up to %d and "
                "v_head_dim up to %d)",
                function, static_cast<long long>(a.head_dim), static_cast<long long>(a.v_head_dim),
                kMaxDecodeHeadDim, kMaxDecodeValueDim);
  if (reinterpret_cast<uintptr_t>(a.k_cache) % 16 != 0)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: k_cache must be 16-byte aligned (the kernel reads keys 16 bytes at a time)",
                function);
  if (a.num_heads > INT_MAX || a.page_size > INT_MAX || a.batch > 65535)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: num_heads and page_size must be below 2^31 and batch at most 65535",
                function);
  return ARGUS_OK;
}

} // namespace
} // namespace argus_rt

using namespace argus_rt;

extern "C" ARGUS_API argus_status argus_attention_decode(const argus_attention_decode_args *args, void *stream) {
  return guard("argus_attention_decode", [&] {
    argus_attention_decode_args a;
    if (argus_status s = validateDecode(args, a))
      return s;
    if (a.batch == 0)
      return ARGUS_OK;
    if (argus_status s = unsupportedShape(a))
      return s;
    const float scale = a.scale != 0.0f ? a.scale : 1.0f / std::sqrt(float(a.head_dim));
    DecodeParams params{static_cast<const uint16_t *>(a.q),
                        static_cast<const uint16_t *>(a.k_cache),
                        static_cast<const uint16_t *>(a.v_cache),
                        a.block_table,
                        a.seqlens_kv,
                        static_cast<uint16_t *>(a.o),
                        a.max_pages_per_seq,
                        int32_t(a.num_heads),
                        int32_t(a.num_kv_heads),
                        int32_t(a.head_dim),
                        int32_t(a.v_head_dim),
                        int32_t(a.page_size),
                        scale * 1.4426950408889634f};
    void *arguments[] = {&params};
    return hipLaunch("argus_attention_decode",
                     {"argus_hip_decode", unsigned(a.num_kv_heads), unsigned(a.batch), kDecodeWaves * 64, arguments},
                     stream);
  });
}
