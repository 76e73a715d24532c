//===- gemm_dispatch_test.cpp - which kernel argus_gemm runs, and how -----===//
//
// Against the hand-written tables of fake_library.h: exact (n, k, dtypes)
// matches pick the bucket of argus_bucket_index (at a bound, between bounds,
// above the last one), other shapes take the dtype's fallback, ARGUS_STRICT
// turns that into UNSUPPORTED naming the shape, and the kernel receives the
// documented argus_cpu_arg layout. argus_gemm_kernel_name must agree with
// the kernel that actually ran.
//
//===----------------------------------------------------------------------===//
#include "argus_checks.h"
#include "argus_gemm_dispatch.h"
#include "fake_library.h"
#include "runtime_testing.h"

#include <cmath>

namespace {

using rt_test::contains;
using rt_test::GemmProblem;
using rt_test::ScopedEnv;

/// Runs argus_gemm and returns the name of the kernel that ran ("" if none).
std::string runAndReport(GemmProblem &p) {
  int64_t before = fake::lastCall().calls;
  argus_status s = argus_gemm(&p.args, nullptr);
  EXPECT_EQ(s, ARGUS_OK) << argus_last_error();
  if (fake::lastCall().calls == before) return "";
  return fake::lastCall().kernel;
}

struct BucketCase {
  int64_t m, n, k;
  argus_dtype ab, c;
  const char *kernel;
};

class GemmBuckets : public ::testing::TestWithParam<BucketCase> {};

TEST_P(GemmBuckets, PicksTheBucketAndComputesCorrectly) {
  const BucketCase &bc = GetParam();
  GemmProblem p(bc.m, bc.n, bc.k, bc.ab, bc.c, /*alpha=*/0.75f, /*beta=*/0.0f,
                /*withBias=*/true, /*pad=*/3, /*seed=*/static_cast<uint32_t>(bc.m * 31 + bc.n));
  const char *predicted = argus_gemm_kernel_name(&p.args);
  ASSERT_NE(predicted, nullptr) << argus_last_error();
  EXPECT_STREQ(predicted, bc.kernel);
  EXPECT_EQ(runAndReport(p), bc.kernel);
  p.expectCorrect();
}

INSTANTIATE_TEST_SUITE_P(
    Catalog, GemmBuckets,
    ::testing::Values(
        // f32 64x32, bounds {1, 16, 128}
        BucketCase{1, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, "f32_n64_k32_m1"},
        BucketCase{2, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, "f32_n64_k32_m16"},
        BucketCase{16, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, "f32_n64_k32_m16"},
        BucketCase{17, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, "f32_n64_k32_m128"},
        BucketCase{128, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, "f32_n64_k32_m128"},
        BucketCase{300, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, "f32_n64_k32_m128"},
        // bf16 -> bf16 96x48, bounds {8, 64}; bf16 -> f32 96x48, bounds {32}
        BucketCase{5, 96, 48, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, "bf16_n96_k48_m8"},
        BucketCase{8, 96, 48, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, "bf16_n96_k48_m8"},
        BucketCase{9, 96, 48, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, "bf16_n96_k48_m64"},
        BucketCase{77, 96, 48, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, "bf16_n96_k48_m64"},
        BucketCase{1, 96, 48, ARGUS_DTYPE_BF16, ARGUS_DTYPE_F32, "bf16f32_n96_k48_m32"},
        BucketCase{45, 96, 48, ARGUS_DTYPE_BF16, ARGUS_DTYPE_F32, "bf16f32_n96_k48_m32"},
        // f16 40x24, bounds {4, 256}
        BucketCase{4, 40, 24, ARGUS_DTYPE_F16, ARGUS_DTYPE_F16, "f16_n40_k24_m4"},
        BucketCase{13, 40, 24, ARGUS_DTYPE_F16, ARGUS_DTYPE_F16, "f16_n40_k24_m256"},
        // not in the catalog: the dtype's fallback
        BucketCase{7, 63, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, "fallback_f32_f32"},
        BucketCase{7, 64, 33, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, "fallback_f32_f32"},
        BucketCase{3, 96, 48, ARGUS_DTYPE_F16, ARGUS_DTYPE_F16, "fallback_f16_f16"},
        BucketCase{19, 40, 24, ARGUS_DTYPE_F16, ARGUS_DTYPE_F32, "fallback_f16_f32"},
        BucketCase{33, 17, 5, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, "fallback_bf16_bf16"},
        BucketCase{2, 64, 32, ARGUS_DTYPE_BF16, ARGUS_DTYPE_F32, "fallback_bf16_f32"}),
    [](const ::testing::TestParamInfo<BucketCase> &info) {
      const BucketCase &c = info.param;
      return "m" + std::to_string(c.m) + "_n" + std::to_string(c.n) + "_k" + std::to_string(c.k) +
             "_" + argus_rt::dtypeName(c.ab) + "_" + argus_rt::dtypeName(c.c);
    });

TEST(GemmDispatch, NonZeroBetaAndNoBiasThroughCatalogAndFallback) {
  for (int64_t n : {64, 65}) {
    GemmProblem p(23, n, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, /*alpha=*/-1.5f, /*beta=*/0.5f,
                  /*withBias=*/false);
    EXPECT_NE(runAndReport(p), "");
    p.expectCorrect();
  }
}

TEST(GemmDispatch, EmptyProblemsAreNoOpsThatDoNotTouchC) {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{0, 64}, {5, 0}, {0, 0}}) {
    GemmProblem p(m, n, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 1.0f, 0.0f, true);
    EXPECT_STREQ(argus_gemm_kernel_name(&p.args), "argus_noop");
    EXPECT_EQ(runAndReport(p), "") << "no kernel may run for m=" << m << ", n=" << n;
    EXPECT_EQ(p.c, p.cBefore);
  }
  // NULL pointers are fine for empty matrices.
  argus_gemm_args g{};
  g.struct_size = sizeof g;
  g.n = 64, g.k = 32, g.lda = 32, g.ldb = 32, g.ldc = 64;
  g.b = reinterpret_cast<const void *>(0x10); // never dereferenced: m == 0
  EXPECT_EQ(argus_gemm(&g, nullptr), ARGUS_OK) << argus_last_error();
}

