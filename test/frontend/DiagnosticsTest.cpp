//===- DiagnosticsTest.cpp - the printed form of front-end errors ---------===//
#include "argus/Frontend/Diagnostics.h"
#include "argus/Frontend/Parser.h"

#include <gtest/gtest.h>

using namespace argus::dsl;

namespace {

TEST(Diagnostics, FormatWithCaretUnderTheColumn) {
  Diagnostic d{"k.argus", {2, 5}, "expected ')', found newline"};
  EXPECT_EQ(formatDiagnostic(d, "a = 1\nb = (\nc\n"),
            "k.argus:2:5: error: expected ')', found newline\n"
            "  b = (\n"
            "      ^\n");
}

TEST(Diagnostics, TabsAreKeptSoTheCaretLinesUp) {
  Diagnostic d{"t.argus", {2, 6}, "m"};
  EXPECT_EQ(formatDiagnostic(d, "x\n\tfoo bar\n"), "t.argus:2:6: error: m\n"
                                                    "  \tfoo bar\n"
                                                    "  \t    ^\n");
}

TEST(Diagnostics, ColumnsCountCodePoints) {
  Diagnostic d{"u.argus", {1, 11}, "m"};
  EXPECT_EQ(formatDiagnostic(d, "s = \"\xC3\xA9\" + $"), "u.argus:1:11: error: m\n"
                                                         "  s = \"\xC3\xA9\" + $\n"
                                                         "            ^\n");
}

TEST(Diagnostics, CrLfAndBomAreNotPrinted) {
  Diagnostic d{"w.argus", {1, 1}, "m"};
  EXPECT_EQ(formatDiagnostic(d, "\xEF\xBB\xBFx = 1\r\ny\r\n"), "w.argus:1:1: error: m\n"
                                                                "  x = 1\n"
                                                                "  ^\n");
  d.loc = {2, 2};
  EXPECT_EQ(formatDiagnostic(d, "x = 1\r\ny\r\n"), "w.argus:2:2: error: m\n  y\n   ^\n");
}

TEST(Diagnostics, CaretMayPointJustPastTheEndOfTheLine) {
  Diagnostic d{"e.argus", {1, 6}, "m"};
  EXPECT_EQ(formatDiagnostic(d, "x = 1\n"), "e.argus:1:6: error: m\n  x = 1\n       ^\n");
}

TEST(Diagnostics, MissingLineGivesOnlyTheHeader) {
  Diagnostic d{"f.argus", {7, 3}, "m"};
  EXPECT_EQ(formatDiagnostic(d, "x = 1\n"), "f.argus:7:3: error: m\n");
  d.loc = {0, 0};
  EXPECT_EQ(formatDiagnostic(d, "x = 1\n"), "f.argus:0:0: error: m\n");
  d.loc = {1, 100000};
  std::string s = formatDiagnostic(d, "ab");
  EXPECT_LT(s.size(), 100u); // the caret stays near the line, whatever the column
}

TEST(Diagnostics, SourceLine) {
  EXPECT_EQ(sourceLine("a\nbb\r\nccc\rd", 1), "a");
  EXPECT_EQ(sourceLine("a\nbb\r\nccc\rd", 2), "bb");
  EXPECT_EQ(sourceLine("a\nbb\r\nccc\rd", 3), "ccc");
  EXPECT_EQ(sourceLine("a\nbb\r\nccc\rd", 4), "d");
  EXPECT_EQ(sourceLine("a\nbb\r\nccc\rd", 5), "");
  EXPECT_EQ(sourceLine("a", 0), "");
}

TEST(Diagnostics, EndToEndParserMessage) {
  std::string text = "def f(n):\n    for i in range(n)\n        pass\n";
  ParseOutput out = parseModule(text, "kernels/f.argus");
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(formatDiagnostic(out.errors[0], text),
            "kernels/f.argus:2:22: error: expected ':' after the for-loop header, found "
            "newline\n"
            "      for i in range(n)\n"
            "                       ^\n");
}

TEST(Diagnostics, EndToEndNeverClosedPointsAtTheOpeningParen) {
  std::string text = "x = foo(a,\n        b\ny = 2\n";
  ParseOutput out = parseModule(text, "p.argus");
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(formatDiagnostic(out.errors[0], text), "p.argus:1:8: error: '(' was never closed\n"
                                                   "  x = foo(a,\n"
                                                   "         ^\n");
}

} // namespace
