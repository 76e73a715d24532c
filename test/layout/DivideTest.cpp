//===- DivideTest.cpp - logical, zipped, tiled and flat divides -----------===//
#include "argus/Layout/Coalesce.h"
#include "argus/Layout/Complement.h"
#include "argus/Layout/Composition.h"
#include "argus/Layout/Divide.h"

#include "LayoutTestUtil.h"

#include <algorithm>

using namespace argus::layout;
using namespace argus::layout::testing;

TEST(LogicalDivide, CuTeDocumentationExample1D) {
  EXPECT_EQ(str(logicalDivide(L("(4,2,3):(2,1,8)"), L("4:2"))),
            "((2,2),(2,3)):((4,1),(2,8))");
}

TEST(LogicalDivide, CuTeDocumentationExample2D) {
  Layout a = L("(9,(4,8)):(59,(13,1))");
  Tiler tiler{L("3:3"), L("(2,4):(1,8)")};
  EXPECT_EQ(str(logicalDivide(a, tiler)),
            "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  EXPECT_EQ(str(composition(a, tiler)), "(3,(2,4)):(177,(13,2))");
  auto zd = zippedDivide(a, tiler);
  EXPECT_EQ(str(zd), "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  EXPECT_EQ(toString(mode(*zd, 0)), str(composition(a, tiler)));
  EXPECT_EQ(str(tiledDivide(a, tiler)),
            "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
  EXPECT_EQ(str(flatDivide(a, tiler)),
            "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))");
}

TEST(LogicalDivide, ExtraModesAreKept) {
  Layout a = L("(8,6,5):(1,8,48)");
  EXPECT_EQ(str(logicalDivide(a, Tiler{L("4:1")})), "((4,2),6,5):((1,4),8,48)");
  EXPECT_EQ(str(zippedDivide(a, Tiler{L("4:1"), L("3:1")})),
            "((4,3),(2,2,5)):((1,8),(4,24,48))");
}

TEST(LogicalDivide, Errors) {
  EXPECT_EQ(logicalDivide(L("12:1"), L("(2,2):(1,1)")).message(),
            "logicalDivide(12:1, (2,2):(1,1)): complement((2,2):(1,1), 12): "
            "not complementable: stride 1 is not a multiple of 2, the span of "
            "the modes with smaller strides (the layout overlaps itself or "
            "interleaves)");
  EXPECT_EQ(logicalDivide(L("(4,3):(1,10)"), L("6:1")).message(),
            "composition: (4,3):(1,10) o (6,2):(1,6) is not admissible: "
            "remaining shape 6 is not divisible by 4 (from mode 0 of "
            "coalesce(A) = (4,3):(1,10))");
  EXPECT_FALSE(zippedDivide(L("(4,3):(1,10)"), Tiler{L("2:1"), L("2:1"), L("2:1")}).ok());
}

// @post mode 0 == A o B; result(k) == A_ext((B,B*)(k)); when the tiles cover
// A exactly, the result is a permutation of A's domain.
TEST(LogicalDivide, PostconditionsOnRandomLayouts) {
  RandomLayouts gen(23);
  int ok = 0;
  for (int t = 0; t < 3000; ++t) {
    Layout a = t % 2 ? gen.pow2() : gen.injectiveLayout(3, 4, true);
    Layout b = gen.injectiveLayout(2, 4, t % 3 == 0);
    auto r = logicalDivide(a, b);
    if (!r.ok())
      continue;
    ++ok;
    Layout bb = *makeLayout(std::vector<Layout>{b, *complement(b, size(a))});
    Layout ca = coalesce(a);
    ASSERT_EQ(size(*r), size(bb));
    for (int64_t k = 0; k < size(*r); ++k)
      ASSERT_EQ(bruteEval(*r, k), *evaluateUnbounded(ca, bruteEval(bb, k)))
          << a << " / " << b << " = " << *r;
    ASSERT_EQ(image(mode(*r, 0)), image(*composition(a, b)));
    if (size(*r) == size(a)) {
      std::vector<int64_t> x = image(*r), y = image(a);
      std::sort(x.begin(), x.end());
      std::sort(y.begin(), y.end());
      ASSERT_EQ(x, y) << a << " / " << b << " = " << *r;
    }
  }
  EXPECT_GT(ok, 1000);
}

// zipped/tiled/flat divides are the by-mode logical divide with its modes
// regrouped: compare them coordinate by coordinate.
TEST(ZippedTiledFlatDivide, RegroupTheLogicalDivide) {
  RandomLayouts gen(29);
  int ok = 0;
  for (int t = 0; t < 1500; ++t) {
    Layout a = *makeLayout(std::vector<Layout>{gen.injectiveLayout(2, 4, true),
                                               gen.injectiveLayout(2, 4, true),
                                               gen.injectiveLayout(1, 3, true)});
    Tiler tiler{gen.injectiveLayout(1, 3, t % 2 == 0),
                gen.injectiveLayout(2, 2, false)};
    auto ld = logicalDivide(a, tiler);
    if (!ld.ok())
      continue;
    auto zd = zippedDivide(a, tiler), td = tiledDivide(a, tiler),
         fd = flatDivide(a, tiler);
    ASSERT_TRUE(zd.ok() && td.ok() && fd.ok());
    ++ok;
    for (int64_t k = 0; k < size(*ld); ++k) {
      IntTuple c = *idx2crd(k, ld->shape());
      // c = ((t0,r0),(t1,r1),l) with each entry a natural sub-coordinate;
      // use 1-D indices within each sub-mode.
      auto sub = [&](int m, int j) -> IntTuple {
        const IntTuple &sh = mode(mode(ld->shape(), m), j);
        int64_t idx = 0, mul = 1;
        std::vector<int64_t> cs = leaves(mode(mode(c, m), j)), ss = leaves(sh);
        for (size_t q = 0; q < cs.size(); ++q) {
          idx += cs[q] * mul;
          mul *= ss[q];
        }
        return idx;
      };
      IntTuple t0 = sub(0, 0), r0 = sub(0, 1), t1 = sub(1, 0), r1 = sub(1, 1);
      IntTuple l2 = mode(c, 2);
      int64_t want = *evaluate(*ld, c);
      ASSERT_EQ(*evaluate(*zd, IntTuple::tuple({IntTuple::tuple({t0, t1}),
                                                IntTuple::tuple({r0, r1, l2})})),
                want) << *zd;
      ASSERT_EQ(*evaluate(*td, IntTuple::tuple({IntTuple::tuple({t0, t1}), r0,
                                                r1, l2})),
                want) << *td;
      ASSERT_EQ(*evaluate(*fd, IntTuple::tuple({t0, t1, r0, r1, l2})), want)
          << *fd;
    }
  }
  EXPECT_GT(ok, 500);
}
