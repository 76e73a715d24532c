//===- argus_cuda_gemm.cu - argus_gemm of a cuda-sm90a library ------------===//
//
// Sequencing as on the CPU: environment -> arguments valid -> plan -> device
// -> run (the front shared with the hip target is argus_gpu_gemm.h).
// Planning needs no GPU, so argus_gemm_kernel_name answers on any machine and
// an unsupported call is reported as such before the device is asked.
// Pointers are device pointers; the work is enqueued on `stream` (a
// cudaStream_t, NULL for the legacy default stream) and nothing synchronises.
//
//===----------------------------------------------------------------------===//
#include "argus_cuda_device.h"
#include "argus_cuda_launch.h"
#include "argus_cuda_registry.h"
#include "argus_checks.h"
#include "argus_error.h"
#include "argus_gpu_gemm.h"
#include "argus_sm90_schedule.h"

#include <algorithm>

namespace argus_rt {
namespace {

using argus::sm90::GemmConfig;
using argus::sm90::launchArgusGemm;

enum class PlanKind { Noop, BetaScale, Kernel };

struct CudaGemmPlan {
  PlanKind kind = PlanKind::Noop;
  argus_cuda_gemm_launcher launcher = nullptr;
  const char *name = "argus_noop";
};

// The generic path's launcher and name for a configuration chooseGemmConfig returns.
struct GenericKernel {
  GemmConfig config;
  argus_cuda_gemm_launcher launcher;
  const char *name;
};
using argus::sm90::GemmSchedule;
using argus::sm90::launchArgusGemmRows;
constexpr GemmSchedule kP = GemmSchedule::Persistent, kK = GemmSchedule::SplitK, kR = GemmSchedule::Rows;
const GenericKernel kGenericKernels[] = {
    {{kR, 8, 16, 2, 1}, launchArgusGemmRows<1, 1>, "argus_sm90_generic_r8_w8_u2"},
    {{kR, 8, 16, 2, 2}, launchArgusGemmRows<1, 2>, "argus_sm90_generic_r8_w8_u2_k2"},
    {{kR, 8, 16, 2, 4}, launchArgusGemmRows<1, 4>, "argus_sm90_generic_r8_w8_u2_k4"},
    {{kR, 8, 16, 2, 8}, launchArgusGemmRows<1, 8>, "argus_sm90_generic_r8_w8_u2_k8"},
    {{kR, 16, 16, 2, 1}, launchArgusGemmRows<2, 1>, "argus_sm90_generic_r16_w8_u2"},
    {{kR, 16, 16, 2, 2}, launchArgusGemmRows<2, 2>, "argus_sm90_generic_r16_w8_u2_k2"},
    {{kR, 16, 16, 2, 4}, launchArgusGemmRows<2, 4>, "argus_sm90_generic_r16_w8_u2_k4"},
    {{kR, 16, 16, 2, 8}, launchArgusGemmRows<2, 8>, "argus_sm90_generic_r16_w8_u2_k8"},
    {{kP, 64, 128, 6, 1}, launchArgusGemm<true, 64, 128, 6>, "argus_sm90_generic_p_64x128_s6"},
    {{kK, 64, 128, 4, 1}, launchArgusGemm<false, 64, 128, 4, 1>, "argus_sm90_generic_k_64x128_s4"},
    {{kK, 64, 128, 4, 2}, launchArgusGemm<false, 64, 128, 4, 2>, "argus_sm90_generic_k_64x128_s4_k2"},
    {{kK, 64, 128, 4, 4}, launchArgusGemm<false, 64, 128, 4, 4>, "argus_sm90_generic_k_64x128_s4_k4"},
    {{kK, 64, 128, 4, 8}, launchArgusGemm<false, 64, 128, 4, 8>, "argus_sm90_generic_k_64x128_s4_k8"},
    {{kK, 128, 128, 4, 2}, launchArgusGemm<false, 128, 128, 4, 2>, "argus_sm90_generic_k_128x128_s4_k2"},
    {{kP, 128, 256, 3, 1}, launchArgusGemm<true, 128, 256, 3>, "argus_sm90_generic_p_128x256_s3"},
    {{kP, 128, 192, 4, 1}, launchArgusGemm<true, 128, 192, 4>, "argus_sm90_generic_p_128x192_s4"},
    {{kP, 128, 160, 4, 1}, launchArgusGemm<true, 128, 160, 4>, "argus_sm90_generic_p_128x160_s4"},
    {{kP, 128, 128, 5, 1}, launchArgusGemm<true, 128, 128, 5>, "argus_sm90_generic_p_128x128_s5"},
};

const GenericKernel *genericKernel(const GemmConfig &c) {
  for (const GenericKernel &g : kGenericKernels)
    if (g.config.schedule == c.schedule && g.config.bm == c.bm && g.config.bn == c.bn &&
        g.config.stages == c.stages && g.config.split == c.split)
      return &g;
  return nullptr;
}

// The generated kernel for a call of `m` rows: the largest tile it fills, else the smallest.
const argus_cuda_generated_gemm *generatedKernel(int64_t m, bool f16) {
  const argus_cuda_generated_gemm *best = nullptr;
  for (int32_t i = 0; i < argus_cuda_generated_gemm_count; ++i) {
    const argus_cuda_generated_gemm &k = argus_cuda_generated_gemms[i];
    if ((k.f16 != 0) != f16)
      continue;
    const bool fills = k.bm <= m, bestFills = best && best->bm <= m;
    if (!best || (fills && (!bestFills || k.bm > best->bm)) || (!fills && !bestFills && k.bm < best->bm))
      best = &k;
  }
  return best;
}

// Picks what runs for `args`; everything the kernels cannot take is UNSUPPORTED here.
argus_status prepare(const argus_gemm_args *args, const char *function, CudaGemmPlan *plan) {
  GpuGemmStep step;
  bool strict;
  if (argus_status s = prepareGpuGemm(args, "cuda-sm90a", /*f16Too=*/true, function, &step, &strict))
    return s;
  const argus_gemm_args &g = *args;
  const bool f16 = g.a_type == ARGUS_DTYPE_F16;
  if (step == GpuGemmStep::Noop || (step == GpuGemmStep::BetaScale && !f16)) {
    *plan = step == GpuGemmStep::Noop ? CudaGemmPlan{} : CudaGemmPlan{PlanKind::BetaScale, nullptr, "argus_beta_scale"};
    return ARGUS_OK;
  }
  // f16, or A or B that TMA cannot address: a generated kernel (k = 0 included: it takes no k step).
  if (f16 || !argus::sm90::tmaCompatible(g.a, g.lda) || !argus::sm90::tmaCompatible(g.b, g.ldb)) {
    if (strict)
      return fail(ARGUS_ERROR_UNSUPPORTED,
                  "%s: the Hopper kernels take bf16 A and B that TMA can address (16-byte aligned, lda and ldb "
                  "multiples of 8; got %s, lda=%lld, ldb=%lld), and ARGUS_STRICT=1 forbids the generated fallback",
                  function, dtypeName(g.a_type), static_cast<long long>(g.lda), static_cast<long long>(g.ldb));
    const argus_cuda_generated_gemm *kernel = generatedKernel(g.m, f16);
    if (!kernel)
      return fail(ARGUS_ERROR_INTERNAL, "%s: the library has no generated %s GEMM kernel", function,
                  f16 ? "f16" : "bf16");
    *plan = {PlanKind::Kernel, kernel->launch, kernel->symbol};
    return ARGUS_OK;
  }
  const argus_cuda_gemm_group *group = nullptr;
  int32_t bucket = 0;
  if (findGemmBucket(argus_cuda_gemm_groups, argus_cuda_gemm_group_count, g, &group, &bucket)) {
    *plan = {PlanKind::Kernel, group->launchers[bucket], group->names[bucket]};
    return ARGUS_OK;
  }
  if (strict)
    return strictGemmRefusal(g, function);
  static const int multiprocessors = argus::sm90::multiprocessorCount();
  const GenericKernel *kernel =
      genericKernel(argus::sm90::chooseGemmConfig(g.m, g.n, g.k, multiprocessors > 0 ? multiprocessors : 132));
  if (!kernel)
    return fail(ARGUS_ERROR_INTERNAL, "%s: the generic configuration for m=%lld, n=%lld is not compiled", function,
                static_cast<long long>(g.m), static_cast<long long>(g.n));
  *plan = {PlanKind::Kernel, kernel->launcher, kernel->name};
  return ARGUS_OK;
}

// k == 0: C = beta * C + bias, C not read when beta is 0 (BLAS).
__global__ void betaScale(__nv_bfloat16 *c, int64_t ldc, const __nv_bfloat16 *bias, float beta, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m * n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = i / n, col = i % n;
    __nv_bfloat16 *out = c + row * ldc + col;
    float v = beta != 0.0f ? beta * __bfloat162float(*out) : 0.0f;
    if (bias)
      v += __bfloat162float(bias[col]);
    *out = __float2bfloat16_rn(v);
  }
}

} // namespace
} // namespace argus_rt

