//===- KernelCheckTest.cpp - template kernels vs float64, both engines ----===//
//
// The GEMM template on ragged shapes (1, 7, 129, 1000, ... never multiples of
// the tile), with every dtype combination, alpha/beta/bias variations, run in
// the interpreter (exact semantics) and compiled by the CPU backend. Pure
// outputs are poisoned with NaN first, so an unwritten element fails.
//
//===----------------------------------------------------------------------===//
#include "argus/Check/KernelCheck.h"

#include <gtest/gtest.h>

using namespace argus;

namespace {

struct GemmCase {
  const char *name;
  check::Engine engine;
  const char *ta, *tc;
  int64_t m, n, k;
  double alpha, beta;
  int hasBias;
  int64_t bm, bn, bk; // 0: the template's defaults
};

const GemmCase kCases[] = {
    // Interpreter: smaller shapes (it runs every element in double).
    {"InterpF32Tiny", check::Engine::Interpreter, "f32", "f32", 1, 1, 1, 1.0, 0.0, 0, 0, 0, 0},
    {"InterpF32Ragged", check::Engine::Interpreter, "f32", "f32", 7, 33, 129, 1.0, 1.0, 1, 0, 0, 0},
    {"InterpF32Tall", check::Engine::Interpreter, "f32", "f32", 129, 7, 100, -0.5, 0.0, 1, 16, 16, 32},
    {"InterpBf16", check::Engine::Interpreter, "bf16", "bf16", 37, 65, 300, 0.5, 0.0, 0, 0, 0, 0},
    {"InterpBf16F32Out", check::Engine::Interpreter, "bf16", "f32", 9, 70, 64, 1.0, 2.0, 1, 8, 32, 64},
    {"InterpF16", check::Engine::Interpreter, "f16", "f16", 5, 17, 96, 1.0, 0.0, 1, 4, 16, 32},
    // CPU backend: the compiled kernels, larger and ragged.
    {"CpuF32Tiny", check::Engine::Cpu, "f32", "f32", 1, 1, 1, 1.0, 0.0, 0, 0, 0, 0},
    {"CpuF32Ragged", check::Engine::Cpu, "f32", "f32", 129, 1000, 7, 1.0, 1.0, 1, 0, 0, 0},
    {"CpuF32Large", check::Engine::Cpu, "f32", "f32", 1000, 129, 1000, 0.25, 0.0, 1, 0, 0, 0},
    {"CpuF32Gemv", check::Engine::Cpu, "f32", "f32", 1, 1000, 777, 1.0, 0.0, 0, 1, 64, 128},
    {"CpuBf16", check::Engine::Cpu, "bf16", "bf16", 129, 1000, 300, 1.0, 0.0, 1, 0, 0, 0},
    {"CpuBf16Gemv", check::Engine::Cpu, "bf16", "bf16", 1, 4096, 1000, 1.0, 0.0, 0, 1, 64, 256},
    {"CpuBf16F32Out", check::Engine::Cpu, "bf16", "f32", 7, 129, 1000, -1.0, 0.5, 1, 4, 64, 256},
    {"CpuF16", check::Engine::Cpu, "f16", "f16", 33, 65, 129, 1.0, 0.0, 1, 8, 32, 64},
};

class GemmTemplate : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmTemplate, MatchesFloat64Reference) {
  const GemmCase &c = GetParam();
  check::CheckOptions opt;
  opt.path = std::string(ARGUS_SOURCE_DIR) + "/templates/gemm/gemm_tn.argus";
  opt.engine = c.engine;
  opt.specialization.constants["TA"] = std::string(c.ta);
  opt.specialization.constants["TC"] = std::string(c.tc);
  if (c.bm) {
    opt.specialization.constants["BM"] = c.bm;
    opt.specialization.constants["BN"] = c.bn;
    opt.specialization.constants["BK"] = c.bk;
  }
  opt.sizes = {{"M", c.m}, {"N", c.n}, {"K", c.k}};
  opt.scalars = {{"alpha", c.alpha}, {"beta", c.beta}, {"has_bias", double(c.hasBias)}};
  opt.seed = 1234 + c.m * 7 + c.n;
  check::CheckReport report = check::runAndCheck(opt);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_TRUE(report.passed) << report.summary();
  ASSERT_EQ(report.tensors.size(), 4u);
}

TEST(GemmTemplate, PinnedDimensionsMatchToo) {
  check::CheckOptions opt;
  opt.path = std::string(ARGUS_SOURCE_DIR) + "/templates/gemm/gemm_tn.argus";
  opt.engine = check::Engine::Cpu;
  opt.specialization.constants["TA"] = std::string("bf16");
  opt.specialization.constants["TC"] = std::string("bf16");
  opt.specialization.dims = {{"N", 200}, {"K", 96}};
  opt.sizes = {{"M", 13}};
  opt.scalars = {{"beta", 0.0}};
  check::CheckReport report = check::runAndCheck(opt);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_TRUE(report.passed) << report.summary();
}

