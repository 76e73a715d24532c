//===- map_tile_check.h - exp/silu/sigmoid tiles against float64 -*- C++ -*-===//
//
// The checks behind CpuKernelMath*Test.cpp: each file compiles them for one
// vector width (AVX-512, AVX2) with its own N, so the instances of map_tile
// the two files make are distinct functions (one N in both would give the
// linker two bodies of one symbol to choose from).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_MAP_TILE_CHECK_H
#define ARGUS_TEST_MAP_TILE_CHECK_H

#include "argus_cpu_kernel.h"
#include "ulps.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <vector>

/// exp_tile<N> over [-90, 90] (past both ends of the normal range) and the
/// special values: bit for bit the scalar exp (the same steps: a loop that
/// falls back to the scalar form gives the same softmax), within 2 ulp of
/// e^x where that is a normal float.
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
    EXPECT_EQ(dst[i], scalar) << "x = " << src[i];
    const double want = std::exp(double(src[i]));
    if (want >= FLT_MIN && want <= FLT_MAX)
      EXPECT_LE(ulpsOff(dst[i], want), 2.0) << "x = " << src[i];
  }
}

/// silu_tile<N> and sigmoid_tile<N> over [-90, 90]: within 4 ulp of the
/// float64 function (exp's 2, the sum's and the quotient's roundings) where
/// x and e^-x are finite floats and the result a normal one, and equal to
/// the scalar function elsewhere (+-inf, NaN, and what both give once e^-x
/// overflows).
template <int64_t N> void expectSiluAndSigmoidTilesMatchFloat64() {
  std::vector<float> src(N), silu(N), sigmoid(N);
  for (int64_t i = 0; i < N; ++i) src[i] = -90.0f + 180.0f * float(i) / float(N);
  src[3] = -INFINITY, src[4] = NAN, src[5] = INFINITY;
  argus_cpu::silu_tile<N>(silu.data(), src.data());
  argus_cpu::sigmoid_tile<N>(sigmoid.data(), src.data());
  for (int64_t i = 0; i < N; ++i) {
    const double x = src[i], e = std::exp(-x);
    const double wantSilu = x / (1.0 + e), wantSigmoid = 1.0 / (1.0 + e);
    auto same = [](float got, float want) { return got == want || (std::isnan(got) && std::isnan(want)); };
    if (!std::isfinite(x) || e > FLT_MAX || std::fabs(wantSilu) < FLT_MIN || wantSigmoid < FLT_MIN) {
      EXPECT_TRUE(same(silu[i], argus_cpu::silu(src[i]))) << "silu, x = " << x << ": " << silu[i];
      EXPECT_TRUE(same(sigmoid[i], argus_cpu::sigmoid(src[i]))) << "sigmoid, x = " << x << ": " << sigmoid[i];
    } else {
      EXPECT_LE(ulpsOff(silu[i], wantSilu), 4.0) << "silu, x = " << x;
      EXPECT_LE(ulpsOff(sigmoid[i], wantSigmoid), 4.0) << "sigmoid, x = " << x;
    }
  }
}

#endif // ARGUS_TEST_MAP_TILE_CHECK_H
