//===- GemmTest.cpp - GEMM kernels against a float64 reference ------------===//
//
// test/dialect/inputs/gemm_tn.mlir (f32, the DSL's own lowering) and a bf16
// variant with a 2-stage async-copy pipeline through swizzled shared memory
// (inputs/gemm_tn_bf16_pipelined.mlir), on ragged shapes, with alpha / beta /
// bias variations, padded leading dimensions and poisoned outputs.
//
//===----------------------------------------------------------------------===//
#include "TestUtils.h"

#include <regex>

using namespace argus::interp;
using namespace argus::interp::test;

namespace {

struct GemmCase {
  int64_t m, n, k;
  float alpha, beta;
  bool bias;
};

const GemmCase kCases[] = {
    {1, 1, 1, 1.0f, 0.0f, false},     {7, 13, 37, 1.0f, 0.0f, false},
    {129, 7, 129, 0.5f, -1.25f, true}, {37, 129, 1, 2.0f, 0.0f, true},
    {16, 16, 32, 1.0f, 1.0f, false},   {33, 17, 65, -0.75f, 0.5f, true},
    {1, 129, 37, 1.5f, 2.0f, true},
};

std::string caseName(const GemmCase &c) {
  return std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) +
         " alpha=" + std::to_string(c.alpha) + " beta=" + std::to_string(c.beta) +
         (c.bias ? " +bias" : "");
}

/// Runs a GEMM whose storage type is `T` (float or bf16 as uint16_t) and
/// checks it against float64. `toF` / `fromF` convert elements; `relTol` is
/// the relative tolerance of the output type.
template <typename T, typename ToF, typename FromF>
void runGemmCase(LoadedKernel &k, const GemmCase &c, ToF toF, FromF fromF, double relTol,
                 T poison) {
  SCOPED_TRACE(caseName(c));
  std::mt19937 rng(static_cast<unsigned>(c.m * 1000003 + c.n * 1009 + c.k));
  HostTensor<T> a({c.m, c.k}, /*pad=*/3), b({c.n, c.k}, /*pad=*/1), cmat({c.m, c.n}, /*pad=*/2),
      bias({c.n});
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t kk = 0; kk < c.k; ++kk)
      a.at(i, kk) = fromF(randomValue(rng));
  for (int64_t j = 0; j < c.n; ++j)
    for (int64_t kk = 0; kk < c.k; ++kk)
      b.at(j, kk) = fromF(randomValue(rng));
  for (int64_t j = 0; j < c.n; ++j)
    bias.at(j) = fromF(randomValue(rng));
  // C: random where beta reads it, poison everywhere else (incl. the row pad).
  std::fill(cmat.data.begin(), cmat.data.end(), poison);
  std::vector<double> cOld(c.m * c.n, 0.0);
  if (c.beta != 0.0f)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        cmat.at(i, j) = fromF(randomValue(rng));
        cOld[i * c.n + j] = toF(cmat.at(i, j));
      }

  std::vector<KernelArg> args = {a.arg(), b.arg(), cmat.arg(), bias.arg(),
                                 ScalarArg{c.alpha, 0}, ScalarArg{c.beta, 0},
                                 ScalarArg{0, c.bias ? 1 : 0}};
  std::string err = errorText(runKernel(k.kernel, args));
  ASSERT_EQ(err, "");

  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double dot = 0, mag = 0;
      for (int64_t kk = 0; kk < c.k; ++kk) {
        double p = double(toF(a.at(i, kk))) * double(toF(b.at(j, kk)));
        dot += p;
        mag += std::fabs(p);
      }
      double ref = c.alpha * dot + c.beta * cOld[i * c.n + j] +
                   (c.bias ? double(toF(bias.at(j))) : 0.0);
      double scale = std::fabs(c.alpha) * mag + std::fabs(c.beta * cOld[i * c.n + j]) +
                     (c.bias ? std::fabs(toF(bias.at(j))) : 0.0);
      double got = toF(cmat.at(i, j));
      ASSERT_FALSE(std::isnan(got)) << "C[" << i << "][" << j << "] was not written";
      ASSERT_NEAR(got, ref, relTol * std::fabs(ref) + 1e-5 * scale + 1e-6)
          << "C[" << i << "][" << j << "]";
    }
  // The leading-dimension pad of C is never written.
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = c.n; j < cmat.stride[0]; ++j)
      ASSERT_TRUE(std::isnan(toF(cmat.data[i * cmat.stride[0] + j]))) << "pad of row " << i;
}

float idF(float x) { return x; }
float bf16ToF(uint16_t x) { return argus_num::bf16_to_f32(x); }
uint16_t fToBf16(float x) { return argus_num::f32_to_bf16(x); }

} // namespace

TEST(InterpreterGemm, F32MatchesFloat64OnRaggedShapes) {
  LoadedKernel k = loadFile(std::string(ARGUS_DIALECT_INPUTS_DIR) + "/gemm_tn.mlir");
  ASSERT_TRUE(k) << "gemm_tn.mlir did not parse";
  for (const GemmCase &c : kCases)
    runGemmCase<float>(k, c, idF, idF, /*relTol=*/1e-6, nanf32());
}

