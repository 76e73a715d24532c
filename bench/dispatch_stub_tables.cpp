//===- dispatch_stub_tables.cpp - Llama-3-8B tables with no-op kernels ----===//
//
// The kernel tables argus-gen would emit for shapes/llama3-8b.yaml (five
// bf16 GEMM shapes, one kernel per token bucket, generic fallbacks), with
// every kernel a no-op. Linked with the runtime into a shared library the
// way argus-gen links a real one, it isolates what a serving engine pays per
// call for the C ABI itself: argument checks, the shape lookup, the bucket
// search and building the kernel's arguments (dispatch_bench.cpp).
//
//===----------------------------------------------------------------------===//
#include "argus_registry.h"

namespace {

volatile int64_t kernelCalls = 0; // the kernel's one side effect: it cannot be optimised away

void noopKernel(const argus_cpu_arg *, int) { kernelCalls = kernelCalls + 1; }

// The catalog's decode batches and prefill token counts, merged.
const int64_t llamaBounds[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
constexpr int32_t kLlamaBuckets = sizeof llamaBounds / sizeof llamaBounds[0];
const argus_cpu_kernel_fn llamaKernels[kLlamaBuckets] = {noopKernel, noopKernel, noopKernel, noopKernel, noopKernel,
                                                         noopKernel, noopKernel, noopKernel, noopKernel, noopKernel,
                                                         noopKernel, noopKernel, noopKernel, noopKernel};
const char *const llamaNames[kLlamaBuckets] = {"m1",   "m2",   "m4",    "m8",    "m16",   "m32",   "m64",
                                               "m128", "m256", "m512", "m1024", "m2048", "m4096", "m8192"};

const int64_t fallbackBounds[] = {4, 16, 32, 128, 256};
const argus_cpu_kernel_fn fallbackKernels[] = {noopKernel, noopKernel, noopKernel, noopKernel, noopKernel};
const char *const fallbackNames[] = {"f4", "f16", "f32", "f128", "f256"};

} // namespace

#define LLAMA_GROUP(N, K)                                                                                          \
  {N, K, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, kLlamaBuckets, llamaBounds, llamaKernels, llamaNames}
const argus_gemm_group argus_gemm_groups[] = {LLAMA_GROUP(6144, 4096), LLAMA_GROUP(4096, 4096),
                                              LLAMA_GROUP(28672, 4096), LLAMA_GROUP(4096, 14336),
                                              LLAMA_GROUP(128256, 4096)};
const int32_t argus_gemm_group_count = 5;

#define FALLBACK(A, C) {ARGUS_DTYPE_##A, ARGUS_DTYPE_##A, ARGUS_DTYPE_##C, 5, fallbackBounds, fallbackKernels, fallbackNames}
const argus_gemm_fallback argus_gemm_fallbacks[] = {FALLBACK(F32, F32), FALLBACK(BF16, BF16), FALLBACK(BF16, F32),
                                                    FALLBACK(F16, F16), FALLBACK(F16, F32)};
const int32_t argus_gemm_fallback_count = 5;

const argus_attention_kernel argus_prefill_kernels[] = {{ARGUS_DTYPE_F32, 0, 0, 0, 0, 0, nullptr, ""}};
const int32_t argus_prefill_kernel_count = 0;
const argus_attention_kernel argus_decode_kernels[] = {{ARGUS_DTYPE_F32, 0, 0, 0, 0, 0, nullptr, ""}};
const int32_t argus_decode_kernel_count = 0;
const argus_moe_kernel argus_moe_kernels[] = {{ARGUS_DTYPE_F32, 0, 0, 0, 0, 0, nullptr, ""}};
const int32_t argus_moe_kernel_count = 0;

const char argus_generated_version[] = "1.0.0";
const char argus_generated_manifest[] = "{\"model\": \"dispatch-stub\", \"kernels\": []}";
const char argus_generated_isa[] = "";

// The no-op kernel itself, exported (like the C ABI) for the direct-call baseline.
extern "C" __attribute__((visibility("default"))) void argus_dispatch_stub_noop(const argus_cpu_arg *args, int threads) { noopKernel(args, threads); }
