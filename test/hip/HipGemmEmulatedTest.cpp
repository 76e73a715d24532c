// The CDNA GEMM kernels (dist/runtime/hip/argus_hip_gemm_kernel.h), their own source run by the
// wave emulator, against a float64 reference on fresh random bf16 data (gemm_problem.h): ragged
// m, n and k (not multiples of any tile), padded pitches, alpha, beta and bias, outputs poisoned
// with NaN first and the padding between rows of C and a guard row after it checked untouched.
#include "argus_hip_emulator.h"
#include "argus_hip_gemm_kernel.h"
#include "emulated_kernels.h"
#include "gemm_problem.h"

#include "argus_numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace argus::hip;

namespace {

// Runs one problem on one kernel shape and compares every element of C.
void check(const GemmShape &shape, const argus::gpu::test::GemmProblem &p, std::mt19937 &rng) {
  argus::gpu::test::GemmData data(p, rng);
  GemmParams params{data.a.data(), data.b.data(), data.c.data(), data.biasOrNull(p), p.lda(), p.ldb(), p.ldc(),
                    p.m,           p.n,           p.k,           p.alpha,           p.beta};
  ASSERT_TRUE(
      test::emulateGemm(shape, p.f16, params, (p.n + shape.bn - 1) / shape.bn, (p.m + shape.bm - 1) / shape.bm));
  EXPECT_EQ(argus::gpu::test::compareWithFloat64(p, data), "") << shape.bm << "x" << shape.bn << " kernel";
}

class HipGemmEmulated : public ::testing::TestWithParam<int> {};

// f16 in and out (v_mfma_f32_32x32x8_f16): the two extreme tiles, ragged, with beta and bias.
TEST(HipGemmEmulated, HalfPrecisionMatchesFloat64) {
  std::mt19937 rng(77);
  for (const GemmShape &shape : {kGemmShapes[0], kGemmShapes[kGemmShapeCount - 1]}) {
    check(shape, {shape.bm + 5, shape.bn + 3, 77, 1.0f, 0.0f, false, true}, rng);
    check(shape, {7, 9, 136, -0.5f, 0.75f, true, true}, rng);
  }
}

TEST(HipGemmEmulated, HalfPrecisionKZeroScalesCAndAddsBias) {
  std::mt19937 rng(78);
  const argus::gpu::test::GemmProblem p{5, 70, 0, 1.0f, 0.5f, true, true};
  argus::gpu::test::GemmData data(p, rng);
  GemmParams params{nullptr, nullptr, data.c.data(), data.biasOrNull(p), p.lda(), p.ldb(), p.ldc(),
                    p.m,     p.n,     p.k,           p.alpha,           p.beta};
  emu::Launch grid;
  grid.threads = 256;
  emu::run(grid, [&] { gemmBetaScale<Element::F16>(params, 1); });
  EXPECT_EQ(argus::gpu::test::compareWithFloat64(p, data), "");
}

TEST_P(HipGemmEmulated, MatchesFloat64OnRaggedShapes) {
  const GemmShape shape = kGemmShapes[GetParam()];
  std::mt19937 rng(1234u + unsigned(GetParam()));
  // One problem a little past one tile, one spanning several tiles with a ragged k tail (k % 64 and
  // k % 8 both non-zero) and beta, one with a single row and column.
  const argus::gpu::test::GemmProblem problems[] = {
      {shape.bm + 5, shape.bn + 3, 136, 1.0f, 0.0f, false},
      {2 * shape.bm - 7, 2 * shape.bn + 9, 77, -0.5f, 0.75f, true},
      {1, 1, 1, 2.0f, 0.0f, true},
  };
  for (const argus::gpu::test::GemmProblem &p : problems)
    check(shape, p, rng);
}

INSTANTIATE_TEST_SUITE_P(EveryKernelShape, HipGemmEmulated, ::testing::Range(0, kGemmShapeCount),
                         [](const ::testing::TestParamInfo<int> &info) {
                           const GemmShape s = kGemmShapes[info.param];
                           return std::to_string(s.bm) + "x" + std::to_string(s.bn);
                         });

TEST(HipGemmEmulated, KZeroScalesCAndAddsBias) {
  std::mt19937 rng(99);
  const argus::gpu::test::GemmProblem p{37, 301, 0, 1.0f, -2.0f, true};
  argus::gpu::test::GemmData data(p, rng);
  GemmParams params{nullptr, nullptr, data.c.data(), data.biasOrNull(p), p.lda(), p.ldb(), p.ldc(),
                    p.m,     p.n,     p.k,           p.alpha,           p.beta};
  emu::Launch grid;
  grid.gridX = 3;  // fewer workgroups than 256-element blocks: the grid-stride loop must cover the rest
  grid.threads = 256;
  emu::run(grid, [&] { gemmBetaScale<Element::Bf16>(params, grid.gridX); });
  EXPECT_EQ(argus::gpu::test::compareWithFloat64(p, data), "");
}

} // namespace
