//===- LexerTest.cpp - tokens, layout, literals and lexical errors --------===//
#include "argus/Frontend/Lexer.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace argus::dsl;

namespace {

std::vector<Token> lex(std::string_view text) {
  std::optional<LexError> error;
  std::vector<Token> tokens = Lexer::tokenize(text, &error);
  EXPECT_FALSE(error.has_value()) << (error ? error->message : "");
  return tokens;
}

std::vector<TokenKind> kinds(const std::vector<Token> &tokens) {
  std::vector<TokenKind> out;
  for (const Token &t : tokens)
    out.push_back(t.kind);
  return out;
}

LexError lexError(std::string_view text) {
  std::optional<LexError> error;
  Lexer::tokenize(text, &error);
  EXPECT_TRUE(error.has_value()) << "no error for: " << text;
  return error.value_or(LexError{});
}

using K = TokenKind;

TEST(Lexer, IndentDedentNewline) {
  auto tokens = lex("def f():\n    x = 1\n\n    # comment only\n  \n    y\nz\n");
  std::vector<K> expected = {K::Kw_def, K::Name,    K::LParen, K::RParen, K::Colon,
                             K::Newline, K::Indent, K::Name,   K::Equal,  K::Int,
                             K::Newline, K::Name,   K::Newline, K::Dedent, K::Name,
                             K::Newline, K::EndOfFile};
  EXPECT_EQ(kinds(tokens), expected);
  EXPECT_EQ(tokens[6].loc.line, 2u); // Indent at the first token of line 2
  EXPECT_EQ(tokens[6].loc.col, 5u);
  EXPECT_EQ(tokens[11].loc.line, 6u); // y: blank and comment lines skipped
}

TEST(Lexer, DedentsAtEndOfFileWithoutTrailingNewline) {
  auto tokens = lex("if a:\n  if b:\n    c");
  std::vector<K> expected = {K::Kw_if, K::Name, K::Colon, K::Newline, K::Indent, K::Kw_if,
                             K::Name, K::Colon, K::Newline, K::Indent, K::Name, K::Newline,
                             K::Dedent, K::Dedent, K::EndOfFile};
  EXPECT_EQ(kinds(tokens), expected);
}

TEST(Lexer, NewlineLocatedAfterLastToken) {
  auto tokens = lex("for i in x   # trailing comment\n");
  ASSERT_EQ(tokens[4].kind, K::Newline);
  EXPECT_EQ(tokens[4].loc.line, 1u);
  EXPECT_EQ(tokens[4].loc.col, 11u);
}

TEST(Lexer, ImplicitAndExplicitLineJoining) {
  auto tokens = lex("x = f(1,\n      2) + \\\n    3\ny = [\n1]\n");
  std::vector<K> expected = {K::Name, K::Equal, K::Name, K::LParen, K::Int, K::Comma, K::Int,
                             K::RParen, K::Plus, K::Int, K::Newline, K::Name, K::Equal,
                             K::LBracket, K::Int, K::RBracket, K::Newline, K::EndOfFile};
  EXPECT_EQ(kinds(tokens), expected);
  EXPECT_EQ(tokens[9].loc.line, 3u);
  EXPECT_EQ(tokens[9].loc.col, 5u);
}

TEST(Lexer, CrLfAndBomGiveTheSameTokensAndColumns) {
  auto lf = lex("def f():\n    x = 'a'\n");
  auto crlf = lex("\xEF\xBB\xBF"
                  "def f():\r\n    x = 'a'\r\n");
  ASSERT_EQ(kinds(lf), kinds(crlf));
  for (size_t i = 0; i < lf.size(); ++i) {
    EXPECT_EQ(lf[i].loc.line, crlf[i].loc.line) << i;
    EXPECT_EQ(lf[i].loc.col, crlf[i].loc.col) << i;
    EXPECT_EQ(lf[i].text, crlf[i].text) << i;
  }
}

TEST(Lexer, IntegerLiterals) {
  auto tokens = lex("0 42 1_000_000 0x2A 0X_ff 0o17 0b1010_1010 9223372036854775807 00");
  std::vector<uint64_t> values = {0, 42, 1000000, 42, 255, 15, 170, 9223372036854775807ull, 0};
  ASSERT_EQ(tokens.size(), values.size() + 2);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(tokens[i].kind, K::Int) << i;
    EXPECT_EQ(tokens[i].intValue, values[i]) << tokens[i].text;
  }
  // 2^63 lexes (the parser accepts it only negated).
  EXPECT_EQ(lex("9223372036854775808")[0].intValue, uint64_t(1) << 63);
}

TEST(Lexer, FloatLiterals) {
  auto tokens = lex("1.0 1e-3 .5 1_000.5 2. 1E+3 3.25e2 0.0");
  std::vector<double> values = {1.0, 1e-3, 0.5, 1000.5, 2.0, 1000.0, 325.0, 0.0};
  ASSERT_EQ(tokens.size(), values.size() + 2);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(tokens[i].kind, K::Float) << i;
    EXPECT_DOUBLE_EQ(tokens[i].floatValue, values[i]) << tokens[i].text;
  }
}

TEST(Lexer, AttributeAfterIntegerIndexIsNotAFloat) {
  auto tokens = lex("sa[kt % 2].load()");
  EXPECT_EQ(tokens[5].kind, K::RBracket);
  EXPECT_EQ(tokens[6].kind, K::Dot);
  EXPECT_EQ(tokens[7].text, "load");
}

