//===- runtime_testing.h - helpers shared by the runtime's tests ----------===//
//
// ScopedEnv: set or unset an environment variable for one test and reload
// the runtime's configuration (normally read once per process) both when it
// is set and when it is restored, so tests can exercise ARGUS_STRICT,
// ARGUS_NUM_THREADS and ARGUS_FAKE_MISSING_ISA in one process.
//
// GemmProblem: random operands of any supported dtype (never zeros), a
// float64 reference, and a comparison with dtype-appropriate tolerances.
// C is poisoned with NaN where the kernel must write it (beta == 0), and
// the padding columns between n and ldc hold a sentinel that must survive.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_RUNTIME_TESTING_H
#define ARGUS_TEST_RUNTIME_TESTING_H

#include "argus_config.h"
#include "argus_kernels.h"
#include "argus_numerics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace rt_test {

class ScopedEnv {
public:
  /// value == nullptr unsets the variable.
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) old_ = std::string(old);
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
    argus_rt::reloadConfig();
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_.c_str(), old_->c_str(), 1);
    else
      unsetenv(name_.c_str());
    argus_rt::reloadConfig();
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  std::string name_;
  std::optional<std::string> old_;
};

inline bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

inline size_t elementBytes(argus_dtype t) { return t == ARGUS_DTYPE_F32 ? 4 : 2; }

inline double decode(const std::vector<uint8_t> &buf, size_t i, argus_dtype t) {
  if (t == ARGUS_DTYPE_F32) return reinterpret_cast<const float *>(buf.data())[i];
  uint16_t h = reinterpret_cast<const uint16_t *>(buf.data())[i];
  return t == ARGUS_DTYPE_BF16 ? argus_num::bf16_to_f32(h) : argus_num::f16_to_f32(h);
}

inline void encode(std::vector<uint8_t> &buf, size_t i, argus_dtype t, float v) {
  if (t == ARGUS_DTYPE_F32)
    reinterpret_cast<float *>(buf.data())[i] = v;
  else
    reinterpret_cast<uint16_t *>(buf.data())[i] =
        t == ARGUS_DTYPE_BF16 ? argus_num::f32_to_bf16(v) : argus_num::f32_to_f16(v);
}

/// A GEMM with owned, random operands; C's padding columns hold `kSentinel`.
struct GemmProblem {
  static constexpr float kSentinel = -768.0f; // exact in f32, bf16 and f16

  argus_gemm_args args{};
  std::vector<uint8_t> a, b, c, bias, cBefore;

  GemmProblem(int64_t m, int64_t n, int64_t k, argus_dtype ab, argus_dtype ct, float alpha,
              float beta, bool withBias, int64_t pad = 3, uint32_t seed = 1) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    auto nonzero = [&] {
      float v = dist(rng);
      return v == 0.0f ? 0.5f : v;
    };
    args.struct_size = sizeof(argus_gemm_args);
    args.m = m, args.n = n, args.k = k;
    args.a_type = ab, args.b_type = ab, args.c_type = ct;
    args.lda = k + pad, args.ldb = k + pad + 1, args.ldc = n + pad;
    args.alpha = alpha, args.beta = beta;
    a.assign(elementBytes(ab) * std::max<int64_t>(1, m * args.lda), 0);
    b.assign(elementBytes(ab) * std::max<int64_t>(1, n * args.ldb), 0);
    c.assign(elementBytes(ct) * std::max<int64_t>(1, m * args.ldc), 0);
    for (size_t i = 0; i < a.size() / elementBytes(ab); ++i) encode(a, i, ab, nonzero());
    for (size_t i = 0; i < b.size() / elementBytes(ab); ++i) encode(b, i, ab, nonzero());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < args.ldc; ++j)
        encode(c, i * args.ldc + j, ct,
               j >= n ? kSentinel : (beta == 0.0f ? NAN : nonzero()));
    if (withBias) {
      bias.assign(elementBytes(ct) * std::max<int64_t>(1, n), 0);
      for (int64_t j = 0; j < n; ++j) encode(bias, j, ct, nonzero());
    }
    cBefore = c;
    args.a = a.data(), args.b = b.data(), args.c = c.data();
    args.bias = withBias ? bias.data() : nullptr;
  }

  double reference(int64_t i, int64_t j) const {
    double acc = 0.0;
    for (int64_t p = 0; p < args.k; ++p)
      acc += decode(a, i * args.lda + p, args.a_type) * decode(b, j * args.ldb + p, args.b_type);
    double value = double(args.alpha) * acc;
    if (args.beta != 0.0f) value += double(args.beta) * decode(cBefore, i * args.ldc + j, args.c_type);
    if (args.bias) value += decode(bias, j, args.c_type);
    return value;
  }

  /// Sum of the magnitudes that enter C[i][j]: the scale of rounding error.
  double magnitude(int64_t i, int64_t j) const {
    double acc = 0.0;
    for (int64_t p = 0; p < args.k; ++p)
      acc += std::fabs(decode(a, i * args.lda + p, args.a_type) *
                       decode(b, j * args.ldb + p, args.b_type));
    double value = std::fabs(double(args.alpha)) * acc;
    if (args.beta != 0.0f)
      value += std::fabs(double(args.beta) * decode(cBefore, i * args.ldc + j, args.c_type));
    if (args.bias) value += std::fabs(decode(bias, j, args.c_type));
    return value;
  }

  /// Checks every element of C against the float64 reference: f32
  /// accumulation error (k+4)*2^-24*magnitude plus one rounding to c_type
  /// (2^-8 bf16, 2^-11 f16); padding columns must be untouched.
  void expectCorrect() const {
    double outEps = args.c_type == ARGUS_DTYPE_BF16  ? std::ldexp(1.0, -8)
                    : args.c_type == ARGUS_DTYPE_F16 ? std::ldexp(1.0, -11)
                                                     : 0.0;
    int failures = 0;
    for (int64_t i = 0; i < args.m && failures < 5; ++i) {
      for (int64_t j = 0; j < args.ldc && failures < 5; ++j) {
        double got = decode(c, i * args.ldc + j, args.c_type);
        if (j >= args.n) {
          size_t bytes = elementBytes(args.c_type), at = (i * args.ldc + j) * bytes;
          bool same = std::equal(c.begin() + at, c.begin() + at + bytes, cBefore.begin() + at);
          EXPECT_TRUE(same) << "padding C[" << i << "][" << j << "] was written: " << got;
          failures += !same;
          continue;
        }
        double want = reference(i, j);
        double tol = (args.k + 4) * std::ldexp(1.0, -24) * magnitude(i, j) +
                     outEps * std::fabs(want) + 1e-30;
        bool ok = std::isfinite(got) && std::fabs(got - want) <= tol;
        EXPECT_TRUE(ok) << "C[" << i << "][" << j << "] = " << got << ", want " << want
                        << " +- " << tol;
        failures += !ok;
      }
    }
  }
};

} // namespace rt_test

#endif // ARGUS_TEST_RUNTIME_TESTING_H