TEST(GemmDispatch, KZeroScalesCByBetaAndAddsBias) {
  for (argus_dtype c : {ARGUS_DTYPE_F32, ARGUS_DTYPE_BF16, ARGUS_DTYPE_F16}) {
    argus_dtype ab = c == ARGUS_DTYPE_F32 ? ARGUS_DTYPE_F32 : c;
    for (float beta : {0.0f, -0.625f}) {
      GemmProblem p(7, 11, 0, ab, c, /*alpha=*/NAN, beta, /*withBias=*/true);
      EXPECT_STREQ(argus_gemm_kernel_name(&p.args), "argus_beta_scale");
      EXPECT_EQ(runAndReport(p), "");
      p.args.alpha = 0.0f; // the reference: alpha does not matter when k == 0
      p.expectCorrect();
    }
  }
}

TEST(GemmDispatch, StrictTurnsFallbackIntoUnsupported) {
  ScopedEnv strict("ARGUS_STRICT", "1");
  GemmProblem miss(9, 100, 48, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, 1.0f, 0.0f, false);
  int64_t before = fake::lastCall().calls;
  EXPECT_EQ(argus_gemm(&miss.args, nullptr), ARGUS_ERROR_UNSUPPORTED);
  EXPECT_EQ(fake::lastCall().calls, before);
  std::string message = argus_last_error();
  EXPECT_TRUE(contains(message, "ARGUS_STRICT")) << message;
  EXPECT_TRUE(contains(message, "m=9, n=100, k=48")) << message;
  EXPECT_TRUE(contains(message, "bf16 x bf16 -> bf16")) << message;
  EXPECT_TRUE(contains(message, "fallback_bf16_bf16")) << message;
  EXPECT_EQ(miss.c, miss.cBefore);
  EXPECT_EQ(argus_gemm_kernel_name(&miss.args), nullptr);

  // Catalog shapes, and the runtime's own k == 0 path, still run.
  GemmProblem hit(9, 96, 48, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, 1.0f, 0.0f, false);
  EXPECT_EQ(runAndReport(hit), "bf16_n96_k48_m64");
  hit.expectCorrect();
  GemmProblem k0(3, 100, 0, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 1.0f, 2.0f, false);
  EXPECT_EQ(argus_gemm(&k0.args, nullptr), ARGUS_OK) << argus_last_error();
}

