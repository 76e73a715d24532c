//===- ParserErrorTest.cpp - one malformed program per diagnostic ---------===//
//
// Table-driven: each case is a small program, the exact line and column the
// error must point at, and a piece of the message. Every diagnostic of the
// lexer and the parser is pinned by at least one case here.
//
//===----------------------------------------------------------------------===//
#include "argus/Frontend/Parser.h"

#include <gtest/gtest.h>

using namespace argus::dsl;

namespace {

struct ErrorCase {
  const char *name;
  std::string source;
  unsigned line, col;
  const char *message; // a substring of the expected message
};

std::string nested(int depth) {
  return "x = " + std::string(depth, '(') + "1" + std::string(depth, ')') + "\n";
}
std::string longSum(int terms) {
  std::string s = "x = a";
  for (int i = 1; i < terms; ++i)
    s += " + a";
  return s + "\n";
}

const ErrorCase kCases[] = {
    // Layout and lexical errors.
    {"ForMissingColon", "def f():\n    for i in range(4)\n        pass\n", 2, 22,
     "expected ':' after the for-loop header, found newline"},
    {"IfWithoutIndentedBlock", "def f(x):\n    if x:\n    y = 1\n", 3, 5,
     "expected an indented block after 'if' statement on line 2, found name 'y'"},
    {"DefWithoutBodyAtEof", "def f():\n", 1, 9,
     "expected an indented block after function definition on line 1, found end of file"},
    {"ElseWithoutIndentedBlock", "if a:\n    pass\nelse:\npass\n", 4, 1,
     "expected an indented block after 'else' statement on line 3"},
    {"UnterminatedString", "x = 'abc\n", 1, 5, "unterminated string literal"},
    {"UnterminatedTripleQuoted", "x = \"\"\"abc\n\ny = 2\n", 1, 5,
     "unterminated triple-quoted string literal"},
    {"UnmatchedClosingParen", "x = (1))\n", 1, 8, "unmatched ')'"},
    {"ParenNeverClosed", "x = (1 +\n", 1, 5, "'(' was never closed"},
    {"ParenNeverClosedSeenOnALaterLine", "x = foo(a\nb = 3\n", 1, 8, "'(' was never closed"},
    {"BracketNeverClosed", "def f():\n    y = a[1,\n    z = 2\n", 2, 10, "'[' was never closed"},
    {"MismatchedBrackets", "x = (1]\n", 1, 7,
     "closing bracket ']' does not match opening parenthesis '(' on line 1"},
    {"TabIndentation", "def f():\n\tx = 1\n", 2, 1,
     "tabs are not allowed for indentation; use spaces"},
    {"InconsistentDedent", "def f(x):\n    if x:\n        y = 1\n      z = 2\n", 4, 7,
     "unindent does not match any outer indentation level: expected column 5 or 9, found "
     "column 7"},
    {"UnexpectedIndent", "x = 1\n    y = 2\n", 2, 5, "unexpected indent"},
    {"NonAsciiName", "x = 1 + \xC3\xA9t\xC3\xA9\n", 1, 9,
     "non-ASCII character '\xC3\xA9' (U+00E9) at line 1, column 9"},
    {"NonAsciiAfterNonAsciiString", "s = '\xE2\x82\xAC' \xE2\x80\x94 1\n", 1, 9,
     "(U+2014) at line 1, column 9"},
    {"InvalidCharacter", "x = 1 $ 2\n", 1, 7, "invalid character '$' (U+0024)"},
    {"ExclamationMark", "x = !a\n", 1, 5, "use 'not' for negation"},
    {"BackslashFollowedByText", "x = 1 \\ 2\n", 1, 7,
     "unexpected character after line continuation character"},
    {"BackslashAtEndOfFile", "x = 1 + \\", 1, 9,
     "unexpected end of file after line continuation character"},
    {"InvalidEscape", "x = 'a\\qb'\n", 1, 7, "invalid escape sequence '\\q'"},
    {"FString", "x = f'{a}'\n", 1, 5, "f-strings are not supported"},
    {"BytesLiteral", "x = b'ab'\n", 1, 5, "bytes literals are not supported"},
    {"IntegerOverflowByOne", "x = 9223372036854775808\n", 1, 5,
     "integer literal 9223372036854775808 is too large"},
    {"IntegerOverflowHuge", "x = 99999999999999999999999\n", 1, 5, "is too large"},
    {"HexOverflow", "x = 0x1_0000_0000_0000_0000\n", 1, 5, "is too large"},
    {"LeadingZeros", "x = 012\n", 1, 5, "leading zeros in decimal integer literals"},
    {"InvalidHex", "x = 0xZ\n", 1, 5, "invalid hexadecimal literal '0x'"},
    {"ImaginaryLiteral", "x = 3j\n", 1, 5, "imaginary literals are not supported"},

    // Statements.
    {"NestedDef", "def f():\n    x = 1\n    def g():\n        pass\n", 3, 5,
     "nested functions are not supported"},
    {"NestedDecoratedDef", "def f():\n    @k\n    def g():\n        pass\n", 2, 5,
     "nested functions are not supported"},
    {"ChainedAssignment", "a = b = 1\n", 1, 7, "chained assignment"},
    {"AnnotatedAssignment", "x: int = 1\n", 1, 2, "annotated assignments"},
    {"WhileLoop", "while x:\n    pass\n", 1, 1, "'while' loops are not supported"},
    {"ClassDefinition", "class A:\n    pass\n", 1, 1, "classes are not supported"},
    {"BreakStatement", "for i in x:\n    break\n", 2, 5, "'break' is not supported"},
    {"ReturnOutsideFunction", "return 1\n", 1, 1, "'return' outside a function"},
    {"ForElse", "for i in x:\n    pass\nelse:\n    pass\n", 3, 1,
     "'else' after a for-loop is not supported"},
    {"ElseWithoutIf", "else:\n    pass\n", 1, 1,
     "keyword 'else' must follow an 'if' block at the same indentation"},
    {"IfMissingColon", "if x\n    pass\n", 1, 5,
     "expected ':' after the 'if' condition, found newline"},
    {"ForMissingIn", "for i range(4):\n    pass\n", 1, 7,
     "expected 'in' after the for-loop target, found name 'range'"},
    {"ForTargetIsACall", "for f(x) in y:\n    pass\n", 1, 5,
     "expected a name or a tuple of names as the for-loop target, found a function call"},
    {"AssignToCall", "f() = 1\n", 1, 1,
     "cannot assign to a function call (expected a name, a tuple of names"},
    {"AssignToLiteralInTuple", "a, 1 = x\n", 1, 4, "cannot assign to a literal"},
    {"AugmentedTupleTarget", "a, b += 1\n", 1, 1,
     "cannot use a tuple as the target of an augmented assignment"},
    {"CompoundAfterColon", "if x: for i in y: pass\n", 1, 7,
     "cannot follow ':' on the same line"},
    {"StatementJunkAfterExpression", "x = 1 2\n", 1, 7,
     "expected newline or ';' after the statement, found integer literal 2"},
    {"DecoratorWithoutDef", "@kernel\nx = 1\n", 2, 1,
     "expected 'def' after the decorator, found name 'x'"},
    {"DuplicateParameter", "def f(a, a):\n    pass\n", 1, 10, "duplicate parameter 'a'"},
    {"ParameterWithoutDefaultAfterDefault", "def f(a=1, b):\n    pass\n", 1, 12,
     "parameter 'b' without a default follows a parameter with a default"},
    {"VariadicParameter", "def f(*args):\n    pass\n", 1, 7, "variadic parameters"},
    {"KeywordAsParameter", "def f(lambda):\n    pass\n", 1, 7,
     "expected a parameter name, found keyword 'lambda'"},
    {"ReturnAnnotation", "def f() -> int:\n    pass\n", 1, 9, "return annotations"},
    {"MissingCommaBetweenParameters", "def f(a b):\n    pass\n", 1, 9,
     "expected ',' or ')' after parameter 'a', found name 'b'"},
    {"RelativeImport", "from . import x\n", 1, 6, "relative imports are not supported"},
    {"FromWithoutImport", "from argus x\n", 1, 12,
     "expected 'import' after the module name, found name 'x'"},

    // Expressions.
    {"Slice", "x = a[1:2]\n", 1, 8, "slices are not supported"},
    {"SliceWithoutStart", "x = a[:, 0]\n", 1, 7, "slices are not supported"},
    {"IsOperator", "x = a is b\n", 1, 7, "the 'is' operator is not supported"},
    {"InOperator", "x = a in b\n", 1, 7, "the 'in' operator is not supported"},
    {"NotInOperator", "x = a not in b\n", 1, 7, "the 'not in' operator is not supported"},
    {"PositionalAfterKeyword", "f(a=1, b)\n", 1, 8, "positional argument follows keyword"},
    {"RepeatedKeyword", "f(a=1, a=2)\n", 1, 8, "keyword argument 'a' repeated"},
    {"StarArgs", "f(*xs)\n", 1, 3, "argument unpacking ('*args') is not supported"},
    {"DoubleStarKwargs", "f(**kw)\n", 1, 3, "keyword argument unpacking"},
    {"MissingCommaInCall", "f(a b)\n", 1, 5,
     "expected ',' or ')' after the argument, found name 'b'"},
    {"KeywordNameNotAName", "f(a.b=1)\n", 1, 6, "a keyword argument needs a plain name"},
    {"MissingElse", "x = a if b\n", 1, 11,
     "expected 'else' in the conditional expression 'x if c else y', found newline"},
    {"MissingExpression", "x = \n", 1, 4, "expected an expression, found newline"},
    {"MissingOperand", "x = a + * b\n", 1, 9, "expected an expression, found '*'"},
    {"LambdaDefault", "f = lambda x=1: x\n", 1, 13,
     "default values for lambda parameters are not supported"},
    {"LambdaMissingColon", "f = lambda x y\n", 1, 14,
     "expected ':' after the lambda parameters, found name 'y'"},
    {"DictLiteral", "x = {}\n", 1, 5, "dictionaries and sets"},
    {"ListComprehension", "x = [i for i in y]\n", 1, 8, "list comprehensions are not supported"},
    {"GeneratorExpression", "x = sum(i for i in y)\n", 1, 11, "generator expressions"},
    {"Walrus", "x := 1\n", 1, 3, "the ':=' operator is not supported"},
    {"EmptySubscript", "x = a[]\n", 1, 7, "expected an index expression, found ']'"},
    {"DotThenDigitIsAFloat", "x = a.1\n", 1, 6,
     "expected newline or ';' after the statement, found float literal .1"},
    {"AttributeIsKeyword", "x = a.if\n", 1, 7,
     "expected an attribute name after '.', found keyword 'if'"},
    {"MissingCommaInTuple", "x = (a, b c)\n", 1, 11,
     "expected ',' or ')' after the tuple element, found name 'c'"},
    {"YieldExpression", "def f():\n    x = yield 1\n", 2, 9, "'yield' is not supported"},
    {"NestedTooDeeply", nested(300), 1, 205, "expression nested too deeply (more than 200"},
    {"ChainTooLong", longSum(1500), 1, 5, "syntax tree is more than 1000 levels deep"},
};

// Failing cases print as their name and source, not as raw bytes.
void PrintTo(const ErrorCase &c, std::ostream *os) { *os << c.name << ": " << c.source; }

class ParserErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParserErrors, ReportsTheFirstErrorPrecisely) {
  const ErrorCase &c = GetParam();
  ParseOutput out = parseModule(c.source, "bad.argus");
  EXPECT_FALSE(out.module);
  ASSERT_EQ(out.errors.size(), 1u);
  const Diagnostic &d = out.errors[0];
  EXPECT_EQ(d.file, "bad.argus");
  EXPECT_EQ(d.loc.line, c.line) << d.message;
  EXPECT_EQ(d.loc.col, c.col) << d.message;
  EXPECT_NE(d.message.find(c.message), std::string::npos)
      << "expected a message containing: " << c.message << "\n      got: " << d.message;
}

INSTANTIATE_TEST_SUITE_P(Table, ParserErrors, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ErrorCase> &param) {
                           return std::string(param.param.name);
                         });

TEST(ParserErrorTable, HasAtLeast35Cases) {
  EXPECT_GE(sizeof(kCases) / sizeof(kCases[0]), 35u);
}

TEST(ParserErrors, FirstErrorInReadingOrderWins) {
  // A syntax error on line 1 is reported even though line 3 has a lexical one.
  ParseOutput out = parseModule("x = = 1\ny = 2\nz = $\n", "a.argus");
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(out.errors[0].loc.line, 1u);
  EXPECT_EQ(out.errors[0].loc.col, 5u);
}

TEST(ParserErrors, ErrorOnTheBracketLineIsNotRewritten) {
  // The bracket is never closed, but the missing comma is on the same line:
  // the more precise message stays.
  ParseOutput out = parseModule("f(a b\n", "a.argus");
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_NE(out.errors[0].message.find("expected ',' or ')'"), std::string::npos);
}

} // namespace
