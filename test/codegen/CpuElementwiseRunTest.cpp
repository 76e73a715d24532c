//===- CpuElementwiseRunTest.cpp - reductions, broadcasts, masks, scalars -===//
//
// Generated kernels beyond GEMM, run against float64 references: row softmax
// (f32 and bf16: reduce, broadcast, exp, -inf padding), masked edges (loads at
// negative offsets with a padding value, iota/cmp/select, strided output
// rows), the scalar arith semantics (division, shifts, saturation, NaN), and
// a fused row pipeline on edge values (NaN, signed zeros, bf16 ties).
//
//===----------------------------------------------------------------------===//
#include "CodegenTestSupport.h"

#include "argus_numerics.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace argus::codegen;
using namespace argus::codegen::testing;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(CpuRun, SoftmaxF32MatchesFloat64) {
  auto kernel = buildKernel("test/codegen/inputs/softmax.mlir", "softmax");
  ASSERT_TRUE(kernel);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (int64_t M : {1, 3, 7, 64, 129})
    for (int64_t N : {1, 7, 33, 64}) {
      SCOPED_TRACE(::testing::Message() << "M=" << M << " N=" << N);
      const int64_t ldx = N + 2, ldy = N + 3;
      std::vector<float> X(M * ldx, kNaN), Y(M * ldy, kNaN);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          float v = dist(rng);
          X[m * ldx + n] = v == 0.0f ? 0.5f : v;
        }
      (*kernel)({tensorArg(X.data(), {M, N}, {ldx, 1}), tensorArg(Y.data(), {M, N}, {ldy, 1})}, 0);
      for (int64_t m = 0; m < M; ++m) {
        double mx = -INFINITY, sum = 0;
        for (int64_t n = 0; n < N; ++n) mx = std::max(mx, double(X[m * ldx + n]));
        for (int64_t n = 0; n < N; ++n) sum += std::exp(double(X[m * ldx + n]) - mx);
        for (int64_t n = 0; n < N; ++n) {
          double want = std::exp(double(X[m * ldx + n]) - mx) / sum;
          ASSERT_NEAR(Y[m * ldy + n], want, 2e-6 * want + 1e-7) << "Y[" << m << "][" << n << "]";
        }
        for (int64_t n = N; n < ldy; ++n)
          ASSERT_TRUE(std::isnan(Y[m * ldy + n])) << "padding Y[" << m << "][" << n << "] was written";
      }
    }
}

TEST(CpuRun, SoftmaxBf16MatchesFloat64) {
  auto kernel = buildKernel("test/codegen/inputs/softmax.mlir", "softmax_bf16");
  ASSERT_TRUE(kernel);
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (int64_t M : {1, 5, 64, 130})
    for (int64_t N : {1, 9, 64}) {
      SCOPED_TRACE(::testing::Message() << "M=" << M << " N=" << N);
      std::vector<uint16_t> X(M * N), Y(M * N, argus_num::f32_to_bf16(kNaN));
      for (auto &x : X) x = argus_num::f32_to_bf16(dist(rng) + 0.01f);
      (*kernel)({tensorArg(X.data(), {M, N}, {N, 1}), tensorArg(Y.data(), {M, N}, {N, 1})}, 2);
      for (int64_t m = 0; m < M; ++m) {
        double mx = -INFINITY, sum = 0;
        for (int64_t n = 0; n < N; ++n) mx = std::max(mx, double(argus_num::bf16_to_f32(X[m * N + n])));
        for (int64_t n = 0; n < N; ++n) sum += std::exp(double(argus_num::bf16_to_f32(X[m * N + n])) - mx);
        for (int64_t n = 0; n < N; ++n) {
          double want = std::exp(double(argus_num::bf16_to_f32(X[m * N + n])) - mx) / sum;
          ASSERT_NEAR(argus_num::bf16_to_f32(Y[m * N + n]), want, want / 128 + 1e-7)
              << "Y[" << m << "][" << n << "]";
        }
      }
    }
}

