//===- CpuKernelMathTest.cpp - AVX-512 element math of argus_cpu_kernel.h -===//
//
// exp_tile, the AVX-512 form of ak::exp (CpuScalarMathTest.cpp), agrees with
// the scalar exp, silu_tile and sigmoid_tile with float64; row_results'
// trees with each row's own reduction. This file is compiled for AVX-512,
// and its tests skip on a CPU without it.
//
//===----------------------------------------------------------------------===//
#include "map_tile_check.h"

#include <random>

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

/// Row loops as the emitter writes them (EmitRowFusion.cpp) over an R x 48
/// tile: row_results' sums within float64's by the dtype's tolerance, its
/// maxima and minima equal to each row's own (a NaN of one row does not
/// reach the others of its 16, and is the row's result); R = 37: two trees
/// and 5 rows reduced one by one; R = 5: no tree.
template <int64_t R> void expectRowResultsMatchEachRow() {
  namespace ak = argus_cpu;
  using VL = ak::f32xN;
  constexpr int64_t C = 48;
  std::mt19937 rng{unsigned(R)};
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> x(R * C);
  for (float &v : x) v = dist(rng);
  x[3 * C + 17] = NAN;                                           /* a NaN in the first 16 rows */
  for (int64_t c = 0; c < C; ++c) x[(R - 3) * C + c] = -INFINITY; /* a row of -inf */
  x[(R - 1) * C + 40] = INFINITY;
  std::vector<float> sums(R, -1.0f), maxima(R, -1.0f), minima(R, -1.0f);
  ak::row_results<ak::row_sum<VL>, R> sumRows{sums.data()};
  ak::row_results<ak::row_max<VL>, R> maxRows{maxima.data()};
  ak::row_results<ak::row_min<VL>, R> minRows{minima.data()};
  for (int64_t r = 0; r < R; ++r) {
    ak::row_sum<VL> sum;
    ak::row_max<VL> max;
    ak::row_min<VL> min;
    for (int64_t c = 0; c < C; c += VL::lanes) {
      sum.add(VL::load(x.data() + r * C + c));
      max.add(VL::load(x.data() + r * C + c));
      min.add(VL::load(x.data() + r * C + c));
    }
    sumRows.put(r, sum);
    maxRows.put(r, max);
    minRows.put(r, min);
    SCOPED_TRACE(::testing::Message() << "R=" << R << " row " << r);
    if (r % 16 == 15 || r >= R / 16 * 16) { /* this row's results are out */
      EXPECT_TRUE(maxima[r] == max.result() || (std::isnan(maxima[r]) && std::isnan(max.result())));
      EXPECT_TRUE(minima[r] == min.result() || (std::isnan(minima[r]) && std::isnan(min.result())));
    }
  }
  for (int64_t r = 0; r < R; ++r) {
    SCOPED_TRACE(::testing::Message() << "R=" << R << " row " << r);
    double want = 0.0, wantMax = -INFINITY, wantMin = INFINITY, magnitude = 0.0;
    bool nan = false;
    for (int64_t c = 0; c < C; ++c) {
      const double v = x[r * C + c];
      nan = nan || std::isnan(v);
      want += v, magnitude += std::fabs(v);
      wantMax = std::max(wantMax, v), wantMin = std::min(wantMin, v);
    }
    if (nan) {
      EXPECT_TRUE(std::isnan(sums[r]) && std::isnan(maxima[r]) && std::isnan(minima[r]));
      continue;
    }
    EXPECT_EQ(maxima[r], float(wantMax));
    EXPECT_EQ(minima[r], float(wantMin));
    if (std::isinf(want)) EXPECT_EQ(sums[r], float(want));
    else EXPECT_NEAR(sums[r], want, 1e-6 * magnitude * C);
  }
}

TEST(CpuKernelMath, RowResultsMatchEachRowsReduction) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "this CPU has no AVX-512";
  expectRowResultsMatchEachRow<37>();
  expectRowResultsMatchEachRow<5>();
}

} // namespace
