//===- MmaCase.h - operands and float64 expectation of one mma -*- C++ -*-===//
//
// Shared by the mma tests of each ISA (CpuMmaTest.cpp for AVX-512,
// CpuMmaAvx2Test.cpp for AVX2): each is its own executable, compiled with
// its own ISA flags, since the kernel header's inline templates must not
// meet a second instantiation compiled for another ISA.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_MMACASE_H
#define ARGUS_TEST_MMACASE_H

#include "argus_cpu_kernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace argus::test {

namespace ak = argus_cpu;
using ak::detail::BLayout;

/// Operands of one mma: a (M x K) with row stride lda >= K, b as N x K rows
/// (BLayout::NK) or K x N rows (BLayout::KN) with row stride ldb, acc (M x N)
/// with random start values, and the float64 expectation.
template <class DT> struct MmaCase {
  using S = typename DT::storage;
  int64_t M, N, K, lda, ldb;
  BLayout layout;
  std::vector<S> a, b;
  std::vector<float> acc;
  std::vector<double> want;

  MmaCase(int64_t m, int64_t n, int64_t k, int64_t pad, BLayout l, unsigned seed)
      : M(m), N(n), K(k), lda(k + pad), ldb((l == BLayout::NK ? k : n) + pad), layout(l),
        a(m * lda), b((l == BLayout::NK ? n : k) * ldb), acc(m * n), want(m * n) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    // Padding elements of each row are NaN: a kernel that reads past the
    // tile (or ignores its stride) poisons its result.
    for (S &x : a) x = DT::store(std::nanf(""));
    for (S &x : b) x = DT::store(std::nanf(""));
    for (int64_t r = 0; r < M; ++r)
      for (int64_t c = 0; c < K; ++c) a[r * lda + c] = DT::store(dist(rng));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < K; ++c) bAt(n, c) = DT::store(dist(rng));
    for (int64_t i = 0; i < M * N; ++i) {
      acc[i] = dist(rng);
      want[i] = acc[i];
    }
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < K; ++c)
          want[m * N + n] += double(DT::load(a[m * lda + c])) * double(DT::load(bAt(n, c)));
  }
  S &bAt(int64_t n, int64_t k) { return layout == BLayout::NK ? b[n * ldb + k] : b[k * ldb + n]; }
  ak::tile_ref<S> aRef() const { return {a.data(), lda}; }
  ak::tile_ref<S> bRef() const { return {b.data(), ldb}; }

  /// Sums of K products of values in [-1, 1], accumulated in f32.
  void expectClose(const char *path) const {
    const double tol = 1e-5 * double(K + 1);
    for (int64_t i = 0; i < M * N; ++i)
      ASSERT_NEAR(acc[i], want[i], tol) << path << (layout == BLayout::NK ? " NK" : " KN") << " M=" << M
                                        << " N=" << N << " K=" << K << " lda=" << lda << " ldb=" << ldb
                                        << " at row " << i / N << " column " << i % N;
  }
};

/// Runs `kernel` with dense operands (stride = row length) and strided ones
/// (6 more), b in layout L.
template <class DT, int64_t M, int64_t N, int64_t K, BLayout L = BLayout::NK, class Kernel>
void checkPath(const char *path, Kernel kernel) {
  for (int64_t pad : {0, 6}) {
    MmaCase<DT> c(M, N, K, pad, L, unsigned(M * 1000 + N * 10 + pad));
    kernel(c);
    c.expectClose(path);
  }
}

} // namespace argus::test

#endif // ARGUS_TEST_MMACASE_H
