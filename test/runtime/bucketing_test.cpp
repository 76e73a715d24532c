//===- bucketing_test.cpp - argus_bucket_index, exhaustively --------------===//
//
// The postcondition of argus_bucket_index(bounds, count, m) = i:
//   i is the first index with bounds[i] >= m, or count - 1 when none is;
// equivalently bounds[i-1] < m (i > 0) and (m <= bounds[i] or i == count-1).
// Checked for every m in a range around every bound of many random tables
// against a naive linear scan, plus the documented examples.
//
//===----------------------------------------------------------------------===//
#include "argus_bucketing.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

int32_t naiveBucket(const std::vector<int64_t> &bounds, int64_t m) {
  for (size_t i = 0; i < bounds.size(); ++i)
    if (bounds[i] >= m) return static_cast<int32_t>(i);
  return static_cast<int32_t>(bounds.size()) - 1;
}

TEST(Bucketing, DocumentedExamples) {
  const int64_t bounds[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048};
  EXPECT_EQ(argus_bucket_index(bounds, 12, 1), 0);
  EXPECT_EQ(argus_bucket_index(bounds, 12, 3), 2);
  EXPECT_EQ(argus_bucket_index(bounds, 12, 2048), 11);
  EXPECT_EQ(argus_bucket_index(bounds, 12, 9000), 11);
  EXPECT_EQ(argus_bucket_index(bounds, 12, 0), 0);
  EXPECT_EQ(argus_bucket_index(bounds, 12, -5), 0);
  EXPECT_EQ(argus_bucket_index(bounds, 12, INT64_MAX), 11);
  EXPECT_EQ(argus_bucket_index(bounds, 12, INT64_MIN), 0);
}

TEST(Bucketing, EmptyTableHasNoBucket) {
  const int64_t bounds[] = {4};
  EXPECT_EQ(argus_bucket_index(bounds, 0, 3), -1);
  EXPECT_EQ(argus_bucket_index(bounds, -1, 3), -1);
  EXPECT_EQ(argus_bucket_index(nullptr, 1, 3), -1);
}

TEST(Bucketing, SingleBoundTakesEverything) {
  const int64_t bounds[] = {32};
  for (int64_t m = -3; m <= 100; ++m) EXPECT_EQ(argus_bucket_index(bounds, 1, m), 0) << m;
}

TEST(Bucketing, MatchesLinearScanExhaustively) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    int32_t count = 1 + static_cast<int32_t>(rng() % 17);
    std::vector<int64_t> bounds;
    int64_t b = 0;
    for (int32_t i = 0; i < count; ++i) {
      b += 1 + static_cast<int64_t>(rng() % (trial % 3 == 0 ? 3 : 600));
      bounds.push_back(b);
    }
    ASSERT_TRUE(argus_bucket_bounds_valid(bounds.data(), count));
    for (int64_t m = -2; m <= bounds.back() + 3; ++m) {
      int32_t got = argus_bucket_index(bounds.data(), count, m);
      ASSERT_EQ(got, naiveBucket(bounds, m)) << "trial " << trial << ", m " << m;
      // The postcondition, stated directly.
      ASSERT_TRUE(got >= 0 && got < count);
      if (got > 0) ASSERT_LT(bounds[got - 1], m);
      ASSERT_TRUE(m <= bounds[got] || got == count - 1);
    }
  }
}

TEST(Bucketing, BoundsValidity) {
  const int64_t good[] = {1, 2, 64};
  const int64_t zero[] = {0, 2};
  const int64_t equal[] = {2, 2};
  const int64_t descending[] = {8, 4};
  EXPECT_TRUE(argus_bucket_bounds_valid(good, 3));
  EXPECT_FALSE(argus_bucket_bounds_valid(good, 0));
  EXPECT_FALSE(argus_bucket_bounds_valid(nullptr, 1));
  EXPECT_FALSE(argus_bucket_bounds_valid(zero, 2));
  EXPECT_FALSE(argus_bucket_bounds_valid(equal, 2));
  EXPECT_FALSE(argus_bucket_bounds_valid(descending, 2));
}

} // namespace
