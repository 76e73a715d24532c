//===- MemoryTest.cpp - async copies, masking, buffer layouts -------------===//
//
// The memory model the verifier replays counterexamples on: async copies land
// at the right `wait` (earlier reads see old contents), global loads / copies
// read padding out of bounds, stores skip it (poisoned outputs stay poisoned
// where untouched), buffer layouts / swizzles place elements physically,
// so an aliasing layout behaves like aliasing memory, and a varlen segment
// is its sequence's rows alone.
//
//===----------------------------------------------------------------------===//
#include "TestUtils.h"

using namespace argus::interp;
using namespace argus::interp::test;

TEST(InterpreterMemory, AsyncCopyLandsAtTheWaitThatRetiresIt) {
  LoadedKernel k = loadInput("async_copy_wait.mlir");
  ASSERT_TRUE(k) << "async_copy_wait.mlir did not parse";
  const int64_t n = 29, tail = 26;
  std::mt19937 rng(7);
  HostTensor<float> x({n}), y({40});
  for (auto &v : x.data)
    v = randomValue(rng);
  std::fill(y.data.begin(), y.data.end(), -12345.0f);
  ASSERT_EQ(errorText(runKernel(k.kernel, {x.arg(), y.arg(), ScalarArg{0, tail}})), "");
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(y.data[i], x.data[i]) << "read before the async copy completed must see the old data";
    EXPECT_EQ(y.data[8 + i], x.data[8 + i]) << "wait 1 must complete the older copy";
    EXPECT_TRUE(std::isnan(y.data[16 + i])) << "wait 1 must leave the younger copy in flight";
    EXPECT_EQ(y.data[24 + i], x.data[16 + i]) << "wait 0 must complete every copy";
    float expectTail = tail + i < n ? x.data[tail + i] : 0.0f;
    EXPECT_EQ(y.data[32 + i], expectTail) << "copies read zero past the end (element " << i << ")";
  }
}

TEST(InterpreterMemory, LoadsReadPaddingAndStoresSkipOutOfBounds) {
  LoadedKernel k = loadInput("masking.mlir");
  ASSERT_TRUE(k) << "masking.mlir did not parse";
  const int64_t xm = 6, xn = 5, ym = 7, yn = 9;
  std::mt19937 rng(3);
  HostTensor<float> x({xm, xn}, /*pad=*/2);
  for (int64_t i = 0; i < xm; ++i)
    for (int64_t j = 0; j < xn; ++j)
      x.at(i, j) = randomValue(rng);
  const int64_t offsets[] = {-9, -3, 0, 2, 5, 8};
  int checked = 0;
  for (int64_t r0 : offsets)
    for (int64_t c0 : offsets)
      for (int64_t r1 : {-4, 0, 3})
        for (int64_t c1 : {-6, 1, 4}) {
          SCOPED_TRACE("src (" + std::to_string(r0) + "," + std::to_string(c0) + ") dst (" +
                       std::to_string(r1) + "," + std::to_string(c1) + ")");
          HostTensor<float> y({ym, yn}, /*pad=*/3), z({ym, yn}, /*pad=*/3);
          std::fill(y.data.begin(), y.data.end(), nanf32());
          std::fill(z.data.begin(), z.data.end(), nanf32());
          std::vector<KernelArg> args = {x.arg(), y.arg(), z.arg(), ScalarArg{0, r0},
                                         ScalarArg{0, c0}, ScalarArg{0, r1}, ScalarArg{0, c1}};
          ASSERT_EQ(errorText(runKernel(k.kernel, args)), "");
          for (int64_t i = 0; i < ym; ++i)
            for (int64_t j = 0; j < y.stride[0]; ++j) {
              int64_t ti = i - r1, tj = j - c1; // tile element landing here
              bool written = j < yn && ti >= 0 && ti < 8 && tj >= 0 && tj < 8;
              float gotY = y.data[i * y.stride[0] + j], gotZ = z.data[i * z.stride[0] + j];
              if (!written) {
                ASSERT_TRUE(std::isnan(gotY) && std::isnan(gotZ)) << "(" << i << "," << j << ")";
                continue;
              }
              int64_t si = r0 + ti, sj = c0 + tj;
              bool inX = si >= 0 && si < xm && sj >= 0 && sj < xn;
              ASSERT_EQ(gotY, inX ? x.at(si, sj) : 7.5f) << "Y(" << i << "," << j << ")";
              ASSERT_EQ(gotZ, inX ? x.at(si, sj) : 0.0f) << "Z(" << i << "," << j << ")";
              ++checked;
            }
        }
  EXPECT_GT(checked, 1000);
}

