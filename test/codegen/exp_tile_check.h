//===- exp_tile_check.h - exp_tile against the scalar exp -------*- C++ -*-===//
//
// The check behind CpuKernelMath*Test.cpp: each file compiles it for one
// vector width (AVX-512, AVX2) with its own N, so the instances of exp_tile
// the two files make are distinct functions (one N in both would give the
// linker two bodies of one symbol to choose from).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_EXP_TILE_CHECK_H
#define ARGUS_TEST_EXP_TILE_CHECK_H

#include "argus_cpu_kernel.h"
#include "ulps.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <vector>

/// exp_tile<N> over [-90, 90] (past both ends of the normal range) and the
/// special values: within 2 ulp of e^x where that is a normal float, and
/// equal to the scalar exp elsewhere (0, inf, NaN).
template <int64_t N> void expectExpTileMatchesScalarExp() {
  std::vector<float> src(N), dst(N);
  for (int64_t i = 0; i < N; ++i) src[i] = -90.0f + 180.0f * float(i) / float(N);
  src[3] = -INFINITY, src[4] = NAN, src[5] = INFINITY, src[N - 1] = -1e30f;
  argus_cpu::exp_tile<N>(dst.data(), src.data());
  for (int64_t i = 0; i < N; ++i) {
    const float scalar = argus_cpu::exp(src[i]);
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

#endif // ARGUS_TEST_EXP_TILE_CHECK_H
