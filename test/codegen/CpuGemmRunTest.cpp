//===- CpuGemmRunTest.cpp - generated GEMM kernels against float64 --------===//
//
// gemm_tn.mlir (f32, 16x16 tiles, BK 32) and inputs/gemm_bf16.mlir (bf16,
// 32x64 tiles, BK 128, staged through buffers) are emitted, compiled with
// g++ and run on ragged shapes M, N, K in {1, 7, 64, 129, 200}. Inputs are
// random (never zero), rows are padded (lda = K + 3, ...) with NaN so any read
// past K shows; C is NaN-poisoned whenever beta == 0 and its padding columns
// hold a sentinel that must survive (masked stores).
//
//===----------------------------------------------------------------------===//
#include "CodegenTestSupport.h"

#include "argus_numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

using namespace argus::codegen;
using namespace argus::codegen::testing;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kSentinel = 12345.0f;
const int64_t kSizes[] = {1, 7, 64, 129, 200};

struct Epilogue {
  float alpha, beta;
  bool bias;
};
const Epilogue kEpilogues[] = {{1.0f, 0.0f, false}, {0.5f, -1.25f, true}, {-2.0f, 0.0f, true}};

/// Storage of one element type: f32 as float, bf16 as its 16 bits.
template <bool Bf16> struct Elem {
  using T = std::conditional_t<Bf16, uint16_t, float>;
  static T from(float x) {
    if constexpr (Bf16)
      return argus_num::f32_to_bf16(x);
    else
      return x;
  }
  static double value(T x) {
    if constexpr (Bf16)
      return argus_num::bf16_to_f32(x);
    else
      return x;
  }
  static bool isNaN(T x) { return std::isnan(value(x)); }
};

template <bool Bf16> class GemmRunner {
public:
  using E = Elem<Bf16>;
  using T = typename E::T;

  explicit GemmRunner(const LoadedKernel &kernel) : kernel(kernel) {}

  /// Runs one shape/epilogue and compares every element with float64.
  void check(int64_t M, int64_t N, int64_t K, const Epilogue &ep, int threads) {
    SCOPED_TRACE(::testing::Message() << "M=" << M << " N=" << N << " K=" << K << " alpha=" << ep.alpha
                                      << " beta=" << ep.beta << " bias=" << ep.bias << " threads=" << threads);
    const int64_t lda = K + 3, ldb = K + 1, ldc = N + 5;
    std::uniform_real_distribution<float> dist(0.1f, 1.0f);
    auto random = [&] { return (rng() & 1 ? 1.0f : -1.0f) * dist(rng); }; // never zero
    std::vector<T> A(M * lda, E::from(kNaN)), B(N * ldb, E::from(kNaN)), C(M * ldc, E::from(kSentinel));
    std::vector<T> bias(N);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k) A[m * lda + k] = E::from(random());
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) B[n * ldb + k] = E::from(random());
    for (auto &b : bias) b = E::from(random());
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) C[m * ldc + n] = E::from(ep.beta == 0.0f ? kNaN : random());

    // float64 reference from the exact element values.
    std::vector<double> ref(M * N), scale(M * N);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double dot = 0, mag = 0;
        for (int64_t k = 0; k < K; ++k) {
          double p = E::value(A[m * lda + k]) * E::value(B[n * ldb + k]);
          dot += p;
          mag += std::fabs(p);
        }
        double r = ep.alpha * dot;
        double s = std::fabs(ep.alpha) * mag;
        if (ep.beta != 0.0f) {
          r += ep.beta * E::value(C[m * ldc + n]);
          s += std::fabs(ep.beta * E::value(C[m * ldc + n]));
        }
        if (ep.bias) {
          r += E::value(bias[n]);
          s += std::fabs(E::value(bias[n]));
        }
        ref[m * N + n] = r;
        scale[m * N + n] = s;
      }

    std::vector<argus_cpu_arg> args = {
        tensorArg(A.data(), {M, K}, {lda, 1}),      tensorArg(B.data(), {N, K}, {ldb, 1}),
        tensorArg(C.data(), {M, N}, {ldc, 1}),      tensorArg(bias.data(), {N}, {1}),
        floatArg(ep.alpha),                         floatArg(ep.beta),
        intArg(ep.bias ? 1 : 0)};
    kernel(args, threads);

    // f32: accumulation error only. bf16: plus the final rounding of C (2^-9 relative).
    const double relTol = Bf16 ? 1.0 / 256 : 1e-6;
    int64_t bad = 0;
    for (int64_t m = 0; m < M && bad < 5; ++m) {
      for (int64_t n = 0; n < N && bad < 5; ++n) {
        double got = E::value(C[m * ldc + n]);
        double want = ref[m * N + n];
        double tol = relTol * std::fabs(want) + 1e-5 * scale[m * N + n] + 1e-30;
        if (!(std::fabs(got - want) <= tol)) {
          ++bad;
          ADD_FAILURE() << "C[" << m << "][" << n << "] = " << got << ", expected " << want << " (tol " << tol << ")";
        }
      }
      for (int64_t n = N; n < ldc; ++n)
        if (E::value(C[m * ldc + n]) != E::value(E::from(kSentinel)) && bad++ < 5)
          ADD_FAILURE() << "padding C[" << m << "][" << n << "] was written";
    }
  }

private:
  const LoadedKernel &kernel;
  std::mt19937 rng{42};
};

class GemmF32Run : public ::testing::TestWithParam<std::string> {};

TEST_P(GemmF32Run, MatchesFloat64OnRaggedShapes) {
  if (!hostRunsCpuTarget(GetParam()))
    GTEST_SKIP() << "this CPU cannot run " << GetParam() << " code";
  auto kernel = buildKernel("test/dialect/inputs/gemm_tn.mlir", "gemm_tn", CpuTarget{GetParam()});
  ASSERT_TRUE(kernel);
  GemmRunner<false> run(*kernel);
  int i = 0;
  for (int64_t M : kSizes)
    for (int64_t N : kSizes)
      for (int64_t K : kSizes)
        for (const Epilogue &ep : kEpilogues)
          run.check(M, N, K, ep, (i++ % 2) ? 3 : 0);
}

INSTANTIATE_TEST_SUITE_P(Targets, GemmF32Run, ::testing::Values("cpu-avx512", "cpu-avx2"),
                         [](const auto &info) { return info.param == "cpu-avx512" ? "Avx512" : "Avx2"; });

class GemmBf16Run : public ::testing::TestWithParam<std::string> {};

TEST_P(GemmBf16Run, Tile32x64Bk128MatchesFloat64OnRaggedShapes) {
  if (!hostRunsCpuTarget(GetParam()))
    GTEST_SKIP() << "this CPU cannot run " << GetParam() << " code";
  auto kernel = buildKernel("test/codegen/inputs/gemm_bf16.mlir", "gemm_bf16", CpuTarget{GetParam()});
  ASSERT_TRUE(kernel);
  GemmRunner<true> run(*kernel);
  int i = 0;
  for (int64_t M : kSizes)
    for (int64_t N : kSizes)
      for (int64_t K : kSizes)
        for (const Epilogue &ep : kEpilogues)
          run.check(M, N, K, ep, (i++ % 2) ? 3 : 0);
}

INSTANTIATE_TEST_SUITE_P(Targets, GemmBf16Run, ::testing::Values("cpu-avx512", "cpu-avx2"),
                         [](const auto &info) { return info.param == "cpu-avx512" ? "Avx512" : "Avx2"; });

} // namespace
