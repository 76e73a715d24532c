// The CDNA GEMM kernels (dist/runtime/hip/argus_hip_gemm_kernel.h), their own source run by the
// wave emulator, against a float64 reference on fresh random bf16 data: ragged m, n and k (not
// multiples of any tile), padded pitches, alpha, beta and bias, outputs poisoned with NaN first
// and the padding between rows of C and a guard row after it checked untouched.
#include "argus_hip_gemm_kernel.h"

#include "argus_numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace argus::hip;

namespace {

constexpr uint16_t kNaN = 0x7fc0, kPadding = 0x1234;

struct Problem {
  int m, n, k;
  float alpha, beta;
  bool bias;
};

std::string describe(const GemmShape &s, const Problem &p) {
  return std::to_string(s.bm) + "x" + std::to_string(s.bn) + " kernel, m=" + std::to_string(p.m) +
         " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) + " alpha=" + std::to_string(p.alpha) +
         " beta=" + std::to_string(p.beta) + (p.bias ? " bias" : "");
}

template <int BM, int BN, int WM, int WN>
void launch(const GemmParams &params) {
  constexpr GemmShape shape{BM, BN, WM, WN};
  emu::Launch grid;
  grid.gridX = (params.n + BN - 1) / BN;
  grid.gridY = (params.m + BM - 1) / BM;
  grid.threads = shape.threads();
  grid.ldsBytes = shape.ldsBytes();
  emu::run(grid, [&] { gemmTn<BM, BN, WM, WN>(params); });
}

void launchShape(const GemmShape &s, const GemmParams &params) {
  static_assert(kGemmShapeCount == 4, "add the new shape here");
  if (s == kGemmShapes[0]) return launch<kGemmShapes[0].bm, kGemmShapes[0].bn, kGemmShapes[0].wm, kGemmShapes[0].wn>(params);
  if (s == kGemmShapes[1]) return launch<kGemmShapes[1].bm, kGemmShapes[1].bn, kGemmShapes[1].wm, kGemmShapes[1].wn>(params);
  if (s == kGemmShapes[2]) return launch<kGemmShapes[2].bm, kGemmShapes[2].bn, kGemmShapes[2].wm, kGemmShapes[2].wn>(params);
  if (s == kGemmShapes[3]) return launch<kGemmShapes[3].bm, kGemmShapes[3].bn, kGemmShapes[3].wm, kGemmShapes[3].wn>(params);
  FAIL() << "no emulated launcher for this shape";
}

std::vector<uint16_t> randomBf16(size_t count, std::mt19937 &rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<uint16_t> v(count);
  for (uint16_t &x : v)
    x = argus_num::f32_to_bf16(value(rng));
  return v;
}

int64_t roundUp8(int64_t x) { return (x + 7) / 8 * 8; }

// Runs one problem on one kernel shape and compares every element of C.
void check(const GemmShape &shape, const Problem &p, std::mt19937 &rng) {
  const int64_t lda = roundUp8(p.k) + 8, ldb = roundUp8(p.k), ldc = p.n + 3;
  const std::vector<uint16_t> a = randomBf16(size_t(p.m) * lda, rng), b = randomBf16(size_t(p.n) * ldb, rng);
  const std::vector<uint16_t> bias = randomBf16(size_t(p.n), rng);
  // One guard row past the last: a store to row m shows there.
  std::vector<uint16_t> c = randomBf16(size_t(p.m + 1) * ldc, rng);
  for (int64_t row = 0; row <= p.m; ++row)
    for (int64_t col = 0; col < ldc; ++col) {
      uint16_t &x = c[size_t(row * ldc + col)];
      if (col >= p.n || row == p.m)
        x = kPadding;
      else if (p.beta == 0.0f)
        x = kNaN;  // beta = 0: C must not be read, and every element must be written
    }
  const std::vector<uint16_t> c0 = c;

  GemmParams params{a.data(), b.data(), c.data(), p.bias ? bias.data() : nullptr, lda, ldb, ldc,
                    p.m,      p.n,      p.k,      p.alpha, p.beta};
  launchShape(shape, params);

  int wrong = 0;
  for (int64_t row = 0; row <= p.m; ++row)
    for (int64_t col = 0; col < ldc; ++col) {
      const uint16_t got = c[size_t(row * ldc + col)];
      if (col >= p.n || row == p.m) {
        ASSERT_EQ(got, kPadding) << describe(shape, p) << ": padding or guard row " << row << " overwritten";
        continue;
      }
      double sum = 0, magnitude = 0;
      for (int64_t i = 0; i < p.k; ++i) {
        const double product = double(argus_num::bf16_to_f32(a[size_t(row * lda + i)])) *
                               argus_num::bf16_to_f32(b[size_t(col * ldb + i)]);
        sum += product;
        magnitude += std::fabs(product);
      }
      double ref = p.alpha * sum;
      double scale = std::fabs(p.alpha) * magnitude;
      if (p.beta != 0.0f) {
        const double old = p.beta * double(argus_num::bf16_to_f32(c0[size_t(row * ldc + col)]));
        ref += old;
        scale += std::fabs(old);
      }
      if (p.bias) {
        ref += argus_num::bf16_to_f32(bias[size_t(col)]);
        scale += std::fabs(argus_num::bf16_to_f32(bias[size_t(col)]));
      }
      const double value = argus_num::bf16_to_f32(got);
      // bf16 output rounding (2^-8 relative) plus f32 accumulation over k terms.
      const double tolerance = std::ldexp(std::fabs(ref), -8) + std::ldexp(scale, -16) + 1e-30;
      if (!(std::fabs(value - ref) <= tolerance) && ++wrong <= 5)
        ADD_FAILURE() << describe(shape, p) << ": C[" << row << "][" << col << "] = " << value << ", expected "
                      << ref << " (tolerance " << tolerance << ")";
    }
  EXPECT_EQ(wrong, 0) << describe(shape, p);
}

class HipGemmEmulated : public ::testing::TestWithParam<int> {};

TEST_P(HipGemmEmulated, MatchesFloat64OnRaggedShapes) {
  const GemmShape shape = kGemmShapes[GetParam()];
  std::mt19937 rng(1234u + unsigned(GetParam()));
  // One problem a little past one tile, one spanning several tiles with a ragged k tail (k % 64 and
  // k % 8 both non-zero) and beta, one with a single row and column.
  const Problem problems[] = {
      {shape.bm + 5, shape.bn + 3, 136, 1.0f, 0.0f, false},
      {2 * shape.bm - 7, 2 * shape.bn + 9, 77, -0.5f, 0.75f, true},
      {1, 1, 1, 2.0f, 0.0f, true},
  };
  for (const Problem &p : problems)
    check(shape, p, rng);
}

INSTANTIATE_TEST_SUITE_P(EveryKernelShape, HipGemmEmulated, ::testing::Range(0, kGemmShapeCount),
                         [](const ::testing::TestParamInfo<int> &info) {
                           const GemmShape s = kGemmShapes[info.param];
                           return std::to_string(s.bm) + "x" + std::to_string(s.bn);
                         });

TEST(HipGemmEmulated, KZeroScalesCAndAddsBias) {
  std::mt19937 rng(99);
  const int m = 37, n = 301;
  std::vector<uint16_t> c = randomBf16(size_t(m) * n, rng), bias = randomBf16(size_t(n), rng);
  const std::vector<uint16_t> c0 = c;
  GemmParams params{nullptr, nullptr, c.data(), bias.data(), 8, 8, n, m, n, 0, 1.0f, -2.0f};
  emu::Launch grid;
  grid.gridX = 3;
  grid.threads = 256;
  emu::run(grid, [&] { gemmBetaScale(params, grid.gridX); });
  for (size_t i = 0; i < c.size(); ++i) {
    const float expected = argus_num::bf16_to_f32(argus_num::f32_to_bf16(
        -2.0f * argus_num::bf16_to_f32(c0[i]) + argus_num::bf16_to_f32(bias[i % n])));
    ASSERT_EQ(argus_num::bf16_to_f32(c[i]), expected) << i;
  }
}

} // namespace