// exp(x - max) rounded to bf16 (stored without the denormal check) and its
// f32 row sums, over a range reaching past exp's underflow: numerators below
// FLT_MIN are 0 (ak::exp), the others within bf16's rounding of float64.
TEST(CpuRun, ExpNumeratorsInBf16MatchFloat64) {
  auto kernel = buildKernel("test/codegen/inputs/softmax.mlir", "numerators_bf16");
  ASSERT_TRUE(kernel);
  std::mt19937 rng(10);
  std::uniform_real_distribution<float> dist(-100.0f, 0.0f);
  for (int64_t M : {1, 6, 64})
    for (int64_t N : {1, 17, 64}) {
      SCOPED_TRACE(::testing::Message() << "M=" << M << " N=" << N);
      std::vector<float> X(M * N), S(M, kNaN);
      std::vector<uint16_t> Y(M * N, argus_num::f32_to_bf16(kNaN));
      for (auto &x : X) x = dist(rng) - 0.01f;
      (*kernel)({tensorArg(X.data(), {M, N}, {N, 1}), tensorArg(Y.data(), {M, N}, {N, 1}),
                 tensorArg(S.data(), {M, 1}, {1, 1})},
                2);
      for (int64_t m = 0; m < M; ++m) {
        double mx = -INFINITY, sum = 0;
        for (int64_t n = 0; n < N; ++n) mx = std::max(mx, double(X[m * N + n]));
        for (int64_t n = 0; n < N; ++n) {
          const double want = std::exp(double(X[m * N + n]) - mx);
          sum += want;
          ASSERT_NEAR(argus_num::bf16_to_f32(Y[m * N + n]), want, want / 128 + FLT_MIN)
              << "Y[" << m << "][" << n << "]";
        }
        ASSERT_NEAR(S[m], sum, 1e-6 * sum) << "S[" << m << "]";
      }
    }
}

// mma(q, k, zeros) * scale folded into ak::mma_scaled (S) against the same
// product stored (T) and multiplied on its own (U): S equals U bit for bit
// and q k^T * scale in float64; S and U poisoned first.
TEST(CpuRun, ScaledProductMatchesItsUnfoldedForm) {
  auto kernel = buildKernel("test/codegen/inputs/scaled_mma.mlir", "smma");
  ASSERT_TRUE(kernel);
  constexpr int64_t M = 64, N = 40, K = 48;
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> Q(M * K), Kt(N * K), S(M * N, kNaN), T(M * N, kNaN), U(M * N, kNaN);
  for (auto &x : Q) x = dist(rng) + 0.001f;
  for (auto &x : Kt) x = dist(rng) + 0.001f;
  const float scale = -0.37f;
  (*kernel)({tensorArg(Q.data(), {M, K}, {K, 1}), tensorArg(Kt.data(), {N, K}, {K, 1}),
             tensorArg(S.data(), {M, N}, {N, 1}), tensorArg(T.data(), {M, N}, {N, 1}),
             tensorArg(U.data(), {M, N}, {N, 1}), floatArg(scale)},
            1);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double want = 0;
      for (int64_t k = 0; k < K; ++k) want += double(Q[m * K + k]) * double(Kt[n * K + k]);
      want *= scale;
      ASSERT_EQ(S[m * N + n], U[m * N + n]) << "S[" << m << "][" << n << "]";
      ASSERT_NEAR(S[m * N + n], want, 1e-5) << "S[" << m << "][" << n << "]";
    }
}

TEST(CpuRun, MaskedEdgesReadPaddingAndSkipOutOfBoundsStores) {
  auto kernel = buildKernel("test/codegen/inputs/edges.mlir", "edges");
  ASSERT_TRUE(kernel);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(1.0f, 2.0f);
  for (auto [M, N] : {std::pair<int64_t, int64_t>{1, 1}, {8, 16}, {9, 17}, {23, 5}, {40, 70}}) {
    SCOPED_TRACE(::testing::Message() << "M=" << M << " N=" << N);
    const int64_t ldi = N + 1, ldo = N + 4;
    std::vector<float> In(M * ldi, kNaN), Out(M * ldo, kNaN);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) In[m * ldi + n] = dist(rng);
    (*kernel)({tensorArg(In.data(), {M, N}, {ldi, 1}), tensorArg(Out.data(), {M, N}, {ldo, 1})}, 3);
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t n = 0; n < N; ++n) {
        int64_t r = m - 1, c = n + 3; // where the tile element was read from
        double x = (r >= 0 && r < M && c < N) ? In[r * ldi + c] : 7.5;
        bool below = (n % 16) < (m % 8); // tile-local column < tile-local row
        double want = below ? x : -x;
        ASSERT_EQ(Out[m * ldo + n], want) << "Out[" << m << "][" << n << "]";
      }
      for (int64_t n = N; n < ldo; ++n)
        ASSERT_TRUE(std::isnan(Out[m * ldo + n])) << "padding Out[" << m << "][" << n << "] was written";
    }
  }
}