TEST(InterpreterMemory, BufferLayoutsPlaceElementsPhysically) {
  LoadedKernel k = loadInput("buffer_layouts.mlir");
  ASSERT_TRUE(k) << "buffer_layouts.mlir did not parse";
  std::mt19937 rng(11);
  HostTensor<float> x({32}), y1({32}), y2({32}), y3({32});
  for (auto &v : x.data)
    v = randomValue(rng);
  for (auto *y : {&y1, &y2, &y3})
    std::fill(y->data.begin(), y->data.end(), nanf32());
  ASSERT_EQ(errorText(runKernel(k.kernel, {x.arg(), y1.arg(), y2.arg(), y3.arg()})), "");
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(y1.data[i], x.data[i]) << i;
    EXPECT_EQ(y2.data[i], x.data[i]) << i;
    EXPECT_EQ(y3.data[i], x.data[i / 4 * 4 + 3]) << i;
  }
}

namespace {

// argus.segment: a varlen sequence's rows as a tensor; masking stops at its
// end, and its bounds are clamped (to the tensor, to the limit, to nothing
// for a key with no sequence).
struct VarlenRun {
  HostTensor<float> x{{12, 8}}, y{{12, 8}};
  HostTensor<int32_t> cu{{5}};

  std::string run(int64_t maxRows) {
    LoadedKernel k = loadInput("segments.mlir");
    if (!k)
      return "segments.mlir did not parse";
    std::mt19937 rng(5);
    for (auto &v : x.data) v = randomValue(rng);
    std::fill(y.data.begin(), y.data.end(), nanf32());
    return errorText(runKernel(k.kernel, {x.arg(), cu.arg(), y.arg(), ScalarArg{0, maxRows}}));
  }
  /// Whether row r of Y is X's row plus one (written) or all NaN (untouched).
  bool written(int64_t r) { return y.at(r, 0) == x.at(r, 0) + 1.0f; }
  bool untouched(int64_t r) {
    for (int64_t j = 0; j < 8; ++j)
      if (!std::isnan(y.at(r, j))) return false;
    return true;
  }
};

TEST(InterpreterSegment, EachSequenceSeesItsRowsAlone) {
  VarlenRun v;
  v.cu.data = {0, 3, 3, 10, 12}; // rows 0-2, none, 3-9, 10-11
  ASSERT_EQ(v.run(7), "");
  for (int64_t r = 0; r < 12; ++r) {
    EXPECT_TRUE(v.written(r)) << "row " << r;
    for (int64_t j = 0; j < 8; ++j) EXPECT_EQ(v.y.at(r, j), v.x.at(r, j) + 1.0f) << r << "," << j;
  }
}

TEST(InterpreterSegment, BoundsClampToTheLimitAndTheTensor) {
  VarlenRun v;
  v.cu.data = {0, 3, 9, 11, 40}; // rows 0-2, 3-8 (kept: 3-7), 9-10, 11 (40 clamps to the 12 rows)
  ASSERT_EQ(v.run(5), "");
  for (int64_t r : {0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11}) EXPECT_TRUE(v.written(r)) << "row " << r;
  EXPECT_TRUE(v.untouched(8)) << "row 8 is past the limit of its sequence's 5 rows";
}

TEST(InterpreterSegment, DecreasingOffsetsGiveEmptySequences) {
  VarlenRun v;
  v.cu.data = {-4, 2, 1, 6, 5}; // rows 0-1 (-4 clamps to 0), none (1 < 2), 1-5, none
  ASSERT_EQ(v.run(12), "");
  for (int64_t r = 0; r < 6; ++r) EXPECT_TRUE(v.written(r)) << "row " << r;
  for (int64_t r = 6; r < 12; ++r) EXPECT_TRUE(v.untouched(r)) << "row " << r;
}

} // namespace