TEST(Lexer, StringLiteralsAndEscapes) {
  auto tokens = lex(R"(a = 'x\ty\n' "q\"\'\\" r'\d' u"é" '\x41\u00e9' '\101')");
  EXPECT_EQ(tokens[2].text, "x\ty\n");
  EXPECT_EQ(tokens[3].text, "q\"'\\");
  EXPECT_EQ(tokens[4].text, "\\d");
  EXPECT_EQ(tokens[5].text, "é");
  EXPECT_EQ(tokens[6].text, "A\xC3\xA9");
  EXPECT_EQ(tokens[7].text, "A");
}

TEST(Lexer, TripleQuotedStringsSpanLines) {
  auto tokens = lex("s = \"\"\"line 1\r\n  \"quoted\" line 2\"\"\"\nt = 1\n");
  EXPECT_EQ(tokens[2].kind, K::String);
  EXPECT_EQ(tokens[2].text, "line 1\n  \"quoted\" line 2");
  EXPECT_EQ(tokens[4].text, "t");
  EXPECT_EQ(tokens[4].loc.line, 3u);
}

TEST(Lexer, ColumnsCountCodePoints) {
  auto tokens = lex("s = \"\xC3\xA9\xE2\x82\xAC\" + x");
  ASSERT_EQ(tokens[4].text, "x");
  EXPECT_EQ(tokens[4].loc.col, 12u);
}

TEST(Lexer, OperatorsTakeTheLongestMatch) {
  auto tokens = lex("a **= b // c >>= d -> e != f <= g << h := i @= j ** k");
  std::vector<K> ops;
  for (size_t i = 1; i < tokens.size(); i += 2)
    if (tokens[i].kind != K::Newline && tokens[i].kind != K::EndOfFile)
      ops.push_back(tokens[i].kind);
  std::vector<K> expected = {K::DoubleStarEqual, K::DoubleSlash, K::RShiftEqual, K::Arrow,
                             K::NotEqual, K::LessEqual, K::LShift, K::ColonEqual, K::AtEqual,
                             K::DoubleStar};
  EXPECT_EQ(ops, expected);
}

TEST(Lexer, KeywordsAndReservedWords) {
  auto tokens = lex("lambda not in is while yield True None foo");
  std::vector<K> expected = {K::Kw_lambda, K::Kw_not, K::Kw_in, K::Kw_is, K::ReservedKeyword,
                             K::ReservedKeyword, K::Kw_True, K::Kw_None, K::Name, K::Newline,
                             K::EndOfFile};
  EXPECT_EQ(kinds(tokens), expected);
  EXPECT_EQ(tokens[4].text, "while");
}

TEST(Lexer, TabsBetweenTokensAreFine) {
  auto tokens = lex("x\t=\t1\n");
  EXPECT_EQ(kinds(tokens), (std::vector<K>{K::Name, K::Equal, K::Int, K::Newline, K::EndOfFile}));
}

TEST(Lexer, BlankLineWithTabIsIgnored) {
  lex("def f():\n    x = 1\n\t\n    # \tcomment\n    y = 2\n");
}

TEST(Lexer, ErrorsStopTheStream) {
  Lexer lexer("x = 1 $ 2");
  EXPECT_EQ(lexer.next().kind, K::Name);
  EXPECT_EQ(lexer.next().kind, K::Equal);
  EXPECT_EQ(lexer.next().kind, K::Int);
  EXPECT_EQ(lexer.next().kind, K::Error);
  EXPECT_EQ(lexer.next().kind, K::Error); // and forever
  ASSERT_TRUE(lexer.error());
  EXPECT_EQ(lexer.error()->loc.col, 7u);
}

TEST(Lexer, ErrorMessages) {
  struct Case {
    const char *text;
    unsigned line, col;
    const char *message;
  } cases[] = {
      {"x = 'abc\n", 1, 5, "unterminated string literal"},
      {"x = (1,\n 2\n", 1, 5, "'(' was never closed"},
      {"def f():\n\tx = 1\n", 2, 1, "tabs are not allowed for indentation; use spaces"},
      {"if a:\n    b\n  c\n", 3, 3, "unindent does not match any outer indentation level"},
      {"x = 1_\n", 1, 5, "invalid decimal literal"},
      {"x = 1__0\n", 1, 5, "invalid decimal literal"},
      {"x = 0b102\n", 1, 9, "invalid digit '2' in binary literal"},
      {"x = 1e999\n", 1, 5, "out of the range of a double"},
      {"x = '\\u12'\n", 1, 6, "invalid \\u escape"},
      {"x = \xFF\n", 1, 5, "invalid UTF-8 byte 0xFF"},
      {"x = 1\x01\n", 1, 6, "invalid control character U+0001"},
      {"x = rb'a'\n", 1, 5, "bytes literals are not supported"},
  };
  for (const Case &c : cases) {
    LexError e = lexError(c.text);
    EXPECT_EQ(e.loc.line, c.line) << c.text;
    EXPECT_EQ(e.loc.col, c.col) << c.text;
    EXPECT_NE(e.message.find(c.message), std::string::npos) << c.text << " -> " << e.message;
  }
}

TEST(Lexer, IndentationDepthIsLimited) {
  std::string text;
  for (unsigned i = 0; i <= Lexer::kMaxIndentDepth + 1; ++i)
    text += std::string(i, ' ') + "if x:\n";
  LexError e = lexError(text);
  EXPECT_NE(e.message.find("too many levels of indentation"), std::string::npos) << e.message;
}

} // namespace
