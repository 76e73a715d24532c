//===- SwizzleTest.cpp - Swizzle<B,M,S> and swizzled layouts --------------===//
#include "argus/Layout/Swizzle.h"

#include "LayoutTestUtil.h"

using namespace argus::layout;
using namespace argus::layout::testing;

TEST(Swizzle, PrintsAndParses) {
  auto sw = makeSwizzle(3, 3, 3);
  ASSERT_TRUE(sw.ok());
  EXPECT_EQ(toString(*sw), "Sw<3,3,3>");
  EXPECT_EQ(*parseSwizzle("Sw<2,4,-3>"), *makeSwizzle(2, 4, -3));
  EXPECT_EQ(parseSwizzle("Sw<3,3>").message(),
            "expected a swizzle 'Sw<B,M,S>', found 'Sw<3,3>'");
  EXPECT_EQ(parseSwizzle("Sw<3,3,3>x").message(),
            "expected a swizzle 'Sw<B,M,S>', found 'Sw<3,3,3>x'");
}

TEST(Swizzle, ConstructionErrors) {
  EXPECT_EQ(makeSwizzle(3, 3, 2).message(),
            "Sw<3,3,2>: expected |S| >= B, found B=3 S=2");
  EXPECT_EQ(makeSwizzle(-1, 3, 2).message(),
            "Sw<-1,3,2>: expected B >= 0 and M >= 0");
  EXPECT_EQ(makeSwizzle(3, 60, 3).message(), "Sw<3,60,3>: masks exceed 62 bits");
  EXPECT_TRUE(makeSwizzle(0, 0, 0).ok());
}

TEST(Swizzle, CuTeSemantics) {
  Swizzle sw = *makeSwizzle(3, 3, 3);
  EXPECT_EQ(sw.yyyMask(), 0b111000000);
  EXPECT_EQ(sw.zzzMask(), 0b111000);
  EXPECT_EQ(sw(8), 8);
  EXPECT_EQ(sw(64), 72);
  EXPECT_EQ(sw(72), 64);
  EXPECT_EQ(sw(520), 520);
  EXPECT_EQ(sw(0b101'011'111), 0b101'110'111);
  // Negative shift: YYY is below ZZZ and moves left.
  Swizzle neg = *makeSwizzle(2, 1, -3);
  EXPECT_EQ(neg.yyyMask(), 0b110);
  EXPECT_EQ(neg.zzzMask(), 0b110000);
  EXPECT_EQ(neg(0b000'010), 0b010'010);
  EXPECT_EQ(neg(0b110'110), 0b000'110);
  // Sw<0,M,S> is the identity.
  EXPECT_EQ((*makeSwizzle(0, 4, 0))(12345), 12345);
}

TEST(Swizzle, IsAnInvolutionAndABijectionOnItsBlock) {
  for (int b = 0; b <= 3; ++b)
    for (int m = 0; m <= 3; ++m)
      for (int s = -5; s <= 5; ++s) {
        auto sw = makeSwizzle(b, m, s);
        if (!sw.ok())
          continue;
        int64_t block = int64_t(1) << (b + m + std::abs(s));
        std::set<int64_t> seen;
        for (int64_t o = 0; o < 4 * block; ++o) {
          int64_t x = (*sw)(o);
          ASSERT_EQ((*sw)(x), o) << *sw << " at " << o;
          ASSERT_EQ(x / block, o / block) << *sw << " leaves its block";
          ASSERT_EQ(x & ((int64_t(1) << m) - 1), o & ((int64_t(1) << m) - 1));
          seen.insert(x);
        }
        ASSERT_EQ(static_cast<int64_t>(seen.size()), 4 * block) << *sw;
      }
}

TEST(ComposedLayout, EvaluatesSwizzleOfLayout) {
  auto cl = makeComposedLayout(*makeSwizzle(3, 3, 3), L("(8,64):(64,1)"));
  ASSERT_TRUE(cl.ok());
  EXPECT_EQ(toString(*cl), "Sw<3,3,3> o (8,64):(64,1)");
  EXPECT_EQ(size(*cl), 512);
  EXPECT_EQ(*evaluate(*cl, 65), 64);
  EXPECT_EQ(*evaluate(*cl, tup(1, 8)), 64);
  EXPECT_FALSE(evaluate(*cl, 512).ok());
  EXPECT_EQ(makeComposedLayout(*makeSwizzle(3, 3, 3), L("4:-1")).message(),
            "cannot swizzle 4:-1: expected non-negative strides (offsets >= 0)");
  // Each row of 64 elements is a permutation of itself; the whole map is a
  // bijection of [0,512).
  std::set<int64_t> all;
  for (int64_t i = 0; i < size(*cl); ++i) {
    int64_t x = *evaluate(*cl, i);
    EXPECT_EQ(x, (*makeSwizzle(3, 3, 3))(bruteEval(cl->layout, i)));
    all.insert(x);
  }
  EXPECT_EQ(all.size(), 512u);
  EXPECT_EQ(*all.rbegin(), 511);
}
