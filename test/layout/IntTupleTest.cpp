//===- IntTupleTest.cpp - IntTuple printing, parsing and queries ----------===//
#include "argus/Layout/IntTuple.h"

#include <gtest/gtest.h>

using namespace argus::layout;

TEST(IntTuple, PrintsNested) {
  EXPECT_EQ(toString(tup(4, tup(2, 8))), "(4,(2,8))");
  EXPECT_EQ(toString(IntTuple(-3)), "-3");
  EXPECT_EQ(toString(tup(7)), "(7)");
}

TEST(IntTuple, ParsesPrintedForm) {
  auto t = parseIntTuple("(4, (2,8))");
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(*t, tup(4, tup(2, 8)));
  EXPECT_EQ(toString(*parseIntTuple(" -12 ")), "-12");
  EXPECT_EQ(toString(*parseIntTuple("((1),(2,(3,4)),-5)")), "((1),(2,(3,4)),-5)");
  EXPECT_EQ(parseIntTuple("-9223372036854775808")->value(), INT64_MIN);
  EXPECT_EQ(parseIntTuple("9223372036854775807")->value(), INT64_MAX);
}

TEST(IntTuple, ParseErrorsSayWhatWasExpected) {
  EXPECT_EQ(parseIntTuple("(4,").message(),
            "expected integer or '(' at offset 3, found end of input");
  EXPECT_EQ(parseIntTuple("(4;2)").message(),
            "expected ',' or ')' at offset 2, found ';'");
  EXPECT_EQ(parseIntTuple("()").message(),
            "expected integer or '(' at offset 1, found ')'");
  EXPECT_EQ(parseIntTuple("4 5").message(),
            "expected end of input at offset 2, found '5'");
  EXPECT_EQ(parseIntTuple("").message(),
            "expected integer or '(' at offset 0, found end of input");
  EXPECT_EQ(parseIntTuple("x").message(),
            "expected integer or '(' at offset 0, found 'x'");
  EXPECT_EQ(parseIntTuple("9223372036854775808").message(),
            "integer at offset 0 does not fit in int64");
  EXPECT_EQ(parseIntTuple("-").message(),
            "expected integer or '(' at offset 0, found '-'");
  std::string deep(100, '(');
  EXPECT_FALSE(parseIntTuple(deep + "1" + std::string(100, ')')).ok());
  EXPECT_EQ(parseIntTuple(std::string(65, '(') + "1" + std::string(65, ')'))
                .message(),
            "IntTuple nested deeper than 64 levels at offset 64");
}

TEST(IntTuple, RankDepthProduct) {
  IntTuple t = tup(4, tup(2, 8));
  EXPECT_EQ(rank(t), 2);
  EXPECT_EQ(depth(t), 2);
  EXPECT_EQ(rank(IntTuple(5)), 1);
  EXPECT_EQ(depth(IntTuple(5)), 0);
  EXPECT_EQ(*product(t), 64);
  EXPECT_EQ(mode(t, 1), tup(2, 8));
  auto big = product(tup(int64_t(1) << 40, int64_t(1) << 30));
  EXPECT_FALSE(big.ok());
  EXPECT_EQ(big.message(), "product of (1099511627776,1073741824) overflows int64");
}

TEST(IntTuple, Flatten) {
  EXPECT_EQ(toString(flatten(tup(4, tup(2, 8)))), "(4,2,8)");
  EXPECT_EQ(toString(flatten(IntTuple(7))), "7");
  EXPECT_EQ(leaves(tup(tup(1), tup(2, tup(3)))), (std::vector<int64_t>{1, 2, 3}));
}

TEST(IntTuple, Congruence) {
  EXPECT_TRUE(congruent(tup(4, tup(2, 8)), tup(16, tup(1, 2))));
  EXPECT_FALSE(congruent(tup(4, tup(2, 8)), tup(16, 1)));
  EXPECT_FALSE(congruent(tup(4, 2), tup(4, 2, 1)));
  EXPECT_FALSE(congruent(IntTuple(4), tup(4)));
  EXPECT_TRUE(weaklyCongruent(tup(4, 5), tup(tup(2, 2), 5)));
  EXPECT_TRUE(weaklyCongruent(IntTuple(3), tup(tup(2, 2), 5)));
  EXPECT_FALSE(weaklyCongruent(tup(tup(2, 2), 5), tup(4, 5)));
  EXPECT_EQ(toString(repeatLike(tup(4, tup(2, 8)), 0)), "(0,(0,0))");
  EXPECT_EQ(toString(unwrap(tup(tup(tup(3))))), "3");
}
