//===- RobustnessTest.cpp - Every operation on hostile input -------------===//
//
// The verifier feeds user layouts to the algebra: no input may crash, throw
// or overflow silently. These tests run every operation on random layouts
// with extents and strides up to 2^62 and on random text, and require either
// a value satisfying basic invariants or an error with a message.
//===----------------------------------------------------------------------===//
#include "argus/Layout/Coalesce.h"
#include "argus/Layout/Complement.h"
#include "argus/Layout/Composition.h"
#include "argus/Layout/Divide.h"
#include "argus/Layout/Inverse.h"
#include "argus/Layout/Product.h"
#include "argus/Layout/Swizzle.h"

#include "LayoutTestUtil.h"

using namespace argus::layout;
using namespace argus::layout::testing;

namespace {
int64_t hugeValue(RandomLayouts &gen) {
  switch (gen.uniform(0, 3)) {
  case 0:
    return gen.uniform(1, 8);
  case 1:
    return int64_t(1) << gen.uniform(20, 62);
  case 2:
    return gen.uniform(1, INT64_MAX / 2);
  default:
    return INT64_MAX - gen.uniform(0, 3);
  }
}

IntTuple hugeTuple(RandomLayouts &gen, int depth) {
  if (depth == 0 || gen.uniform(0, 1))
    return hugeValue(gen);
  std::vector<IntTuple> e;
  for (int i = 0, n = int(gen.uniform(1, 3)); i < n; ++i)
    e.push_back(hugeTuple(gen, depth - 1));
  return IntTuple::tuple(e);
}

IntTuple like(RandomLayouts &gen, const IntTuple &s) {
  if (s.isInt())
    return gen.uniform(0, 2) ? IntTuple(hugeValue(gen)) : IntTuple(gen.uniform(0, 3));
  std::vector<IntTuple> e;
  for (const IntTuple &x : s.elems())
    e.push_back(like(gen, x));
  return IntTuple::tuple(e);
}

template <typename T> void expectWellFormed(const Expected<T> &r) {
  if (!r.ok())
    EXPECT_FALSE(r.message().empty());
}
} // namespace

TEST(Robustness, HugeLayoutsNeverCrash) {
  RandomLayouts gen(101);
  int built = 0;
  for (int t = 0; t < 20000; ++t) {
    IntTuple s = hugeTuple(gen, 2);
    auto a = makeLayout(s, like(gen, s));
    if (!a.ok()) {
      EXPECT_FALSE(a.message().empty());
      continue;
    }
    ++built;
    Layout b = t % 2 ? gen.any() : *a;
    Layout c = coalesce(*a);
    EXPECT_EQ(size(c), size(*a));
    EXPECT_EQ(cosize(c), cosize(*a));
    expectWellFormed(composition(*a, b));
    expectWellFormed(composition(b, *a));
    expectWellFormed(complement(*a, hugeValue(gen)));
    expectWellFormed(complement(b, hugeValue(gen)));
    expectWellFormed(leftInverse(*a));
    Layout r = rightInverse(*a);
    EXPECT_GE(size(r), 1);
    expectWellFormed(logicalDivide(*a, b));
    expectWellFormed(logicalDivide(b, *a));
    expectWellFormed(logicalProduct(*a, b));
    expectWellFormed(logicalProduct(b, *a));
    expectWellFormed(blockedProduct(*a, b));
    expectWellFormed(rakedProduct(b, *a));
    expectWellFormed(evaluate(*a, size(*a) - 1));
    expectWellFormed(evaluateUnbounded(*a, INT64_MAX));
    if (HasFailure())
      return;
  }
  EXPECT_GT(built, 1000);
}

TEST(Robustness, RandomTextNeverCrashes) {
  RandomLayouts gen(103);
  const std::string alphabet = "()(),,,:0123456789- x<>Sw";
  int parsed = 0;
  for (int t = 0; t < 20000; ++t) {
    std::string text;
    for (int i = 0, n = int(gen.uniform(0, 24)); i < n; ++i)
      text += alphabet[gen.uniform(0, alphabet.size() - 1)];
    auto l = parseLayout(text);
    if (l.ok()) {
      ++parsed;
      EXPECT_EQ(*parseLayout(toString(*l)), *l);
    } else {
      EXPECT_FALSE(l.message().empty());
    }
    expectWellFormed(parseIntTuple(text));
    expectWellFormed(parseSwizzle(text));
  }
  EXPECT_GT(parsed, 0);
}

TEST(Robustness, SwizzleExtremes) {
  EXPECT_FALSE(parseSwizzle("Sw<99999999999,1,1>").ok());
  EXPECT_FALSE(makeSwizzle(1, 1 << 30, 1).ok());
  auto idSw = makeSwizzle(0, 1 << 30, 0);
  ASSERT_TRUE(idSw.ok());
  EXPECT_EQ((*idSw)(77), 77);
  EXPECT_EQ(idSw->yyyMask(), 0);
}
