//===- InverseTest.cpp - rightInverse and leftInverse ---------------------===//
#include "argus/Layout/Inverse.h"

#include "LayoutTestUtil.h"

using namespace argus::layout;
using namespace argus::layout::testing;

TEST(RightInverse, Examples) {
  EXPECT_EQ(toString(rightInverse(L("(4,2):(2,1)"))), "(2,4):(4,1)");
  EXPECT_EQ(toString(rightInverse(L("4:2"))), "1:0");
  EXPECT_EQ(toString(rightInverse(L("(8,4):(4,1)"))), "(4,8):(8,1)");
  EXPECT_EQ(toString(rightInverse(L("(2,4):(0,1)"))), "4:2");
  EXPECT_EQ(toString(rightInverse(L("((2,2),4):((1,8),2)"))), "(2,4,2):(1,4,2)");
  EXPECT_EQ(toString(rightInverse(L("(4,2):(-1,1)"))), "2:4");
}

TEST(LeftInverse, Examples) {
  EXPECT_EQ(str(leftInverse(L("4:2"))), "(2,4):(4,1)");
  EXPECT_EQ(str(leftInverse(L("(2,4):(4,1)"))), "(4,2):(2,1)");
  EXPECT_EQ(str(leftInverse(L("(4,2):(1,4)"))), "8:1");
}

TEST(LeftInverse, NonInjectiveIsAnError) {
  EXPECT_EQ(leftInverse(L("(2,2):(0,1)")).message(),
            "leftInverse((2,2):(0,1)): the layout is not injective (or not "
            "complementable): only the offsets [0,2) of (L, complement(L)) = "
            "((2,2),1):((0,1),0) are reached contiguously, expected 4");
  EXPECT_EQ(leftInverse(L("(2,3):(1,1)")).message(),
            "leftInverse((2,3):(1,1)): complement((2,3):(1,1), 4): not "
            "complementable: stride 1 is not a multiple of 2, the span of the "
            "modes with smaller strides (the layout overlaps itself or "
            "interleaves)");
}

// @post L(R(i)) == i for i in [0,size(R)), and, for an injective L, R is
// maximal: the offset size(R) is not in L's image.
TEST(RightInverse, PostconditionsOnRandomLayouts) {
  RandomLayouts gen(17);
  for (int t = 0; t < 4000; ++t) {
    Layout l = t % 2 ? gen.any() : gen.injectiveLayout(3, 4, t % 4 == 0);
    Layout r = rightInverse(l);
    std::vector<int64_t> im = image(l);
    std::set<int64_t> imset(im.begin(), im.end());
    for (int64_t i = 0; i < size(r); ++i) {
      int64_t ri = bruteEval(r, i);
      ASSERT_TRUE(ri >= 0 && ri < size(l)) << l << " R=" << r;
      ASSERT_EQ(bruteEval(l, ri), i) << l << " R=" << r << " at " << i;
    }
    if (injective(l))
      ASSERT_EQ(imset.count(size(r)), 0u)
          << l << ": right inverse " << r << " is not maximal";
  }
}

// @post R(L(i)) == i for i in [0,size(L)) whenever L is injective and
// complementable; otherwise an error.
TEST(LeftInverse, PostconditionsOnRandomLayouts) {
  RandomLayouts gen(19);
  int ok = 0;
  for (int t = 0; t < 4000; ++t) {
    Layout l = t % 2 ? gen.any() : gen.injectiveLayout(3, 4, t % 4 == 0);
    auto r = leftInverse(l);
    if (!r.ok()) {
      ASSERT_FALSE(t % 2 == 0) << l << ": " << r.message();
      continue;
    }
    ++ok;
    ASSERT_TRUE(injective(l)) << l << " has a left inverse " << *r;
    for (int64_t i = 0; i < size(l); ++i)
      ASSERT_EQ(*evaluate(*r, bruteEval(l, i)), i) << l << " R=" << *r;
  }
  EXPECT_GT(ok, 2000);
}