TEST(CpuRun, Rank3LoadReduceReshapeTranspose) {
  auto kernel = buildKernel("test/codegen/inputs/shapes.mlir", "shapes");
  ASSERT_TRUE(kernel);
  std::mt19937 rng(10);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t batch : {1, 2})
    for (int64_t r : {-1, 0, 3})
      for (int64_t c : {-2, 0, 5}) {
        SCOPED_TRACE(::testing::Message() << "batch=" << batch << " r=" << r << " c=" << c);
        const int64_t R = 5, C = 9, ldo = 6;
        std::vector<float> In(batch * R * C), Out(8 * ldo, kNaN);
        for (auto &v : In) v = dist(rng) + 3.0f;
        (*kernel)({tensorArg(In.data(), {batch, R, C}, {R * C, C, 1}), tensorArg(Out.data(), {8, 4}, {ldo, 1}),
                   intArg(r), intArg(c)},
                  0);
        auto x = [&](int64_t b, int64_t i, int64_t j) -> double {
          int64_t gi = r + i, gj = c + j;
          return (b < batch && gi >= 0 && gi < R && gj >= 0 && gj < C) ? In[(b * R + gi) * C + gj] : 2.0;
        };
        for (int64_t i = 0; i < 4; ++i) { // t[j][i] = s[i][j]; column i of t
          double mx = -INFINITY;
          for (int64_t j = 0; j < 8; ++j) mx = std::max(mx, double(float(x(0, i, j) + x(1, i, j))));
          for (int64_t j = 0; j < 8; ++j) {
            double want = double(float(x(0, i, j) + x(1, i, j))) - mx;
            ASSERT_NEAR(Out[j * ldo + i], want, 1e-6) << "Out[" << j << "][" << i << "]";
          }
        }
        for (int64_t j = 0; j < 8; ++j)
          for (int64_t i = 4; i < ldo; ++i) ASSERT_TRUE(std::isnan(Out[j * ldo + i])) << "padding written";
      }
}

// An if whose branches both compute a new value of a loop-carried tile:
// either branch runs (flag 0 takes the else branch in the second step, flag 1
// in the first), and the result lives in the iter_arg's own array.
TEST(CpuRun, IfBranchesUpdateALoopCarriedTileInPlace) {
  const std::string cpp = emitFromFile("test/codegen/inputs/if_update.mlir", "if_update", "if_update_cpu");
  EXPECT_EQ(cpp.find("result of the if below"), std::string::npos) << cpp;
  auto kernel = buildKernel("test/codegen/inputs/if_update.mlir", "if_update");
  ASSERT_TRUE(kernel);
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t flag : {0, 1, 5}) {
    SCOPED_TRACE("flag=" + std::to_string(flag));
    std::vector<float> x(16), y(16, kNaN);
    for (float &v : x) v = dist(rng);
    (*kernel)({tensorArg(x.data(), {16}, {1}), tensorArg(y.data(), {16}, {1}), intArg(flag)}, 1);
    for (int64_t j = 0; j < 16; ++j) {
      float acc = x[j];
      for (int64_t i = 0; i < 3; ++i)
        acc = flag + i != 1 ? acc * 2.0f + 1.0f : (j < i + 8 ? acc * 3.0f : acc) - 1.0f;
      EXPECT_NEAR(y[j], acc, 1e-5f * (1.0f + std::fabs(acc))) << "Y[" << j << "]";
    }
  }
}