TEST(InterpreterGemm, GridFollowsTheShape) {
  LoadedKernel k = loadFile(std::string(ARGUS_DIALECT_INPUTS_DIR) + "/gemm_tn.mlir");
  ASSERT_TRUE(k);
  HostTensor<float> a({37, 5}), b({129, 5}), c({37, 129}), bias({129});
  std::vector<KernelArg> args = {a.arg(), b.arg(), c.arg(), bias.arg(),
                                 ScalarArg{1, 0}, ScalarArg{0, 0}, ScalarArg{0, 0}};
  llvm::Expected<std::array<int64_t, 3>> grid = evaluateGrid(k.kernel, args);
  ASSERT_TRUE(static_cast<bool>(grid)) << llvm::toString(grid.takeError());
  EXPECT_EQ((*grid)[0], 3);  // ceil(37 / 16)
  EXPECT_EQ((*grid)[1], 9);  // ceil(129 / 16)
  EXPECT_EQ((*grid)[2], 1);
}

TEST(InterpreterGemm, MaxInstancesRunsOnlyAPrefixOfTheGrid) {
  LoadedKernel k = loadFile(std::string(ARGUS_DIALECT_INPUTS_DIR) + "/gemm_tn.mlir");
  ASSERT_TRUE(k);
  HostTensor<float> a({40, 3}), b({20, 3}), c({40, 20}), bias({20});
  std::fill(a.data.begin(), a.data.end(), 1.0f);
  std::fill(b.data.begin(), b.data.end(), 2.0f);
  std::fill(c.data.begin(), c.data.end(), nanf32());
  std::vector<KernelArg> args = {a.arg(), b.arg(), c.arg(), bias.arg(),
                                 ScalarArg{1, 0}, ScalarArg{0, 0}, ScalarArg{0, 0}};
  RunOptions options;
  options.maxInstances = 1; // program (0, 0, 0): rows 0..15, columns 0..15
  ASSERT_EQ(errorText(runKernel(k.kernel, args, options)), "");
  for (int64_t i = 0; i < 40; ++i)
    for (int64_t j = 0; j < 20; ++j) {
      if (i < 16 && j < 16)
        EXPECT_EQ(c.at(i, j), 6.0f);
      else
        EXPECT_TRUE(std::isnan(c.at(i, j))) << i << "," << j;
    }
}

TEST(InterpreterGemm, Bf16PipelinedMatchesFloat64OnRaggedShapes) {
  LoadedKernel k = loadInput("gemm_tn_bf16_pipelined.mlir");
  ASSERT_TRUE(k) << "gemm_tn_bf16_pipelined.mlir did not parse";
  // bf16 output: half an ulp is 2^-9 relative; inputs are exact bf16 values.
  for (const GemmCase &c : kCases)
    runGemmCase<uint16_t>(k, c, bf16ToF, fToBf16, /*relTol=*/1.0 / 256, nanbf16());
}

TEST(InterpreterGemm, Bf16PipelineWithTooLateWaitReadsStaleStages) {
  // The same kernel with `argus.wait 4` instead of `argus.wait 2`: the copies
  // of the stage being read have not completed, so the kernel must read the
  // old contents (poison on the first iterations) and the result is wrong.
  std::string text =
      readText(std::string(ARGUS_INTERP_INPUTS_DIR) + "/gemm_tn_bf16_pipelined.mlir");
  ASSERT_FALSE(text.empty());
  std::string broken = std::regex_replace(text, std::regex("argus\\.wait 2"), "argus.wait 4");
  ASSERT_NE(broken, text);
  LoadedKernel k = loadString(broken, "broken_pipeline.mlir");
  ASSERT_TRUE(k);
  HostTensor<uint16_t> a({20, 70}), b({18, 70}), c({20, 18}), bias({18});
  for (auto &x : a.data) x = fToBf16(0.5f);
  for (auto &x : b.data) x = fToBf16(0.25f);
  std::fill(c.data.begin(), c.data.end(), fToBf16(0.0f));
  std::vector<KernelArg> args = {a.arg(), b.arg(), c.arg(), bias.arg(),
                                 ScalarArg{1, 0}, ScalarArg{0, 0}, ScalarArg{0, 0}};
  ASSERT_EQ(errorText(runKernel(k.kernel, args)), "");
  int wrong = 0;
  for (int64_t i = 0; i < 20; ++i)
    for (int64_t j = 0; j < 18; ++j)
      if (!(bf16ToF(c.at(i, j)) == 70 * 0.125f))
        ++wrong;
  EXPECT_EQ(wrong, 20 * 18) << "every output reads a stage whose copy is still in flight";
}

TEST(InterpreterGemm, MmaSumsInDoubleAndRoundsOnce) {
  // In f32, 1e8 + 1 - 1e8 accumulates to 0; summed in double and rounded once
  // it is exactly 1.
  LoadedKernel k = loadFile(std::string(ARGUS_DIALECT_INPUTS_DIR) + "/gemm_tn.mlir");
  ASSERT_TRUE(k);
  HostTensor<float> a({1, 3}), b({1, 3}), c({1, 1}), bias({1});
  a.data = {1e8f, 1.0f, -1e8f};
  b.data = {1.0f, 1.0f, 1.0f};
  c.data = {nanf32()};
  std::vector<KernelArg> args = {a.arg(), b.arg(), c.arg(), bias.arg(),
                                 ScalarArg{1, 0}, ScalarArg{0, 0}, ScalarArg{0, 0}};
  ASSERT_EQ(errorText(runKernel(k.kernel, args)), "");
  EXPECT_EQ(c.data[0], 1.0f);
}
