//===- CpuKernelMathTest.cpp - element math of argus_cpu_kernel.h ---------===//
//
// ak::exp is the library-call-free exp that lets softmax and SiLU loops
// vectorise: within 2 ulp of the correctly rounded result over the whole
// normal range, exact at the edges (0, -inf, NaN, overflow, underflow);
// exp_tile, its AVX-512 form, agrees. This file is compiled for AVX-512.
//
//===----------------------------------------------------------------------===//
#include "argus_cpu_kernel.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <vector>

namespace ak = argus_cpu;

namespace {

double ulpsOff(float got, double want) {
  const float w = float(want);
  return std::fabs(double(got) - want) / double(std::nextafter(w, INFINITY) - w);
}

TEST(CpuKernelMath, ExpWithinTwoUlpOverTheNormalRange) {
  double worst = 0;
  float worstAt = 0;
  // 2 * 10^6 points evenly spread between the under- and overflow
  // thresholds, and 10^6 consecutive floats from ln2 / 2 (a reduction edge).
  auto probe = [&](float x) {
    const double want = std::exp(double(x));
    if (want < FLT_MIN || want > FLT_MAX) return;
    const double off = ulpsOff(ak::exp(x), want);
    if (off > worst) worst = off, worstAt = x;
  };
  const int points = 2000000;
  for (int i = 0; i <= points; ++i) probe(-87.33f + (88.72f + 87.33f) * float(i) / float(points));
  float x = 0.34657359f;
  for (int i = 0; i < 1000000; ++i) probe(x = std::nextafter(x, INFINITY));
  EXPECT_LE(worst, 2.0) << "at x = " << worstAt;
}

TEST(CpuKernelMath, ExpEdges) {
  EXPECT_EQ(ak::exp(0.0f), 1.0f);
  EXPECT_EQ(ak::exp(-INFINITY), 0.0f);
  EXPECT_EQ(ak::exp(-1e30f), 0.0f); // masked attention scores
  EXPECT_EQ(ak::exp(-100.0f), 0.0f);
  EXPECT_EQ(ak::exp(INFINITY), INFINITY);
  EXPECT_EQ(ak::exp(89.0f), INFINITY);
  EXPECT_TRUE(std::isfinite(ak::exp(88.72f)));
  EXPECT_TRUE(std::isnan(ak::exp(NAN)));
  EXPECT_NEAR(ak::silu(-30.0f), -30.0 / (1.0 + std::exp(30.0)), 1e-18);
  EXPECT_NEAR(ak::sigmoid(2.0f), 1.0 / (1.0 + std::exp(-2.0)), 1e-7);
}

} // namespace

namespace {

// exp_tile is the same computation 16 lanes at a time (AVX-512 here, with a
// masked tail), and agrees with the scalar exp.
TEST(CpuKernelMath, ExpTileMatchesScalarExp) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "this CPU has no AVX-512";
  constexpr int64_t n = 16 * 1000 + 7; // a masked tail
  std::vector<float> src(n), dst(n);
  for (int64_t i = 0; i < n; ++i) src[i] = -90.0f + 180.0f * float(i) / float(n);
  src[3] = -INFINITY, src[4] = NAN, src[5] = INFINITY, src[n - 1] = -1e30f;
  ak::exp_tile<n>(dst.data(), src.data());
  for (int64_t i = 0; i < n; ++i) {
    const float scalar = ak::exp(src[i]);
    if (std::isnan(scalar)) {
      EXPECT_TRUE(std::isnan(dst[i])) << i;
      continue;
    }
    const double want = std::exp(double(src[i]));
    if (want < FLT_MIN || want > FLT_MAX)
      EXPECT_EQ(dst[i], scalar) << "x = " << src[i];
    else
      EXPECT_LE(ulpsOff(dst[i], want), 2.0) << "x = " << src[i];
  }
}

} // namespace
