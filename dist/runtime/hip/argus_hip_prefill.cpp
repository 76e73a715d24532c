//===- argus_hip_prefill.cpp - argus_attention_prefill of a hip library ----===//
//
// Validation shared with every target (argus_attention_validate.h), then what
// the CDNA kernel takes: bf16 or f16; head_dim a multiple of 64 up to 192 and
// v_head_dim a multiple of 32 up to 128; q, k and v 16-byte aligned (16-byte
// row loads). One launch over (query blocks of max_seqlen_q, heads,
// sequences) on the caller's stream; cu_seqlens are read on the device, and
// no sequence may be longer than max_seqlen_q (the C ABI's contract).
//
//===----------------------------------------------------------------------===//
#include "argus_error.h"
#include "argus_gpu_prefill.h"
#include "argus_hip_attention_params.h"
#include "argus_hip_runtime.h"

#include <cstdint>

using namespace argus_rt;
using namespace argus::hip;

extern "C" ARGUS_API argus_status argus_attention_prefill(const argus_attention_prefill_args *args, void *stream) {
  return guard("argus_attention_prefill", [&] {
    static constexpr GpuPrefillLimits kLimits{"the CDNA kernel", 64, kMaxPrefillHeadDim, 32, kMaxPrefillValueDim,
                                              kPrefillRows, nullptr, /*takesF16=*/true};
    argus_attention_prefill_args a;
    GpuPrefillStep step;
    PrefillParams params{};
    if (argus_status s = prepareGpuPrefill(args, kLimits, a, &step, &params); s || step == GpuPrefillStep::Noop)
      return s;
    void *arguments[] = {&params};
    const char *kernel = a.dtype == ARGUS_DTYPE_F16 ? "argus_hip_prefill_f16" : "argus_hip_prefill";
    HipLaunch launch{kernel, unsigned((a.max_seqlen_q + kPrefillRows - 1) / kPrefillRows), unsigned(a.num_heads),
                     kPrefillWaves * 64, arguments};
    launch.gridZ = unsigned(a.batch);
    return hipLaunch("argus_attention_prefill", launch, stream);
  });
}
