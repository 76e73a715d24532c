//===- argus_hip_decode.cpp - argus_attention_decode of a hip library ------===//
//
// Validation shared with every target (argus_attention_validate.h), then what
// the CDNA kernel takes: bf16 or f16; head_dim a multiple of 8 up to 256 (16-byte
// key loads from a 16-byte aligned k_cache); v_head_dim up to 256; at most 8
// query heads per KV head. One launch over (KV heads, sequences) on the
// caller's stream; block_table and seqlens_kv are read on the device.
//
//===----------------------------------------------------------------------===//
#include "argus_error.h"
#include "argus_gpu_decode.h"
#include "argus_hip_attention_params.h"
#include "argus_hip_runtime.h"

#include <cstdint>

using namespace argus_rt;
using namespace argus::hip;

extern "C" ARGUS_API argus_status argus_attention_decode(const argus_attention_decode_args *args, void *stream) {
  return guard("argus_attention_decode", [&] {
    static constexpr GpuDecodeLimits kLimits{"the CDNA kernel", kMaxDecodeGroup, kMaxDecodeHeadDim,
                                             kMaxDecodeValueDim, 1, 65535, /*takesF16=*/true};
    argus_attention_decode_args a;
    GpuDecodeStep step;
    float scaleLog2 = 0.0f;
    if (argus_status s = prepareGpuDecode(args, kLimits, a, &step, &scaleLog2); s || step == GpuDecodeStep::Noop)
      return s;
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
                        scaleLog2};
    void *arguments[] = {&params};
    const char *kernel = a.dtype == ARGUS_DTYPE_F16 ? "argus_hip_decode_f16" : "argus_hip_decode";
    return hipLaunch("argus_attention_decode",
                     {kernel, unsigned(a.num_kv_heads), unsigned(a.batch), kDecodeWaves * 64, arguments}, stream);
  });
}
