//===- config_isa_test.cpp - the checks done once, at the first call ------===//
//
// The ISA check (real cpuid answers agree with the compiler's
// __builtin_cpu_supports; ARGUS_FAKE_MISSING_ISA makes every kernel entry
// fail with UNSUPPORTED naming the feature while the information functions
// keep working) and the consistency check of generated tables.
//
//===----------------------------------------------------------------------===//
#include "argus_config.h"
#include "argus_isa.h"
#include "fake_library.h"
#include "runtime_testing.h"

namespace {

using rt_test::contains;
using rt_test::GemmProblem;
using rt_test::ScopedEnv;

#if defined(__x86_64__)
TEST(Isa, AgreesWithTheCompilersCpuSupports) {
  __builtin_cpu_init();
  EXPECT_EQ(argus_rt::cpuHasFeature("sse2"), __builtin_cpu_supports("sse2") ? 1 : 0);
  EXPECT_EQ(argus_rt::cpuHasFeature("sse4.2"), __builtin_cpu_supports("sse4.2") ? 1 : 0);
  EXPECT_EQ(argus_rt::cpuHasFeature("avx"), __builtin_cpu_supports("avx") ? 1 : 0);
  EXPECT_EQ(argus_rt::cpuHasFeature("avx2"), __builtin_cpu_supports("avx2") ? 1 : 0);
  EXPECT_EQ(argus_rt::cpuHasFeature("fma"), __builtin_cpu_supports("fma") ? 1 : 0);
  EXPECT_EQ(argus_rt::cpuHasFeature("avx512f"), __builtin_cpu_supports("avx512f") ? 1 : 0);
  EXPECT_EQ(argus_rt::cpuHasFeature("avx512bw"), __builtin_cpu_supports("avx512bw") ? 1 : 0);
  EXPECT_EQ(argus_rt::cpuHasFeature("avx512vl"), __builtin_cpu_supports("avx512vl") ? 1 : 0);
  EXPECT_EQ(argus_rt::cpuHasFeature("avx512vnni"),
            __builtin_cpu_supports("avx512vnni") ? 1 : 0);
  EXPECT_EQ(argus_rt::cpuHasFeature("avx512bf16"),
            __builtin_cpu_supports("avx512bf16") ? 1 : 0);
  EXPECT_EQ(argus_rt::cpuHasFeature("sse2"), 1) << "every x86-64 CPU has SSE2";
}
#endif

TEST(Isa, UnknownFeatureNames) {
  EXPECT_EQ(argus_rt::cpuHasFeature("avx1024"), -1);
  std::string message = argus_rt::checkIsa("sse2,avx1024", nullptr);
  EXPECT_TRUE(contains(message, "does not know how to detect avx1024")) << message;
}

TEST(Isa, CheckListsEveryMissingFeature) {
  EXPECT_EQ(argus_rt::checkIsa("", nullptr), "");
  EXPECT_EQ(argus_rt::checkIsa(" , ", nullptr), "");
#if defined(__x86_64__)
  EXPECT_EQ(argus_rt::checkIsa("sse2", nullptr), "");
  EXPECT_EQ(argus_rt::checkIsa("sse2", "avx2"), "") << "faking a feature not required is moot";
  std::string message = argus_rt::checkIsa("sse2, sse4.2 ,avx", "avx,sse4.2");
  EXPECT_TRUE(contains(message, "built for 'sse2, sse4.2 ,avx'")) << message;
  EXPECT_TRUE(contains(message, "lacks sse4.2 (ARGUS_FAKE_MISSING_ISA),avx")) << message;
#endif
}

TEST(Isa, FakeMissingFeatureFailsEveryKernelEntry) {
  if (!argus_rt::checkIsa(argus_generated_isa, nullptr).empty())
    GTEST_SKIP() << "this CPU lacks " << argus_generated_isa << " for real";
  GemmProblem p(4, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 1.0f, 0.0f, false);
  ASSERT_EQ(argus_gemm(&p.args, nullptr), ARGUS_OK) << argus_last_error();
  {
    ScopedEnv fake("ARGUS_FAKE_MISSING_ISA", "fma");
    int64_t calls = fake::lastCall().calls;
    EXPECT_EQ(argus_gemm(&p.args, nullptr), ARGUS_ERROR_UNSUPPORTED);
    EXPECT_EQ(fake::lastCall().calls, calls);
    std::string message = argus_last_error();
    EXPECT_TRUE(contains(message, "argus_gemm: this library was built for 'avx2,fma'")) << message;
    EXPECT_TRUE(contains(message, "lacks fma")) << message;
    EXPECT_EQ(argus_gemm_kernel_name(&p.args), nullptr);

    argus_attention_decode_args d{};
    EXPECT_EQ(argus_attention_decode(&d, nullptr), ARGUS_ERROR_UNSUPPORTED);
    EXPECT_TRUE(contains(argus_last_error(), "argus_attention_decode: ")) << argus_last_error();
    EXPECT_TRUE(contains(argus_last_error(), "lacks fma")) << argus_last_error();
    argus_attention_prefill_args pf{};
    EXPECT_EQ(argus_attention_prefill(&pf, nullptr), ARGUS_ERROR_UNSUPPORTED);
    argus_moe_args moe{};
    EXPECT_EQ(argus_moe(&moe, nullptr), ARGUS_ERROR_UNSUPPORTED);

    // An engine can still ask the library what it is.
    EXPECT_STREQ(argus_version(), "1.2.3");
    EXPECT_EQ(argus_abi_version(), 1u);
  }
  EXPECT_EQ(argus_gemm(&p.args, nullptr), ARGUS_OK) << argus_last_error();
}

TEST(Tables, TheLinkedTablesAreConsistent) {
  EXPECT_EQ(argus_rt::checkGemmTables(argus_gemm_groups, argus_gemm_group_count,
                                      argus_gemm_fallbacks, argus_gemm_fallback_count),
            "");
  EXPECT_EQ(argus_rt::checkMoeTables(argus_moe_kernels, argus_moe_kernel_count), "");
  EXPECT_EQ(argus_rt::config().status, ARGUS_OK) << argus_rt::config().message;
}

void dummyKernel(const argus_cpu_arg *, int) {}

TEST(Tables, InconsistentTablesAreDiagnosed) {
  const int64_t descending[] = {64, 8};
  const int64_t good[] = {8, 64};
  const argus_cpu_kernel_fn kernels[] = {dummyKernel, nullptr};
  const argus_cpu_kernel_fn twoKernels[] = {dummyKernel, dummyKernel};
  const char *const names[] = {"a", "b"};
  argus_gemm_group group = {96, 48, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, ARGUS_DTYPE_F32,
                            2,  descending, twoKernels, names};
  std::string message = argus_rt::checkGemmTables(&group, 1, nullptr, 0);
  EXPECT_TRUE(contains(message, "GEMM group 0 (n=96, k=48, bf16 x bf16 -> f32)")) << message;
  EXPECT_TRUE(contains(message, "strictly ascending")) << message;
  EXPECT_TRUE(contains(message, "bounds {64, 8}")) << message;

  group.bucket_bounds = good;
  group.kernels = kernels;
  message = argus_rt::checkGemmTables(&group, 1, nullptr, 0);
  EXPECT_TRUE(contains(message, "NULL kernel or name for bucket 1")) << message;

  group.kernels = twoKernels;
  group.n = 0;
  message = argus_rt::checkGemmTables(&group, 1, nullptr, 0);
  EXPECT_TRUE(contains(message, "n and k must be >= 1")) << message;

  const argus_cpu_kernel_fn oneKernel[] = {dummyKernel};
  const char *const noName[] = {nullptr};
  const int64_t oneBound[] = {8};
  argus_gemm_fallback fallback = {ARGUS_DTYPE_F16, ARGUS_DTYPE_F16, ARGUS_DTYPE_F16, 1, oneBound, oneKernel, noName};
  message = argus_rt::checkGemmTables(nullptr, 0, &fallback, 1);
  EXPECT_TRUE(contains(message, "GEMM fallback 0 (f16 x f16 -> f16): NULL kernel or name for bucket 0")) << message;
  fallback.num_buckets = 0;
  message = argus_rt::checkGemmTables(nullptr, 0, &fallback, 1);
  EXPECT_TRUE(contains(message, "GEMM fallback 0 (f16 x f16 -> f16): expected at least one bucket bound")) << message;

  EXPECT_TRUE(contains(argus_rt::checkGemmTables(nullptr, -1, nullptr, 0), "is -1"));

  // MoE tiers: ascending row limits, the last one unbounded, no NULL kernel.
  argus_moe_tier tiers[] = {
      {1, dummyKernel, dummyKernel, 1}, {4, dummyKernel, dummyKernel, 4}, {INT64_MAX, dummyKernel, dummyKernel, 32}};
  argus_moe_kernel moe = {ARGUS_DTYPE_BF16, 0, 0, 0, 4, 3, tiers, "bf16_generic"};
  EXPECT_EQ(argus_rt::checkMoeTables(&moe, 1), "");
  tiers[2].max_rows = 32;
  message = argus_rt::checkMoeTables(&moe, 1);
  EXPECT_TRUE(contains(message, "MoE entry 0 (bf16_generic): the last tier must take any number of rows")) << message;
  tiers[2].max_rows = INT64_MAX;
  tiers[1].max_rows = 1;
  EXPECT_TRUE(contains(argus_rt::checkMoeTables(&moe, 1), "strictly ascending"));
  tiers[1].max_rows = 4;
  tiers[2].block_rows = 0;
  EXPECT_TRUE(contains(argus_rt::checkMoeTables(&moe, 1), "tier 2 has no rows per block"));
  tiers[2].block_rows = 32;
  tiers[0].down = nullptr;
  EXPECT_TRUE(contains(argus_rt::checkMoeTables(&moe, 1), "NULL kernel in tier 0"));
  moe.num_tiers = 0;
  EXPECT_TRUE(contains(argus_rt::checkMoeTables(&moe, 1), "expected at least one tier"));
  EXPECT_TRUE(contains(argus_rt::checkGemmTables(nullptr, 2, nullptr, 0), "NULL"));
}

} // namespace