using namespace argus_rt;

extern "C" {

ARGUS_API argus_status argus_gemm(const argus_gemm_args *args, void *stream) {
  return guard("argus_gemm", [&] {
    CudaGemmPlan plan;
    if (argus_status s = prepare(args, "argus_gemm", &plan))
      return s;
    if (plan.kind == PlanKind::Noop)
      return ARGUS_OK;
    if (argus_status s = cudaDeviceReady("argus_gemm"))
      return s;
    if (plan.kind == PlanKind::BetaScale) {
      const int64_t elements = args->m * args->n;
      const int blocks = int(std::min<int64_t>((elements + 255) / 256, 4096));
      betaScale<<<blocks, 256, 0, static_cast<cudaStream_t>(stream)>>>(
          static_cast<__nv_bfloat16 *>(args->c), args->ldc, static_cast<const __nv_bfloat16 *>(args->bias),
          args->beta, args->m, args->n);
      return cudaStatus("argus_gemm", int(cudaGetLastError()));
    }
    return cudaStatus("argus_gemm", plan.launcher(args, stream));
  });
}

ARGUS_API const char *argus_gemm_kernel_name(const argus_gemm_args *args) {
  const char *name = nullptr;
  guard("argus_gemm_kernel_name", [&] {
    CudaGemmPlan plan;
    if (argus_status s = prepare(args, "argus_gemm_kernel_name", &plan))
      return s;
    name = plan.name;
    return ARGUS_OK;
  });
  return name;
}

} // extern "C"
