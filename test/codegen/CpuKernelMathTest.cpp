//===- CpuKernelMathTest.cpp - AVX-512 element math of argus_cpu_kernel.h -===//
//
// exp_tile, the AVX-512 form of ak::exp (CpuScalarMathTest.cpp), agrees with
// the scalar exp. This file is compiled for AVX-512, and its tests skip on a
// CPU without it.
//
//===----------------------------------------------------------------------===//
#include "argus_cpu_kernel.h"
#include "ulps.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <vector>

namespace ak = argus_cpu;

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
