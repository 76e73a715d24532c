//===- SoftmaxTest.cpp - reduce / binary / unary on a row softmax ---------===//
//
// inputs/softmax_rows.mlir against float64 on ragged shapes: -inf padding on
// the masked load, max and sum reductions keeping their axis, broadcasting of
// a 4x1 tile against 4x64, exp and recip, stores skipping rows past M.
//
//===----------------------------------------------------------------------===//
#include "TestUtils.h"

using namespace argus::interp;
using namespace argus::interp::test;

TEST(InterpreterSoftmax, RowsMatchFloat64OnRaggedShapes) {
  LoadedKernel k = loadInput("softmax_rows.mlir");
  ASSERT_TRUE(k) << "softmax_rows.mlir did not parse";
  const int64_t shapes[][2] = {{1, 1}, {5, 7}, {13, 64}, {9, 33}, {4, 63}};
  for (auto [m, n] : shapes) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    std::mt19937 rng(static_cast<unsigned>(m * 100 + n));
    HostTensor<float> x({m, n}, /*pad=*/2), y({m, n}, /*pad=*/3);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        x.at(i, j) = randomValue(rng, -8.f, 8.f);
    std::fill(y.data.begin(), y.data.end(), nanf32());
    ASSERT_EQ(errorText(runKernel(k.kernel, {x.arg(), y.arg()})), "");
    for (int64_t i = 0; i < m; ++i) {
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < n; ++j)
        mx = std::max(mx, double(x.at(i, j)));
      for (int64_t j = 0; j < n; ++j)
        sum += std::exp(double(x.at(i, j)) - mx);
      double total = 0;
      for (int64_t j = 0; j < n; ++j) {
        double ref = std::exp(double(x.at(i, j)) - mx) / sum;
        ASSERT_NEAR(y.at(i, j), ref, 4e-7 * ref + 1e-9) << "Y[" << i << "][" << j << "]";
        total += y.at(i, j);
      }
      EXPECT_NEAR(total, 1.0, 1e-5);
      for (int64_t j = n; j < y.stride[0]; ++j)
        EXPECT_TRUE(std::isnan(y.data[i * y.stride[0] + j])) << "pad of row " << i;
    }
  }
}
