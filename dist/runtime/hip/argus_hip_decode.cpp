//===- argus_hip_decode.cpp - argus_attention_decode of a hip library ------===//
//
// Validation shared with every target (argus_attention_validate.h), then the
// code object's generated decode kernel for the call's configuration (element
// type, GQA group, head dims, page size: argus_hip_registry.h), which
// launches itself over (KV heads, sequences) on the caller's stream;
// block_table and seqlens_kv are read on the device. A configuration the
// catalog did not name has no kernel: ARGUS_ERROR_UNSUPPORTED says which the
// library has.
//
//===----------------------------------------------------------------------===//
#include "argus_error.h"
#include "argus_gpu_decode.h"
#include "argus_hip_registry.h"

#include <climits>
#include <cstdint>
#include <string>

using namespace argus_rt;

namespace {

const argus_hip_decode_kernel *kernelFor(const argus_attention_decode_args &a) {
  const bool f16 = a.dtype == ARGUS_DTYPE_F16;
  for (int32_t i = 0; i < argus_hip_decode_kernel_count; ++i) {
    const argus_hip_decode_kernel &k = argus_hip_decode_kernels[i];
    if ((k.f16 != 0) == f16 && k.group == a.num_heads / a.num_kv_heads && k.head_dim == a.head_dim &&
        k.v_head_dim == a.v_head_dim && k.page_size == a.page_size)
      return &k;
  }
  return nullptr;
}

argus_status noKernelFor(const argus_attention_decode_args &a) {
  std::string have;
  for (int32_t i = 0; i < argus_hip_decode_kernel_count; ++i) {
    const argus_hip_decode_kernel &k = argus_hip_decode_kernels[i];
    have += std::string(have.empty() ? "" : "; ") + (k.f16 ? "f16" : "bf16") + ", " + std::to_string(k.group) +
            " query heads per KV head, head_dim " + std::to_string(k.head_dim) + "/" + std::to_string(k.v_head_dim) +
            ", page_size " + std::to_string(k.page_size);
  }
  return fail(ARGUS_ERROR_UNSUPPORTED,
              "argus_attention_decode: this library has no decode kernel for %s, %lld query heads per KV head, "
              "head_dim %lld/%lld, page_size %lld; it has kernels for the catalog's: %s (the manifest's "
              "left_out_kernels names any the build left out, and why)",
              a.dtype == ARGUS_DTYPE_F16 ? "f16" : "bf16", static_cast<long long>(a.num_heads / a.num_kv_heads),
              static_cast<long long>(a.head_dim), static_cast<long long>(a.v_head_dim),
              static_cast<long long>(a.page_size), have.empty() ? "none" : have.c_str());
}

} // namespace

extern "C" ARGUS_API argus_status argus_attention_decode(const argus_attention_decode_args *args, void *stream) {
  return guard("argus_attention_decode", [&] {
    // The generated kernels take any alignment and sizes; what each is compiled for is its table entry.
    static constexpr GpuDecodeLimits kLimits{"the generated CDNA kernels", INT_MAX, INT_MAX, INT_MAX, 1, 65535,
                                             /*takesF16=*/true, /*keyAlignment=*/2};
    argus_attention_decode_args a;
    GpuDecodeStep step;
    float scaleLog2 = 0.0f;
    if (argus_status s = prepareGpuDecode(args, kLimits, a, &step, &scaleLog2); s || step == GpuDecodeStep::Noop)
      return s;
    const argus_hip_decode_kernel *kernel = kernelFor(a);
    if (!kernel)
      return noKernelFor(a);
    return kernel->launch(&a, decodeScale(a), kernel->symbol, stream);
  });
}
