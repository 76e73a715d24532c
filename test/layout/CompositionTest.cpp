//===- CompositionTest.cpp - composition ----------------------------------===//
#include "argus/Layout/Coalesce.h"
#include "argus/Layout/Composition.h"

#include "LayoutTestUtil.h"

using namespace argus::layout;
using namespace argus::layout::testing;

TEST(Composition, CuTeDocumentationExamples) {
  EXPECT_EQ(str(composition(L("(6,2):(8,2)"), L("(4,3):(3,1)"))),
            "((2,2),3):((24,2),8)");
  EXPECT_EQ(str(composition(L("20:2"), L("(5,4):(4,1)"))), "(5,4):(8,2)");
  EXPECT_EQ(str(composition(L("(10,2):(16,4)"), L("(5,4):(1,5)"))),
            "(5,(2,2)):(16,(80,4))");
  Layout a = L("(12,(4,8)):(59,(13,1))");
  EXPECT_EQ(str(composition(a, Tiler{L("3:4"), L("8:2")})),
            "(3,(2,4)):(236,(26,1))");
  EXPECT_EQ(str(composition(a, Tiler{L("3:1"), L("8:1")})),
            "(3,(4,2)):(59,(13,1))");
}

TEST(Composition, NotAdmissibleIsAnError) {
  EXPECT_EQ(composition(L("(4,3):(1,10)"), L("6:1")).message(),
            "composition: (4,3):(1,10) o 6:1 is not admissible: remaining "
            "shape 6 is not divisible by 4 (from mode 0 of coalesce(A) = "
            "(4,3):(1,10))");
  EXPECT_EQ(composition(L("(4,3):(1,10)"), L("2:3")).message(),
            "composition: (4,3):(1,10) o 2:3 is not admissible: stride 3 "
            "neither divides nor is a multiple of extent 4 of mode 0 of "
            "coalesce(A) = (4,3):(1,10)");
  EXPECT_EQ(composition(L("(4,3):(1,10)"), L("2:-1")).message(),
            "composition: (4,3):(1,10) o 2:-1 is not admissible: expected "
            "non-negative strides in B, found -1");
  EXPECT_EQ(composition(L("(4,3):(1,10)"), Tiler{L("2:1"), L("2:1"), L("2:1")})
                .message(),
            "composition: tiler of rank 3 is longer than the rank 2 of "
            "(4,3):(1,10)");
  EXPECT_EQ(composition(L("2:4611686018427387903"), L("2:3")).message(),
            "composition: strides of 2:4611686018427387903 o 2:3 overflow int64");
}

TEST(Composition, ModesOfBThatCarryAreAnError) {
  // (4,8):(1,100) o (4,2):(1,2): B(3,1) = 5 crosses the boundary 4 of A,
  // so A(B(3,1)) = 101 while A(B(3,0)) + A(B(0,1)) = 3 + 2 = 5.
  EXPECT_EQ(composition(L("(4,8):(1,100)"), L("(4,2):(1,2)")).message(),
            "composition: (4,8):(1,100) o (4,2):(1,2) is not admissible: the "
            "offsets of the modes of B add with a carry across the boundary 4 "
            "(after mode 0) of coalesce(A) = (4,8):(1,100), so A o B is not A "
            "distributed over the modes of B");
  // A single-mode A is linear: no carry matters.
  EXPECT_EQ(str(composition(L("32:3"), L("(4,2):(1,2)"))), "(4,2):(3,6)");
}

TEST(Composition, Trivial) {
  EXPECT_EQ(str(composition(L("(4,3):(1,10)"), L("5:0"))), "5:0");
  EXPECT_EQ(str(composition(L("(4,3):(1,10)"), L("1:7"))), "1:7");
  EXPECT_EQ(str(composition(L("(4,3):(1,10)"), L("12:1"))), "(4,3):(1,10)");
  EXPECT_EQ(str(composition(L("(4,3):(3,1)"), L("(3,4):(4,1)"))),
            "(3,4):(1,3)");
}

// @post (A o B)(i) == coalesce(A) extended (B(i)) for all i in [0,size(B)),
//       == A(B(i)) when B(i) < size(A); the shape of the result refines B's.
static int checkComposition(const Layout &a, const Layout &b) {
  auto r = composition(a, b);
  if (!r.ok()) {
    EXPECT_NE(r.message().find("not admissible"), std::string::npos)
        << r.message();
    return 0;
  }
  EXPECT_EQ(size(*r), size(b)) << a << " o " << b << " = " << *r;
  EXPECT_TRUE(weaklyCongruent(b.shape(), r->shape()))
      << a << " o " << b << " = " << *r;
  Layout ca = coalesce(a);
  for (int64_t i = 0; i < size(b); ++i) {
    int64_t bi = bruteEval(b, i);
    int64_t want = *evaluateUnbounded(ca, bi);
    EXPECT_EQ(bruteEval(*r, i), want) << a << " o " << b << " = " << *r
                                      << " at " << i;
    if (bi < size(a))
      EXPECT_EQ(bruteEval(a, bi), want) << a << " at " << bi;
    if (::testing::Test::HasFailure())
      return 0;
  }
  return 1;
}

TEST(Composition, MatchesBruteForceOnRandomLayouts) {
  RandomLayouts gen(7);
  int admissible = 0;
  for (int t = 0; t < 6000; ++t) {
    Layout a = t % 3 == 0 ? gen.any() : gen.pow2();
    Layout b = t % 3 == 0 ? gen.any(2, 4, 6) : gen.pow2();
    admissible += checkComposition(a, b);
    if (HasFailure())
      return;
  }
  // The property must not be vacuous.
  EXPECT_GT(admissible, 2000);
}

TEST(Composition, ComposingWithinTheDomainIsExact) {
  // B maps into [0,size(A)): then (A o B)(i) == A(B(i)) without extension.
  RandomLayouts gen(11);
  int checked = 0;
  for (int t = 0; t < 3000; ++t) {
    Layout a = gen.injectiveLayout(3, 4, /*gaps=*/true);
    Layout b = gen.injectiveLayout(3, 4, /*gaps=*/false);
    if (cosize(b) > size(a))
      continue;
    auto r = composition(a, b);
    if (!r.ok())
      continue;
    ++checked;
    for (int64_t i = 0; i < size(b); ++i)
      ASSERT_EQ(bruteEval(*r, i), bruteEval(a, bruteEval(b, i)))
          << a << " o " << b << " = " << *r;
  }
  EXPECT_GT(checked, 300);
}
