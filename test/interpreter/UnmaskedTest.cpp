//===- UnmaskedTest.cpp - unmasked loads, stores and copies ---------------===//
//
// An `unmasked` access behaves like a masked one while it stays in bounds and
// is an error (naming the op, the tensor, the element and the bounds) the
// moment one element would fall outside, before anything is written.
//
//===----------------------------------------------------------------------===//
#include "TestUtils.h"

using namespace argus::interp;
using namespace argus::interp::test;

namespace {

struct UnmaskedRun {
  HostTensor<float> x{{6, 8}, /*pad=*/3}, y{{7, 8}, /*pad=*/1}, z{{6, 8}};
  std::string error;

  UnmaskedRun(const LoadedKernel &k, int64_t rl, int64_t rs, int64_t rc) {
    std::mt19937 rng(5);
    for (auto &v : x.data)
      v = randomValue(rng);
    for (auto &v : z.data)
      v = randomValue(rng);
    std::fill(y.data.begin(), y.data.end(), nanf32());
    error = errorText(runKernel(k.kernel, {x.arg(), y.arg(), z.arg(), ScalarArg{0, rl},
                                           ScalarArg{0, rs}, ScalarArg{0, rc}}));
  }
  bool yUntouched() const {
    return std::all_of(y.data.begin(), y.data.end(), [](float v) { return std::isnan(v); });
  }
};

std::string input() { return std::string(ARGUS_INTERP_INPUTS_DIR) + "/unmasked.mlir"; }

TEST(InterpreterUnmasked, InBoundsAccessesBehaveLikeMaskedOnes) {
  LoadedKernel k = loadInput("unmasked.mlir");
  ASSERT_TRUE(k);
  for (auto [rl, rs, rc] : {std::array<int64_t, 3>{2, 3, 1}, {0, 0, 2}, {1, 3, 0}}) {
    UnmaskedRun run(k, rl, rs, rc);
    ASSERT_EQ(run.error, "");
    for (int64_t i = 0; i < 7; ++i)
      for (int64_t j = 0; j < 8; ++j) {
        float got = run.y.at(i, j);
        if (i < rs || i >= rs + 4) {
          EXPECT_TRUE(std::isnan(got)) << "(" << i << "," << j << ") is outside the stored tile";
          continue;
        }
        float want = run.x.at(rl + i - rs, j) + run.z.at(rc + i - rs, j);
        EXPECT_EQ(got, want) << "(" << i << "," << j << ")";
      }
  }
}

TEST(InterpreterUnmasked, LoadPastTheEndNamesTheElementAndTheBounds) {
  LoadedKernel k = loadInput("unmasked.mlir");
  ASSERT_TRUE(k);
  UnmaskedRun run(k, /*rl=*/3, /*rs=*/0, /*rc=*/0);
  EXPECT_NE(run.error.find(input() + ":16:10: unmasked load reads element (6, 0) of tensor 'X' "
                                     "(argument 0), outside its bounds [0, 6) x [0, 8)"),
            std::string::npos)
      << run.error;
  EXPECT_NE(run.error.find("tile at (3, 0) of shape (4, 8)"), std::string::npos) << run.error;
  EXPECT_TRUE(run.yUntouched());
}

TEST(InterpreterUnmasked, NegativeOffsetIsOutOfBoundsToo) {
  LoadedKernel k = loadInput("unmasked.mlir");
  ASSERT_TRUE(k);
  UnmaskedRun run(k, /*rl=*/-1, /*rs=*/0, /*rc=*/0);
  EXPECT_NE(run.error.find("unmasked load reads element (-1, 0) of tensor 'X'"), std::string::npos)
      << run.error;
}

TEST(InterpreterUnmasked, CopyPastTheEnd) {
  LoadedKernel k = loadInput("unmasked.mlir");
  ASSERT_TRUE(k);
  UnmaskedRun run(k, /*rl=*/0, /*rs=*/0, /*rc=*/5);
  EXPECT_NE(run.error.find(input() + ":18:5: unmasked copy reads element (6, 0) of tensor 'Z' "
                                     "(argument 2), outside its bounds [0, 6) x [0, 8)"),
            std::string::npos)
      << run.error;
  EXPECT_TRUE(run.yUntouched());
}

TEST(InterpreterUnmasked, StorePastTheEndWritesNothing) {
  LoadedKernel k = loadInput("unmasked.mlir");
  ASSERT_TRUE(k);
  UnmaskedRun run(k, /*rl=*/0, /*rs=*/4, /*rc=*/0);
  EXPECT_NE(run.error.find(input() + ":22:5: unmasked store writes element (7, 0) of tensor 'Y' "
                                     "(argument 1), outside its bounds [0, 7) x [0, 8)"),
            std::string::npos)
      << run.error;
  EXPECT_NE(run.error.find("(in program instance (0, 0, 0))"), std::string::npos) << run.error;
  EXPECT_TRUE(run.yUntouched()) << "no element of a broken unmasked store may be written";
}

} // namespace

namespace {

// argus.read (one element as a scalar) is always unmasked.
TEST(InterpreterRead, GathersThroughAnIndexTensor) {
  LoadedKernel k = loadInput("read_scalar.mlir");
  ASSERT_TRUE(k);
  HostTensor<float> x{{5, 8}}, y{{3, 8}};
  HostTensor<int32_t> idx{{3}};
  std::mt19937 rng(9);
  for (auto &v : x.data) v = randomValue(rng);
  idx.data = {4, 0, 4};
  ASSERT_EQ(errorText(runKernel(k.kernel, {x.arg(), idx.arg(), y.arg()})), "");
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t j = 0; j < 8; ++j) EXPECT_EQ(y.at(r, j), x.at(idx.data[r], j)) << r << "," << j;
}

TEST(InterpreterRead, ReadPastTheEndNamesTheElement) {
  LoadedKernel k = loadInput("read_scalar.mlir");
  ASSERT_TRUE(k);
  HostTensor<float> x{{5, 8}}, y{{3, 8}};
  HostTensor<int32_t> idx{{2}};
  idx.data = {1, 2};
  std::string error = errorText(runKernel(k.kernel, {x.arg(), idx.arg(), y.arg()}));
  EXPECT_NE(error.find("unmasked read of element (2) of tensor 'Idx' (argument 1), outside its bounds [0, 2)"),
            std::string::npos)
      << error;
}

} // namespace