TEST(GemmTemplate, AWrongKernelIsCaught) {
  // The checker must be able to fail: a kernel that drops the last K tile.
  std::string path = ::testing::TempDir() + "/wrong_gemm.argus";
  {
    std::FILE *f = std::fopen(path.c_str(), "w");
    std::fputs(R"(
@kernel(grid=(cdiv(M, BM), cdiv(N, BN)), reference="gemm_tn")
def gemm_tn(A: Tensor[M, K, f32], B: Tensor[N, K, f32], C: Tensor[M, N, f32], bias: Tensor[N, f32],
            alpha: f32, beta: f32, has_bias: i32, BM: const = 16, BN: const = 16, BK: const = 32):
    acc = zeros((BM, BN), f32)
    for kt in range(cdiv(K, BK) - 1):
        acc = mma(load(A.tile((pid(0), kt), (BM, BK))), load(B.tile((pid(1), kt), (BN, BK))), acc)
    store(C.tile((pid(0), pid(1)), (BM, BN)), acc)
)", f);
    std::fclose(f);
  }
  for (check::Engine engine : {check::Engine::Interpreter, check::Engine::Cpu}) {
    check::CheckOptions opt;
    opt.path = path;
    opt.engine = engine;
    opt.sizes = {{"M", 20}, {"N", 20}, {"K", 70}};
    opt.scalars = {{"beta", 0.0}, {"has_bias", 0.0}};
    check::CheckReport report = check::runAndCheck(opt);
    ASSERT_TRUE(report.error.empty()) << report.error;
    EXPECT_FALSE(report.passed) << report.summary();
  }
}

TEST(GemmTemplate, UnwrittenOutputIsCaught) {
  std::string path = ::testing::TempDir() + "/partial_gemm.argus";
  {
    std::FILE *f = std::fopen(path.c_str(), "w");
    std::fputs(R"(
@kernel(grid=(cdiv(M, BM) - 1, cdiv(N, BN)), reference="gemm_tn")
def gemm_tn(A: Tensor[M, K, f32], B: Tensor[N, K, f32], C: Tensor[M, N, f32], bias: Tensor[N, f32],
            alpha: f32, beta: f32, has_bias: i32, BM: const = 16, BN: const = 16, BK: const = 32):
    acc = zeros((BM, BN), f32)
    for kt in range(cdiv(K, BK)):
        acc = mma(load(A.tile((pid(0), kt), (BM, BK))), load(B.tile((pid(1), kt), (BN, BK))), acc)
    store(C.tile((pid(0), pid(1)), (BM, BN)), acc)
)", f);
    std::fclose(f);
  }
  check::CheckOptions opt;
  opt.path = path;
  opt.sizes = {{"M", 40}, {"N", 20}, {"K", 30}};
  opt.scalars = {{"beta", 0.0}, {"has_bias", 0.0}};
  check::CheckReport report = check::runAndCheck(opt);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_FALSE(report.passed);
  EXPECT_GT(report.tensors[2].unwritten, 0) << report.summary();
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmTemplate, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return std::string(info.param.name); });

} // namespace

namespace {

TEST(GemmTemplate, TilesTooLargeForTheStackAreRefused) {
  check::CheckOptions opt;
  opt.path = std::string(ARGUS_SOURCE_DIR) + "/templates/gemm/gemm_tn.argus";
  opt.engine = check::Engine::Cpu;
  opt.specialization.constants = {{"TA", std::string("f16")}, {"BM", int64_t(256)}, {"BN", int64_t(256)},
                                  {"BK", int64_t(512)}};
  opt.sizes = {{"M", 8}, {"N", 8}, {"K", 8}};
  check::CheckReport report = check::runAndCheck(opt);
  EXPECT_NE(report.error.find("KiB of stack for its tiles"), std::string::npos) << report.summary();
  EXPECT_NE(report.error.find("gemm_tn.argus:"), std::string::npos) << "the error names the kernel's location";
}

} // namespace

namespace {

std::string writeKernel(const std::string &name, const char *text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::FILE *f = std::fopen(path.c_str(), "w");
  std::fputs(text, f);
  std::fclose(f);
  return path;
}

TEST(GemmTemplate, ShapesTheReferenceCannotTakeAreRefused) {
  check::CheckOptions opt;
  opt.path = writeKernel("rank1_gemm.argus", R"(
@kernel(grid=(1,), reference="gemm_tn")
def gemm_tn(A: Tensor[M, f32], B: Tensor[N, f32], C: Tensor[M, f32], bias: Tensor[N, f32],
            alpha: f32, beta: f32, has_bias: i32):
    pass
)");
  opt.sizes = {{"M", 3}, {"N", 5}};
  check::CheckReport report = check::runAndCheck(opt);
  EXPECT_NE(report.error.find("do not fit reference 'gemm_tn'"), std::string::npos) << report.summary();
}

TEST(GemmTemplate, HugeShapesAreRefusedNotAllocated) {
  check::CheckOptions opt;
  opt.path = std::string(ARGUS_SOURCE_DIR) + "/templates/gemm/gemm_tn.argus";
  for (int64_t m : {int64_t(100000000000), int64_t(1) << 62}) {
    opt.sizes = {{"M", m}, {"N", 4}, {"K", 4}};
    check::CheckReport report = check::runAndCheck(opt);
    EXPECT_NE(report.error.find("would hold more than"), std::string::npos) << report.summary();
  }
}

} // namespace