TEST(CpuRun, ScalarArithFollowsTheDocumentedSemantics) {
  auto kernel = buildKernel("test/codegen/inputs/scalars.mlir", "scalars");
  ASSERT_TRUE(kernel);
  struct Case {
    int64_t a, b;
    float x, y;
  };
  for (Case c : {Case{-7, 2, 1.3f, 0.4f}, Case{7, -2, -2.75f, 1.5f}, Case{INT64_MIN, -1, 3.0e-3f, -7.0f},
                 Case{100, 7, 1.0f / 3.0f, 3.0f}}) {
    SCOPED_TRACE(::testing::Message() << "a=" << c.a << " b=" << c.b << " x=" << c.x << " y=" << c.y);
    std::vector<int64_t> ints(14, 0x5a5a5a5a);
    std::vector<float> floats(8, kNaN);
    (*kernel)({tensorArg(ints.data(), {14}, {1}), tensorArg(floats.data(), {8}, {1}), intArg(c.a), intArg(c.b),
               floatArg(c.x), floatArg(c.y)},
              0);
    auto trunc = [](int64_t a, int64_t b) { return (a == INT64_MIN && b == -1) ? INT64_MIN : a / b; };
    auto rem = [](int64_t a, int64_t b) { return b == -1 ? 0 : a % b; };
    int64_t q = trunc(c.a, c.b), r = rem(c.a, c.b);
    EXPECT_EQ(ints[0], q);
    EXPECT_EQ(ints[1], r);
    EXPECT_EQ(ints[2], (r != 0 && ((c.a < 0) == (c.b < 0))) ? q + 1 : q) << "ceildivsi";
    EXPECT_EQ(ints[3], (r != 0 && ((c.a < 0) != (c.b < 0))) ? q - 1 : q) << "floordivsi";
    EXPECT_EQ(ints[4], int64_t(uint64_t(c.a) / uint64_t(c.b))) << "divui";
    EXPECT_EQ(ints[5], int64_t(uint64_t(c.a) << 3)) << "shli";
    EXPECT_EQ(ints[6], c.a >> 3) << "shrsi";
    EXPECT_EQ(ints[7], int64_t(uint64_t(c.a) >> 60)) << "shrui";
    EXPECT_EQ(ints[8], 0) << "shli by the width";
    EXPECT_EQ(ints[9], std::min(c.a, c.b)) << "cmpi slt + select";
    double big = double(float(c.x * 1.0e30f));
    EXPECT_EQ(ints[10], big >= 9.2e18 ? INT64_MAX : big <= -9.2e18 ? INT64_MIN : int64_t(big)) << "fptosi saturates";
    EXPECT_EQ(ints[11], int64_t(uint8_t(c.a))) << "trunci + extui";
    EXPECT_EQ(ints[12], int64_t(std::max(uint64_t(c.a), uint64_t(c.b)))) << "maxui";
    EXPECT_EQ(ints[13], int64_t(int32_t(c.a))) << "trunci + index_cast";

    EXPECT_TRUE(std::isnan(floats[0])) << "maximumf propagates NaN";
    EXPECT_EQ(floats[1], c.x) << "maxnumf ignores NaN";
    EXPECT_EQ(floats[2], std::fmod(c.x, c.y)) << "remf";
    EXPECT_EQ(floats[3], float(c.a)) << "sitofp";
    float xh = argus_num::bf16_to_f32(argus_num::f32_to_bf16(c.x));
    EXPECT_EQ(floats[4], xh) << "truncf to bf16 rounds to nearest even";
    EXPECT_EQ(floats[5], 1.0f) << "cmpf une x, x is true for NaN";
    EXPECT_EQ(floats[6], c.x / c.y) << "divf";
    float yh = argus_num::bf16_to_f32(argus_num::f32_to_bf16(c.y));
    EXPECT_EQ(floats[7], argus_num::bf16_to_f32(argus_num::f32_to_bf16(xh * yh))) << "mulf on bf16 rounds";
  }
}

} // namespace

