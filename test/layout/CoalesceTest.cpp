//===- CoalesceTest.cpp - coalesce ----------------------------------------===//
#include "argus/Layout/Coalesce.h"

#include "LayoutTestUtil.h"

using namespace argus::layout;
using namespace argus::layout::testing;

TEST(Coalesce, CuTeDocumentationExample) {
  EXPECT_EQ(toString(coalesce(L("(2,(1,6)):(1,(6,2))"))), "12:1");
}

TEST(Coalesce, Examples) {
  EXPECT_EQ(toString(coalesce(L("(4,3):(3,1)"))), "(4,3):(3,1)");
  EXPECT_EQ(toString(coalesce(L("(1,1):(5,7)"))), "1:0");
  EXPECT_EQ(toString(coalesce(L("((2,2),4):((1,2),4)"))), "16:1");
  EXPECT_EQ(toString(coalesce(L("(2,4,3):(0,0,5)"))), "(8,3):(0,5)");
  EXPECT_EQ(toString(coalesceModes(L("((2,3),(5,4)):((5,10),(1,30))"))),
            "(6,(5,4)):(5,(1,30))");
}

// @post size(result) == size(l), depth(result) <= 1, result(i) == l(i),
//       and no adjacent pair of modes of the result can still be merged.
TEST(Coalesce, PreservesTheFunction) {
  RandomLayouts gen(42);
  for (int t = 0; t < 3000; ++t) {
    Layout l = t % 2 ? gen.any() : gen.pow2();
    Layout c = coalesce(l);
    ASSERT_EQ(size(c), size(l)) << l;
    ASSERT_LE(depth(c), 1) << l;
    for (int64_t i = 0; i < size(l); ++i)
      ASSERT_EQ(bruteEval(c, i), bruteEval(l, i)) << l << " -> " << c;
    std::vector<int64_t> s = leaves(c.shape()), d = leaves(c.stride());
    for (size_t i = 0; i + 1 < s.size(); ++i)
      ASSERT_NE(s[i] * d[i], d[i + 1]) << c;
    for (size_t i = 0; i < s.size() && s.size() > 1; ++i)
      ASSERT_NE(s[i], 1) << c;
    Layout cm = coalesceModes(l);
    ASSERT_EQ(rank(cm), rank(l)) << l;
    ASSERT_EQ(image(cm), image(l)) << l;
  }
}
