//===- CpuScalarMathTest.cpp - scalar element math of argus_cpu_kernel.h --===//
//
// ak::exp is the library-call-free exp that lets softmax and SiLU loops
// vectorise: within 2 ulp of the correctly rounded result over the whole
// normal range, exact at the edges (0, -inf, NaN, overflow, underflow).
// Compiled with the default flags, so it runs on every x86-64 CPU (the AVX-512
// tile form is CpuKernelMathTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "argus_cpu_kernel.h"
#include "ulps.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

namespace ak = argus_cpu;

namespace {

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