TEST(GemmDispatch, StrictValuesAreParsed) {
  GemmProblem miss(9, 100, 48, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 1.0f, 0.0f, false);
  for (const char *off : {"0", "", "false", "off"}) {
    ScopedEnv env("ARGUS_STRICT", off);
    EXPECT_EQ(argus_gemm(&miss.args, nullptr), ARGUS_OK) << off << ": " << argus_last_error();
  }
  for (const char *on : {"true", "YES", "on"}) {
    ScopedEnv env("ARGUS_STRICT", on);
    EXPECT_EQ(argus_gemm(&miss.args, nullptr), ARGUS_ERROR_UNSUPPORTED) << on;
  }
  ScopedEnv bad("ARGUS_STRICT", "maybe");
  EXPECT_EQ(argus_gemm(&miss.args, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(argus_last_error(), "ARGUS_STRICT")) << argus_last_error();
  EXPECT_TRUE(contains(argus_last_error(), "'maybe'")) << argus_last_error();
}

TEST(GemmDispatch, NumThreadsComesFromTheEnvironment) {
  GemmProblem p(4, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 1.0f, 0.0f, false);
  {
    ScopedEnv env("ARGUS_NUM_THREADS", nullptr);
    runAndReport(p);
    EXPECT_EQ(fake::lastCall().numThreads, 0);
  }
  {
    ScopedEnv env("ARGUS_NUM_THREADS", "3");
    runAndReport(p);
    EXPECT_EQ(fake::lastCall().numThreads, 3);
  }
  for (const char *bad : {"-1", "two", "4x", "99999999999"}) {
    ScopedEnv env("ARGUS_NUM_THREADS", bad);
    EXPECT_EQ(argus_gemm(&p.args, nullptr), ARGUS_ERROR_INVALID_ARGUMENT) << bad;
    EXPECT_TRUE(contains(argus_last_error(), "ARGUS_NUM_THREADS")) << argus_last_error();
  }
}

TEST(GemmDispatch, KernelReceivesTheDocumentedArguments) {
  GemmProblem p(5, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 0.25f, -2.0f, true, /*pad=*/7);
  ASSERT_EQ(runAndReport(p), "f32_n64_k32_m16");
  const argus_cpu_arg *a = fake::lastCall().args;
  EXPECT_EQ(a[0].tensor.data, p.args.a);
  EXPECT_EQ(a[0].tensor.shape[0], 5);
  EXPECT_EQ(a[0].tensor.shape[1], 32);
  EXPECT_EQ(a[0].tensor.stride[0], 39);
  EXPECT_EQ(a[0].tensor.stride[1], 1);
  EXPECT_EQ(a[1].tensor.data, p.args.b);
  EXPECT_EQ(a[1].tensor.shape[0], 64);
  EXPECT_EQ(a[1].tensor.shape[1], 32);
  EXPECT_EQ(a[1].tensor.stride[0], 40);
  EXPECT_EQ(a[1].tensor.stride[1], 1);
  EXPECT_EQ(a[2].tensor.data, p.args.c);
  EXPECT_EQ(a[2].tensor.shape[0], 5);
  EXPECT_EQ(a[2].tensor.shape[1], 64);
  EXPECT_EQ(a[2].tensor.stride[0], 71);
  EXPECT_EQ(a[2].tensor.stride[1], 1);
  EXPECT_EQ(a[3].tensor.data, p.args.bias);
  EXPECT_EQ(a[3].tensor.shape[0], 64);
  EXPECT_EQ(a[3].tensor.stride[0], 1);
  EXPECT_EQ(a[4].f, 0.25);
  EXPECT_EQ(a[5].f, -2.0);
  EXPECT_EQ(a[6].i, 1);

  GemmProblem noBias(5, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 1.0f, 0.0f, false);
  runAndReport(noBias);
  EXPECT_EQ(fake::lastCall().args[3].tensor.data, nullptr);
  EXPECT_EQ(fake::lastCall().args[6].i, 0);
}

TEST(GemmDispatch, LargerStructSizeIsAcceptedForForwardCompatibility) {
  GemmProblem p(3, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 1.0f, 0.0f, false);
  struct Grown {
    argus_gemm_args v1;
    int64_t futureField;
  } grown{p.args, 42};
  grown.v1.struct_size = sizeof grown;
  EXPECT_EQ(argus_gemm(&grown.v1, nullptr), ARGUS_OK) << argus_last_error();
  p.expectCorrect();
}

TEST(GemmDispatch, PlanReportsGroupAndBucket) {
  GemmProblem p(17, 64, 32, ARGUS_DTYPE_F32, ARGUS_DTYPE_F32, 1.0f, 0.0f, false);
  argus_rt::GemmPlan plan;
  ASSERT_EQ(argus_rt::planGemm(p.args, argus_rt::config(), "test", &plan), ARGUS_OK);
  EXPECT_EQ(plan.kind, argus_rt::GemmPlanKind::Kernel);
  EXPECT_EQ(plan.group, 0);
  EXPECT_EQ(plan.bucket, 2);
  EXPECT_FALSE(plan.fallback);
  p.args.n = 65, p.args.ldc = 70;
  ASSERT_EQ(argus_rt::planGemm(p.args, argus_rt::config(), "test", &plan), ARGUS_OK);
  EXPECT_TRUE(plan.fallback);
  EXPECT_EQ(plan.group, -1);
}

} // namespace
