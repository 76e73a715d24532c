//===- CpuKernelMathAvx2Test.cpp - AVX2 element math of argus_cpu_kernel.h ===//
//
// exp_tile on the cpu-avx2 target (8 lanes, no AVX-512) agrees with the
// scalar exp, silu_tile and sigmoid_tile with float64. This file is
// compiled with the cpu-avx2 target's flags, and its tests skip on a CPU
// without AVX2 and FMA.
//
//===----------------------------------------------------------------------===//
#include "map_tile_check.h"

#if defined(__AVX512F__) || !defined(__AVX2__)
#error "compile this file with -mavx2 -mfma and without AVX-512 (test/codegen/CMakeLists.txt)"
#endif

namespace {

// 8 lanes at a time, with a masked tail of 5.
TEST(CpuKernelMathAvx2, ExpTileMatchesScalarExp) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "this CPU has no AVX2";
  expectExpTileMatchesScalarExp<8 * 1000 + 5>();
}

TEST(CpuKernelMathAvx2, SiluAndSigmoidTilesMatchFloat64) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "this CPU has no AVX2";
  expectSiluAndSigmoidTilesMatchFloat64<8 * 1000 + 5>();
}

} // namespace
