//===- CpuKernelMathTest.cpp - AVX-512 element math of argus_cpu_kernel.h -===//
//
// exp_tile, the AVX-512 form of ak::exp (CpuScalarMathTest.cpp), agrees with
// the scalar exp, silu_tile and sigmoid_tile with float64. This file is
// compiled for AVX-512, and its tests skip on a CPU without it.
//
//===----------------------------------------------------------------------===//
#include "map_tile_check.h"

namespace {

// 16 lanes at a time, with a masked tail of 7.
TEST(CpuKernelMath, ExpTileMatchesScalarExp) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "this CPU has no AVX-512";
  expectExpTileMatchesScalarExp<16 * 1000 + 7>();
}

// Tails of whole quads (4, 8, 12 lanes) take unmasked 16- and 32-byte moves;
// the special values fall in them.
TEST(CpuKernelMath, ExpTileTailsOfWholeQuadsMatchScalarExp) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "this CPU has no AVX-512";
  expectExpTileMatchesScalarExp<8>();
  expectExpTileMatchesScalarExp<12>();
  expectExpTileMatchesScalarExp<16 * 10 + 4>();
}

TEST(CpuKernelMath, SiluAndSigmoidTilesMatchFloat64) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "this CPU has no AVX-512";
  expectSiluAndSigmoidTilesMatchFloat64<16 * 1000 + 7>();
}

} // namespace
