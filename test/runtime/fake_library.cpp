//===- fake_library.cpp - the tables and kernels of fake_library.h --------===//
//
// The kernels follow the calling convention of argus_registry.h literally:
// they take every size and leading dimension from the argus_cpu_arg they are
// given, so a runtime that builds the arguments wrongly produces wrong
// numbers, not just a wrong record. Accumulation is in f32 and the epilogue
// rounds once to c_type, like a generated kernel.
//
//===----------------------------------------------------------------------===//
#include "fake_library.h"

#include "argus_numerics.h"

namespace fake {

LastCall &lastCall() {
  thread_local LastCall call;
  return call;
}

namespace {

float load(const void *base, int64_t i, argus_dtype t) {
  if (t == ARGUS_DTYPE_BF16) return argus_num::bf16_to_f32(static_cast<const uint16_t *>(base)[i]);
  if (t == ARGUS_DTYPE_F16) return argus_num::f16_to_f32(static_cast<const uint16_t *>(base)[i]);
  return static_cast<const float *>(base)[i];
}

void store(void *base, int64_t i, argus_dtype t, float v) {
  if (t == ARGUS_DTYPE_BF16)
    static_cast<uint16_t *>(base)[i] = argus_num::f32_to_bf16(v);
  else if (t == ARGUS_DTYPE_F16)
    static_cast<uint16_t *>(base)[i] = argus_num::f32_to_f16(v);
  else
    static_cast<float *>(base)[i] = v;
}

void gemm(const argus_cpu_arg *args, int numThreads, const char *name, argus_dtype ab,
          argus_dtype c) {
  LastCall &call = lastCall();
  call.kernel = name;
  for (int i = 0; i < ARGUS_GEMM_KERNEL_ARGS; ++i) call.args[i] = args[i];
  call.numThreads = numThreads;
  call.calls++;

  const argus_cpu_tensor &A = args[0].tensor, &B = args[1].tensor, &C = args[2].tensor,
                         &bias = args[3].tensor;
  float alpha = static_cast<float>(args[4].f), beta = static_cast<float>(args[5].f);
  bool hasBias = args[6].i != 0;
  int64_t m = C.shape[0], n = C.shape[1], k = A.shape[1];
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; p < k; ++p)
        acc += load(A.data, i * A.stride[0] + p * A.stride[1], ab) *
               load(B.data, j * B.stride[0] + p * B.stride[1], ab);
      int64_t at = i * C.stride[0] + j * C.stride[1];
      float value = alpha * acc;
      if (beta != 0.0f) value += beta * load(C.data, at, c);
      if (hasBias) value += load(bias.data, j * bias.stride[0], c);
      store(C.data, at, c, value);
    }
  }
}

#define FAKE_KERNEL(NAME, AB, C)                                                                  \
  void NAME(const argus_cpu_arg *args, int numThreads) {                                         \
    gemm(args, numThreads, #NAME, ARGUS_DTYPE_##AB, ARGUS_DTYPE_##C);                            \
  }

FAKE_KERNEL(f32_n64_k32_m1, F32, F32)
FAKE_KERNEL(f32_n64_k32_m16, F32, F32)
FAKE_KERNEL(f32_n64_k32_m128, F32, F32)
FAKE_KERNEL(bf16_n96_k48_m8, BF16, BF16)
FAKE_KERNEL(bf16_n96_k48_m64, BF16, BF16)
FAKE_KERNEL(bf16f32_n96_k48_m32, BF16, F32)
FAKE_KERNEL(f16_n40_k24_m4, F16, F16)
FAKE_KERNEL(f16_n40_k24_m256, F16, F16)
FAKE_KERNEL(fallback_f32_f32, F32, F32)
FAKE_KERNEL(fallback_bf16_bf16, BF16, BF16)
FAKE_KERNEL(fallback_bf16_f32, BF16, F32)
FAKE_KERNEL(fallback_f16_f16, F16, F16)
FAKE_KERNEL(fallback_f16_f32, F16, F32)

const int64_t f32Bounds[] = {1, 16, 128};
const argus_cpu_kernel_fn f32Kernels[] = {f32_n64_k32_m1, f32_n64_k32_m16, f32_n64_k32_m128};
const char *const f32Names[] = {"f32_n64_k32_m1", "f32_n64_k32_m16", "f32_n64_k32_m128"};

const int64_t bf16Bounds[] = {8, 64};
const argus_cpu_kernel_fn bf16Kernels[] = {bf16_n96_k48_m8, bf16_n96_k48_m64};
const char *const bf16Names[] = {"bf16_n96_k48_m8", "bf16_n96_k48_m64"};

const int64_t bf16f32Bounds[] = {32};
const argus_cpu_kernel_fn bf16f32Kernels[] = {bf16f32_n96_k48_m32};
const char *const bf16f32Names[] = {"bf16f32_n96_k48_m32"};

const int64_t f16Bounds[] = {4, 256};
const argus_cpu_kernel_fn f16Kernels[] = {f16_n40_k24_m4, f16_n40_k24_m256};
const char *const f16Names[] = {"f16_n40_k24_m4", "f16_n40_k24_m256"};

} // namespace
} // namespace fake

