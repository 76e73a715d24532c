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

// Every float in [-87.5, -87.2], around ln(FLT_MIN): exp_tile gives 0 or a
// normal number, never a denormal; bf16 stores of exp's results rely on it
// (store_bf16_normal: vcvtneps2bf16 reads denormals as zero).
TEST(CpuKernelMath, ExpTileNeverReturnsADenormal) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "this CPU has no AVX-512";
  std::vector<float> src;
  for (float x = -87.5f; x <= -87.2f; x = std::nextafter(x, 0.0f)) src.push_back(x);
  constexpr int64_t kTile = 4096;
  src.resize((src.size() + kTile - 1) / kTile * kTile, 0.0f);
  std::vector<float> dst(src.size());
  for (size_t i = 0; i < src.size(); i += kTile) argus_cpu::exp_tile<kTile>(dst.data() + i, src.data() + i);
  for (size_t i = 0; i < src.size(); ++i)
    ASSERT_TRUE(dst[i] == 0.0f || dst[i] >= FLT_MIN) << "x = " << src[i] << ": " << dst[i];
}

TEST(CpuKernelMath, SiluAndSigmoidTilesMatchFloat64) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "this CPU has no AVX-512";
  expectSiluAndSigmoidTilesMatchFloat64<16 * 1000 + 7>();
}

} // namespace
