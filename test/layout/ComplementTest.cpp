//===- ComplementTest.cpp - complement ------------------------------------===//
#include "argus/Layout/Complement.h"

#include "LayoutTestUtil.h"

using namespace argus::layout;
using namespace argus::layout::testing;

TEST(Complement, CuTeDocumentationExamples) {
  EXPECT_EQ(str(complement(L("4:1"), 24)), "6:4");
  EXPECT_EQ(str(complement(L("6:4"), 24)), "4:1");
  EXPECT_EQ(str(complement(L("(4,6):(1,4)"), 24)), "1:0");
  EXPECT_EQ(str(complement(L("4:2"), 24)), "(2,3):(1,8)");
  EXPECT_EQ(str(complement(L("(2,4):(1,6)"), 24)), "3:2");
  EXPECT_EQ(str(complement(L("(2,2):(1,6)"), 24)), "(3,2):(2,12)");
}

TEST(Complement, DefaultCotargetIsCosize) {
  EXPECT_EQ(str(complement(L("4:2"))), "2:1");
  EXPECT_EQ(str(complement(L("(2,2):(0,3)"))), "3:1");
}

TEST(Complement, Errors) {
  EXPECT_EQ(complement(L("(2,2):(1,3)"), 12).message(),
            "complement((2,2):(1,3), 12): not complementable: stride 3 is not "
            "a multiple of 2, the span of the modes with smaller strides (the "
            "layout overlaps itself or interleaves)");
  EXPECT_EQ(complement(L("(2,3):(1,1)"), 12).message(),
            "complement((2,3):(1,1), 12): not complementable: stride 1 is not "
            "a multiple of 2, the span of the modes with smaller strides (the "
            "layout overlaps itself or interleaves)");
  EXPECT_EQ(complement(L("4:-1"), 12).message(),
            "complement(4:-1, 12): expected non-negative strides");
  EXPECT_EQ(complement(L("4:1"), 0).message(),
            "complement(4:1, 0): expected a cotarget >= 1");
  EXPECT_EQ(str(complement(L("2:1"), INT64_MAX)), "4611686018427387904:2");
}

// @post R is ordered, its image meets A's only at 0, (A,R) is injective and
// covers the cotarget.
static void checkComplement(const Layout &a, int64_t cotarget) {
  auto r = complement(a, cotarget);
  ASSERT_TRUE(r.ok()) << a << ", " << cotarget << ": " << r.message();
  std::vector<int64_t> ri = image(*r), ai = image(a);
  std::set<int64_t> aset(ai.begin(), ai.end());
  for (size_t i = 1; i < ri.size(); ++i) {
    ASSERT_LT(ri[i - 1], ri[i]) << "complement(" << a << ", " << cotarget
                                << ") = " << *r << " is not ordered";
    ASSERT_EQ(aset.count(ri[i]), 0u) << "complement(" << a << ", " << cotarget
                                     << ") = " << *r << " meets A";
  }
  Layout ar = *makeLayout(std::vector<Layout>{a, *r});
  ASSERT_TRUE(injective(ar)) << a << " with complement " << *r;
  ASSERT_GE(cosize(ar), cotarget) << a << " with complement " << *r;
  ASSERT_GE(size(ar), cotarget) << a << " with complement " << *r;
}

TEST(Complement, PostconditionsOnRandomInjectiveLayouts) {
  RandomLayouts gen(3);
  for (int t = 0; t < 3000; ++t) {
    Layout a = gen.injectiveLayout(3, 4, /*gaps=*/t % 2 == 0);
    int64_t cotarget = gen.uniform(1, 3 * cosize(a));
    checkComplement(a, cotarget);
    if (HasFailure())
      return;
  }
}

TEST(Complement, ArbitraryLayoutsFailCleanlyOrSatisfyThePostconditions) {
  RandomLayouts gen(5);
  int ok = 0;
  for (int t = 0; t < 3000; ++t) {
    Layout a = gen.any();
    int64_t cotarget = gen.uniform(1, 64);
    auto r = complement(a, cotarget);
    if (!r.ok())
      continue;
    ++ok;
    // Stride-0 modes are ignored: check against A without them.
    std::vector<int64_t> s = leaves(a.shape()), d = leaves(a.stride());
    std::vector<IntTuple> ks{1}, kd{0};
    for (size_t i = 0; i < s.size(); ++i)
      if (d[i] != 0) {
        ks.emplace_back(s[i]);
        kd.emplace_back(d[i]);
      }
    checkComplement(*makeLayout(IntTuple::tuple(ks), IntTuple::tuple(kd)),
                    cotarget);
    if (HasFailure())
      return;
  }
  EXPECT_GT(ok, 300);
}
