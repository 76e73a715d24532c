//===- argus_hip_prefill.cpp - argus_attention_prefill of a hip library ----===//
//
// Validation shared with every target (argus_attention_validate.h), then the
// code object's generated prefill kernel for the call's configuration
// (element type, GQA group, head dims: argus_hip_registry.h), which launches
// itself over (query blocks of max_seqlen_q, heads, sequences) on the
// caller's stream; cu_seqlens are read on the device, and a sequence keeps at
// most max_seqlen_q rows (the C ABI's contract: none is longer). A
// configuration the catalog did not name has no kernel:
// ARGUS_ERROR_UNSUPPORTED says which the library has.
//
//===----------------------------------------------------------------------===//
#include "argus_error.h"
#include "argus_gpu_prefill.h"
#include "argus_hip_registry.h"

#include <climits>
#include <cstdint>
#include <string>

using namespace argus_rt;

namespace {

const argus_hip_prefill_kernel *kernelFor(const argus_attention_prefill_args &a) {
  const bool f16 = a.dtype == ARGUS_DTYPE_F16;
  for (int32_t i = 0; i < argus_hip_prefill_kernel_count; ++i) {
    const argus_hip_prefill_kernel &k = argus_hip_prefill_kernels[i];
    if ((k.f16 != 0) == f16 && k.group == a.num_heads / a.num_kv_heads && k.head_dim == a.head_dim &&
        k.v_head_dim == a.v_head_dim)
      return &k;
  }
  return nullptr;
}

argus_status noKernelFor(const argus_attention_prefill_args &a) {
  std::string have;
  for (int32_t i = 0; i < argus_hip_prefill_kernel_count; ++i) {
    const argus_hip_prefill_kernel &k = argus_hip_prefill_kernels[i];
    have += std::string(have.empty() ? "" : "; ") + (k.f16 ? "f16" : "bf16") + ", " + std::to_string(k.group) +
            " query heads per KV head, head_dim " + std::to_string(k.head_dim) + "/" + std::to_string(k.v_head_dim);
  }
  return fail(ARGUS_ERROR_UNSUPPORTED,
              "argus_attention_prefill: this library has no prefill kernel for %s, %lld query heads per KV head, "
              "head_dim %lld/%lld; it has kernels for the catalog's: %s (the manifest's left_out_kernels names any "
              "the build left out, and why)",
              a.dtype == ARGUS_DTYPE_F16 ? "f16" : "bf16", static_cast<long long>(a.num_heads / a.num_kv_heads),
              static_cast<long long>(a.head_dim), static_cast<long long>(a.v_head_dim),
              have.empty() ? "none" : have.c_str());
}

} // namespace

extern "C" ARGUS_API argus_status argus_attention_prefill(const argus_attention_prefill_args *args, void *stream) {
  return guard("argus_attention_prefill", [&] {
    // The generated kernels take any alignment and head dims; what each is compiled for is its table entry.
    static constexpr GpuPrefillLimits kLimits{"the generated CDNA kernels", 1, INT_MAX, 1, INT_MAX, 128, nullptr,
                                              /*takesF16=*/true, /*inputAlignment=*/2, /*outputAlignment=*/2};
    argus_attention_prefill_args a;
    GpuPrefillStep step;
    if (argus_status s = prepareGpuPrefill(args, kLimits, a, &step, nullptr); s || step == GpuPrefillStep::Noop)
      return s;
    const argus_hip_prefill_kernel *kernel = kernelFor(a);
    if (!kernel)
      return noKernelFor(a);
    return kernel->launch(&a, prefillScale(a), kernel->symbol, stream);
  });
}
