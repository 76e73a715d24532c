//===- ProductTest.cpp - logical, blocked and raked products --------------===//
#include "argus/Layout/Complement.h"
#include "argus/Layout/Composition.h"
#include "argus/Layout/Product.h"

#include "LayoutTestUtil.h"

using namespace argus::layout;
using namespace argus::layout::testing;

TEST(LogicalProduct, CuTeDocumentationExample1D) {
  EXPECT_EQ(str(logicalProduct(L("(2,2):(4,1)"), L("6:1"))),
            "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(str(logicalProduct(L("(2,2):(4,1)"), L("(4,2):(2,1)"))),
            "((2,2),(4,2)):((4,1),(8,2))");
}

TEST(BlockedRakedProduct, CuTeDocumentationExample2D) {
  // A 2x5 row-major tile arranged in a 3x4 column-major grid; blocked
  // coalesces mode 0 (CuTe's documentation notes this).
  EXPECT_EQ(str(blockedProduct(L("(2,5):(5,1)"), L("(3,4):(1,3)"))),
            "(6,(5,4)):(5,(1,30))");
  EXPECT_EQ(str(rakedProduct(L("(2,5):(5,1)"), L("(3,4):(1,3)"))),
            "((3,2),(4,5)):((10,5),(30,1))");
}

TEST(BlockedRakedProduct, RanksArePadded) {
  EXPECT_EQ(str(blockedProduct(L("4:1"), L("(2,3):(1,2)"))), "(8,3):(1,8)");
  EXPECT_EQ(str(rakedProduct(L("4:1"), L("(2,3):(1,2)"))),
            "((2,4),3):((4,1),8)");
  EXPECT_EQ(str(blockedProduct(L("4:2"), L("4:1"))), "(4,2,2):(2,1,8)");
  // 4:2 repeated 3 times within 12 offsets cannot be laid out as a layout.
  EXPECT_FALSE(blockedProduct(L("4:2"), L("3:1")).ok());
}

TEST(LogicalProduct, Errors) {
  EXPECT_EQ(logicalProduct(L("(2,2):(1,1)"), L("3:1")).message(),
            "logicalProduct((2,2):(1,1), 3:1): complement((2,2):(1,1), 12): "
            "not complementable: stride 1 is not a multiple of 2, the span of "
            "the modes with smaller strides (the layout overlaps itself or "
            "interleaves)");
  EXPECT_FALSE(blockedProduct(L("(2,2):(1,1)"), L("3:1")).ok());
  EXPECT_FALSE(
      logicalProduct(L("4294967296:1"), L("4294967296:1")).ok());
}

// @post mode 0 == A; mode 1 == A* o B; size == size(A)*size(B); injective
// when A and B are.
TEST(LogicalProduct, PostconditionsOnRandomLayouts) {
  RandomLayouts gen(31);
  int ok = 0;
  for (int t = 0; t < 3000; ++t) {
    Layout a = gen.injectiveLayout(3, 4, t % 2 == 0);
    Layout b = gen.injectiveLayout(2, 4, t % 3 == 0);
    auto r = logicalProduct(a, b);
    if (!r.ok())
      continue;
    ++ok;
    ASSERT_EQ(mode(*r, 0), a);
    ASSERT_EQ(size(*r), size(a) * size(b));
    Layout rest = *complement(a, size(a) * cosize(b));
    for (int64_t j = 0; j < size(b); ++j)
      ASSERT_EQ(bruteEval(mode(*r, 1), j),
                *evaluateUnbounded(rest, bruteEval(b, j)))
          << a << " x " << b << " = " << *r;
    ASSERT_TRUE(injective(*r)) << a << " x " << b << " = " << *r;
  }
  EXPECT_GT(ok, 1500);
}

// blocked: result((a0,b0),(a1,b1)) == logical((a0,a1),(b0,b1));
// raked:   result((b0,a0),(b1,a1)) == logical((a0,a1),(b0,b1)).
TEST(BlockedRakedProduct, RegroupTheLogicalProduct) {
  RandomLayouts gen(37);
  int ok = 0;
  for (int t = 0; t < 1500; ++t) {
    Layout a = *makeLayout(std::vector<Layout>{gen.injectiveLayout(1, 4, false),
                                               gen.injectiveLayout(1, 4, false)});
    Layout a2 = *makeLayout(std::vector<Layout>{mode(a, 1), mode(a, 0)});
    if (t % 2)
      a = *makeLayout(a2.shape(), a.stride()); // transposed strides
    if (!injective(a))
      continue;
    Layout b = *makeLayout(std::vector<Layout>{gen.injectiveLayout(1, 3, false),
                                               gen.injectiveLayout(1, 3, t % 3 == 0)});
    auto lp = logicalProduct(a, b);
    auto bp = blockedProduct(a, b), rp = rakedProduct(a, b);
    if (!lp.ok()) {
      ASSERT_FALSE(bp.ok());
      continue;
    }
    ASSERT_TRUE(bp.ok() && rp.ok()) << bp.message() << rp.message();
    ++ok;
    int64_t n0 = size(mode(a, 0)), n1 = size(mode(a, 1));
    int64_t m0 = size(mode(b, 0)), m1 = size(mode(b, 1));
    for (int64_t a0 = 0; a0 < n0; ++a0)
      for (int64_t a1 = 0; a1 < n1; ++a1)
        for (int64_t b0 = 0; b0 < m0; ++b0)
          for (int64_t b1 = 0; b1 < m1; ++b1) {
            int64_t want = *evaluate(*lp, tup(tup(a0, a1), tup(b0, b1)));
            ASSERT_EQ(*evaluate(*bp, tup(a0 + n0 * b0, a1 + n1 * b1)), want)
                << a << " blocked " << b << " = " << *bp;
            ASSERT_EQ(*evaluate(*rp, tup(b0 + m0 * a0, b1 + m1 * a1)), want)
                << a << " raked " << b << " = " << *rp;
          }
  }
  EXPECT_GT(ok, 500);
}
