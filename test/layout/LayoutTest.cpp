//===- LayoutTest.cpp - Construction, printing and evaluation -------------===//
#include "LayoutTestUtil.h"

using namespace argus::layout;
using namespace argus::layout::testing;

TEST(Layout, PrintsShapeColonStride) {
  auto l = makeLayout(tup(4, tup(2, 8)), tup(16, tup(1, 2)));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(toString(*l), "(4,(2,8)):(16,(1,2))");
  EXPECT_EQ(size(*l), 64);
  EXPECT_EQ(cosize(*l), 64);
  EXPECT_EQ(rank(*l), 2);
  EXPECT_EQ(depth(*l), 2);
  EXPECT_EQ(toString(mode(*l, 1)), "(2,8):(1,2)");
  EXPECT_EQ(toString(flatten(*l)), "(4,2,8):(16,1,2)");
}

TEST(Layout, CompactHelpers) {
  EXPECT_EQ(toString(*makeLayout(tup(4, tup(2, 8)))), "(4,(2,8)):(1,(4,8))");
  EXPECT_EQ(toString(*makeLayoutRowMajor(tup(4, tup(2, 8)))),
            "(4,(2,8)):(16,(8,1))");
  EXPECT_EQ(toString(*makeLayout(std::vector<Layout>{L("4:2"), L("(2,3):(1,8)")})),
            "(4,(2,3)):(2,(1,8))");
}

TEST(Layout, ConstructionErrors) {
  EXPECT_EQ(makeLayout(tup(4, 2), 1).message(),
            "shape (4,2) and stride 1 are not congruent");
  EXPECT_EQ(makeLayout(tup(4, 0), tup(1, 4)).message(),
            "expected every extent of shape (4,0) to be >= 1, found 0");
  EXPECT_EQ(makeLayout(tup(int64_t(1) << 40, int64_t(1) << 40), tup(1, 1)).message(),
            "size of shape (1099511627776,1099511627776) overflows int64");
  EXPECT_EQ(makeLayout(tup(3, 2), tup(int64_t(1) << 62, int64_t(1) << 62)).message(),
            "offsets of layout (3,2):(4611686018427387904,4611686018427387904) "
            "overflow int64");
  EXPECT_FALSE(makeLayout(2, INT64_MIN).ok());
  EXPECT_FALSE(makeLayoutRowMajor(tup(int64_t(1) << 40, int64_t(1) << 40)).ok());
  EXPECT_EQ(parseLayout("(4,2)").message(),
            "expected a layout 'shape:stride', found no ':' in '(4,2)'");
  EXPECT_EQ(parseLayout("(4,2):(1,").message(),
            "in the stride of '(4,2):(1,': expected integer or '(' at offset 3, "
            "found end of input");
  // A huge but valid layout: size and cosize fit.
  auto big = parseLayout("(4294967296,2147483647):(1,4294967296)");
  ASSERT_TRUE(big.ok()) << big.message();
  EXPECT_EQ(size(*big), int64_t(4294967296) * 2147483647);
}

TEST(Layout, EvaluatesColexicographically) {
  Layout l = L("(4,(2,8)):(16,(1,2))");
  EXPECT_EQ(*evaluate(l, 13), 19);
  EXPECT_EQ(*evaluate(l, tup(1, tup(1, 1))), 19);
  EXPECT_EQ(*evaluate(l, tup(1, 3)), 19);
  EXPECT_EQ(*evaluate(l, IntTuple(13)), 19);
  EXPECT_EQ(toString(*idx2crd(13, l.shape())), "(1,(1,1))");
  EXPECT_EQ(evaluate(l, 64).message(),
            "index 64 is outside the domain [0,64) of layout (4,(2,8)):(16,(1,2))");
  EXPECT_FALSE(evaluate(l, -1).ok());
  EXPECT_EQ(evaluate(l, tup(1, 2, 3)).message(),
            "coordinate (1,2,3) is not congruent to the shape (4,(2,8))");
  EXPECT_EQ(evaluate(l, tup(4, 0)).message(),
            "evaluating (4,(2,8)):(16,(1,2)) at (4,0): index 4 is outside the "
            "domain [0,4) of layout 4:16");
  EXPECT_EQ(*evaluateUnbounded(L("4:2"), 6), 12);
  EXPECT_EQ(*evaluateUnbounded(L("(4,3):(1,10)"), 13), 31);
  EXPECT_FALSE(evaluateUnbounded(L("4:2"), -1).ok());
  EXPECT_FALSE(evaluateUnbounded(L("2:4611686018427387904"), 4).ok());
}

TEST(Layout, EvaluationMatchesBruteForce) {
  RandomLayouts gen(1234);
  for (int t = 0; t < 2000; ++t) {
    Layout l = gen.any();
    int64_t maxOff = 0;
    for (int64_t i = 0; i < size(l); ++i) {
      int64_t want = bruteEval(l, i);
      ASSERT_EQ(*evaluate(l, i), want) << l << " at " << i;
      ASSERT_EQ(*evaluate(l, *idx2crd(i, l.shape())), want) << l << " at " << i;
      ASSERT_EQ(*evaluateUnbounded(l, i), want) << l << " at " << i;
      maxOff = std::max(maxOff, want);
    }
    ASSERT_EQ(cosize(l), maxOff + 1) << l;
    ASSERT_EQ(*parseLayout(toString(l)), l);
  }
}