using namespace fake;

const argus_gemm_group argus_gemm_groups[] = {
    {64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 3, f32Bounds, f32Kernels, f32Names},
    {96, 48, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, 2, bf16Bounds, bf16Kernels,
     bf16Names},
    {96, 48, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, ARGUS_DTYPE_F32, 1, bf16f32Bounds, bf16f32Kernels,
     bf16f32Names},
    {40, 24, ARGUS_DTYPE_F16, ARGUS_DTYPE_F16, ARGUS_DTYPE_F16, 2, f16Bounds, f16Kernels, f16Names},
};
const int32_t argus_gemm_group_count = 4;

// One bucket each: every m reaches the one generic kernel of its dtypes.
#define FAKE_FALLBACK(A, C, fn)                                                                  \
  {ARGUS_DTYPE_##A, ARGUS_DTYPE_##A, ARGUS_DTYPE_##C, 1, oneBucket, fn##_kernel, fn##_name}
const int64_t oneBucket[] = {1};
const argus_cpu_kernel_fn fallback_f32_f32_kernel[] = {fallback_f32_f32};
const char *const fallback_f32_f32_name[] = {"fallback_f32_f32"};
const argus_cpu_kernel_fn fallback_bf16_bf16_kernel[] = {fallback_bf16_bf16};
const char *const fallback_bf16_bf16_name[] = {"fallback_bf16_bf16"};
const argus_cpu_kernel_fn fallback_bf16_f32_kernel[] = {fallback_bf16_f32};
const char *const fallback_bf16_f32_name[] = {"fallback_bf16_f32"};
const argus_cpu_kernel_fn fallback_f16_f16_kernel[] = {fallback_f16_f16};
const char *const fallback_f16_f16_name[] = {"fallback_f16_f16"};
const argus_cpu_kernel_fn fallback_f16_f32_kernel[] = {fallback_f16_f32};
const char *const fallback_f16_f32_name[] = {"fallback_f16_f32"};

const argus_gemm_fallback argus_gemm_fallbacks[] = {
    FAKE_FALLBACK(F32, F32, fallback_f32_f32),   FAKE_FALLBACK(BF16, BF16, fallback_bf16_bf16),
    FAKE_FALLBACK(BF16, F32, fallback_bf16_f32), FAKE_FALLBACK(F16, F16, fallback_f16_f16),
    FAKE_FALLBACK(F16, F32, fallback_f16_f32),
};
const int32_t argus_gemm_fallback_count = 5;

// No attention kernels: the entry points validate, then report UNSUPPORTED.
const argus_attention_kernel argus_prefill_kernels[] = {{ARGUS_DTYPE_F32, 0, 0, 0, 0, 0, nullptr, ""}};
const int32_t argus_prefill_kernel_count = 0;
const argus_attention_kernel argus_decode_kernels[] = {{ARGUS_DTYPE_F32, 0, 0, 0, 0, 0, nullptr, ""}};
const int32_t argus_decode_kernel_count = 0;

const argus_moe_kernel argus_moe_kernels[] = {{ARGUS_DTYPE_F32, 0, 0, 0, 0, 0, nullptr, ""}};
const int32_t argus_moe_kernel_count = 0;

const char argus_generated_version[] = "1.2.3";
const char argus_generated_manifest[] =
    "{\"model\": \"fake\", \"target\": \"cpu-avx2\", \"catalog_hash\": \"0\", "
    "\"generator_version\": \"test\", \"kernels\": []}";
const char argus_generated_isa[] = "avx2,fma";