namespace {

/// ak::maximum / ak::minimum of the kernels: NaN propagates (the first
/// operand's first), -0 < +0.
float ieeeMax(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
float ieeeMin(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

/// On each target: 16 lanes (AVX-512), 8 (AVX2).
class RowPipelineRun : public ::testing::TestWithParam<const char *> {};

TEST_P(RowPipelineRun, KeepsTheScalarSemanticsOnEdgeValues) {
  const CpuTarget target{GetParam()};
  // The run is fused (a pass per phase, no whole-tile reductions left) ...
  std::string cpp = emitFromFile("test/codegen/inputs/row_fusion.mlir", "row_fusion", "row_fusion_cpu", target);
  EXPECT_NE(cpp.find("ops fused"), std::string::npos) << cpp;
  EXPECT_EQ(cpp.find("ak::reduce_"), std::string::npos) << cpp;
  if (!hostRunsCpuTarget(target.name))
    GTEST_SKIP() << "this CPU cannot run " << GetParam() << " code";
  // ... and computes what one loop per op computed, bit for bit where no
  // rounding differs (selections, NaN, signed zeros, the bf16 rounding).
  auto kernel = buildKernel("test/codegen/inputs/row_fusion.mlir", "row_fusion", target);
  ASSERT_TRUE(kernel);
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  const int64_t M = 13, N = 32; // 4 instances, the last with one row in bounds
  std::vector<float> X(M * N), Y(M * N), E(M * N, kNaN), RM(M, kNaN), S(M, kNaN);
  std::vector<uint16_t> O(M * N, argus_num::f32_to_bf16(kNaN));
  for (int64_t i = 0; i < M * N; ++i) X[i] = dist(rng), Y[i] = dist(rng);
  X[0] = 0.0f, Y[0] = -0.0f;                                 // max +0 (row 0: gt)
  X[1] = -0.0f, Y[1] = 0.0f;                                 // max +0
  X[2] = -1.0f, Y[2] = 1.0f + 1.0f / 256;                    // a bf16 tie (to even: 1.0)
  X[3] = -3.0f, Y[3] = 1.0f + 3.0f / 256;                    // a tie rounding up (1 + 1/64)
  X[2 * N + 5] = kNaN;                                       // row 2: reduce_max is NaN, gt false
  Y[5 * N + 7] = kNaN;                                       // a NaN operand of max/min, x < y false
  for (int64_t i = 0; i < N; ++i) X[6 * N + i] = -1.0f - float(i), Y[6 * N + i] = 4.0f; // row 6: min
  X[6 * N + 1] = 0.0f, Y[6 * N + 1] = -0.0f;                 // min -0
  (*kernel)({tensorArg(X.data(), {M, N}, {N, 1}), tensorArg(Y.data(), {M, N}, {N, 1}),
             tensorArg(E.data(), {M, N}, {N, 1}), tensorArg(O.data(), {M, N}, {N, 1}),
             tensorArg(RM.data(), {M, 1}, {1, 1}), tensorArg(S.data(), {M, 1}, {1, 1})},
            2);
  for (int64_t m = 0; m < M; ++m) {
    SCOPED_TRACE(::testing::Message() << "row " << m);
    float rmax = -INFINITY, rmin = INFINITY;
    bool nanX = false, nanY = false;
    for (int64_t n = 0; n < N; ++n) {
      nanX |= std::isnan(X[m * N + n]), nanY |= std::isnan(Y[m * N + n]);
      rmax = std::max(rmax, X[m * N + n]), rmin = std::min(rmin, Y[m * N + n]);
    }
    if (nanX) rmax = kNaN;
    if (nanY) rmin = kNaN;
    ASSERT_EQ(bitsOf(RM[m]), bitsOf(rmax)) << RM[m] << " vs " << rmax;
    const bool gt = rmax > rmin;
    double sum = 0;
    std::vector<double> e(N);
    for (int64_t n = 0; n < N; ++n) {
      const float x = X[m * N + n], y = Y[m * N + n];
      const float pick = gt ? ieeeMax(x, y) : ieeeMin(x, y);
      const float sel = x < y ? pick : -0.0f;
      ASSERT_EQ(O[m * N + n], argus_num::f32_to_bf16(pick)) << "O[" << n << "], pick " << pick;
      e[n] = double(sel) / (1.0 + std::exp(-double(sel)));
      sum += e[n];
    }
    ASSERT_NEAR(S[m], sum, 1e-5 * (1 + std::fabs(sum)));
    for (int64_t n = 0; n < N; ++n)
      ASSERT_NEAR(E[m * N + n], e[n] - double(S[m]), 1e-6 * (1 + std::fabs(e[n]) + std::fabs(sum))) << "E[" << n << "]";
  }
  EXPECT_EQ(O[0], 0x0000) << "maximum(+0, -0) is +0";
  EXPECT_EQ(O[1], 0x0000) << "maximum(-0, +0) is +0";
  EXPECT_EQ(O[6 * N + 1], 0x8000) << "minimum(+0, -0) is -0";
  EXPECT_EQ(O[2], 0x3f80) << "1 + 2^-8 is a tie: to even, 1.0";
  EXPECT_EQ(O[3], 0x3f82) << "1 + 3 * 2^-8 is a tie: to even, 1 + 2^-6";
  EXPECT_EQ(O[5 * N + 7] & 0x7fc0, 0x7fc0) << "a NaN operand gives a quiet NaN";
}
INSTANTIATE_TEST_SUITE_P(Targets, RowPipelineRun, ::testing::Values("cpu-avx512", "cpu-avx2"),
                         [](const auto &info) { return std::string(info.param) == "cpu-avx2" ? "Avx2" : "Avx512"; });

} // namespace
