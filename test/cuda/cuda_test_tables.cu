// Hand-written tables of a cuda-sm90a library for the runtime tests: one catalog GEMM (n = 4096,
// k = 4096) with a decode and a prefill bucket, as argus-gen would emit them.
#include "argus_cuda_launch.h"
#include "argus_cuda_registry.h"

using argus::sm90::launchArgusGemm;

static const int64_t qkv_bounds[] = {64, 8192};
static const argus_cuda_gemm_launcher qkv_launchers[] = {launchArgusGemm<false, 64, 128, 4, 4>,
                                                         launchArgusGemm<true, 128, 256, 3>};
static const char *const qkv_names[] = {"argus_sm90_o_m64", "argus_sm90_o_m8192"};

extern "C" {
const argus_cuda_gemm_group argus_cuda_gemm_groups[] = {{4096, 4096, 2, qkv_bounds, qkv_launchers, qkv_names}};
const int32_t argus_cuda_gemm_group_count = 1;
const argus_cuda_generated_gemm argus_cuda_generated_gemms[] = {{0, 0, 0, nullptr, nullptr}};  // none: count is 0
const int32_t argus_cuda_generated_gemm_count = 0;
const char argus_generated_version[] = "0.0.0-test";
const char argus_generated_manifest[] = "{\"target\": \"cuda-sm90a\", \"model\": \"runtime-test\"}";
const char argus_generated_target[] = "cuda-sm90a";
}
