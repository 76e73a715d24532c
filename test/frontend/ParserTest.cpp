//===- ParserTest.cpp - shapes and locations of well-formed programs ------===//
#include "AstDump.h"
#include "argus/Frontend/Parser.h"

#include <gtest/gtest.h>

using namespace argus::dsl;
using argus::dsl::test::dump;

namespace {

std::unique_ptr<Module> parseOk(const std::string &text) {
  ParseOutput out = parseModule(text, "test.argus");
  if (!out.errors.empty()) {
    ADD_FAILURE() << formatDiagnostic(out.errors[0], text);
    return nullptr;
  }
  EXPECT_TRUE(out.module);
  return std::move(out.module);
}

/// The tree of the expression `text` (parsed as `_ = text`).
std::string expr(const std::string &text) {
  auto m = parseOk("_ = " + text + "\n");
  if (!m || m->body.size() != 1 || !m->body[0]->as<AssignStmt>())
    return "<parse failed>";
  return dump(m->body[0]->as<AssignStmt>()->value.get());
}

/// The statements of `text`, dumped.
std::string stmts(const std::string &text) {
  auto m = parseOk(text);
  return m ? dump(m->body) : "<parse failed>";
}

TEST(Parser, ArithmeticPrecedenceAndAssociativity) {
  EXPECT_EQ(expr("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(expr("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(expr("a / b // c % d @ e"), "(@ (% (// (/ a b) c) d) e)");
  EXPECT_EQ(expr("(a + b) * c"), "(* (+ a b) c)");
  EXPECT_EQ(expr("2 ** 3 ** 2"), "(** 2 (** 3 2))");
  EXPECT_EQ(expr("-2 ** 2"), "(- (** 2 2))");
  EXPECT_EQ(expr("2 ** -1"), "(** 2 (- 1))");
  EXPECT_EQ(expr("-a.b[0] ** 2"), "(- (** ([] (. a b) 0) 2))");
  EXPECT_EQ(expr("~a + -b * +c"), "(+ (~ a) (* (- b) (+ c)))");
  EXPECT_EQ(expr("2 ** 3 // 4"), "(// (** 2 3) 4)");
}

TEST(Parser, BitwisePrecedence) {
  EXPECT_EQ(expr("a | b ^ c & d << e + f"), "(| a (^ b (& c (<< d (+ e f)))))");
  EXPECT_EQ(expr("a & b | c & d"), "(| (& a b) (& c d))");
  EXPECT_EQ(expr("a >> 1 << 2"), "(<< (>> a 1) 2)");
}

TEST(Parser, LogicalAndComparison) {
  EXPECT_EQ(expr("a < b <= c != d"), "(cmp a < b <= c != d)");
  EXPECT_EQ(expr("a == b + 1"), "(cmp a == (+ b 1))");
  EXPECT_EQ(expr("not a == b and c or d"), "(or (and (not (cmp a == b)) c) d)");
  EXPECT_EQ(expr("a or b or c"), "(or a b c)");
  EXPECT_EQ(expr("a and b and c or d and e"), "(or (and a b c) (and d e))");
  EXPECT_EQ(expr("not not a"), "(not (not a))");
  EXPECT_EQ(expr("a | b > c & d"), "(cmp (| a b) > (& c d))");
}

TEST(Parser, ConditionalAndLambda) {
  EXPECT_EQ(expr("a if b else c if d else e"), "(ifexp b a (ifexp d c e))");
  EXPECT_EQ(expr("x + 1 if x > 0 else -x"), "(ifexp (cmp x > 0) (+ x 1) (- x))");
  EXPECT_EQ(expr("lambda m, k: (m, k)"), "(lambda (m k) (tuple m k))");
  EXPECT_EQ(expr("lambda: 0"), "(lambda () 0)");
  EXPECT_EQ(expr("lambda x,: x if x else lambda y: y"),
            "(lambda (x) (ifexp x x (lambda (y) y)))");
  EXPECT_EQ(expr("lambda ta, tb: ta.k == tb.k and ta.m < 4"),
            "(lambda (ta tb) (and (cmp (. ta k) == (. tb k)) (cmp (. ta m) < 4)))");
}

TEST(Parser, CallsSubscriptsAttributes) {
  EXPECT_EQ(expr("f()"), "(call f)");
  EXPECT_EQ(expr("f(a,)"), "(call f a)");
  EXPECT_EQ(expr("f(a, b + 1, k=v, stages=2,)"), "(call f a (+ b 1) k=v stages=2)");
  EXPECT_EQ(expr("a.b.c(d)[e](f)"), "(call ([] (call (. (. a b) c) d) e) f)");
  EXPECT_EQ(expr("a[i]"), "([] a i)");
  EXPECT_EQ(expr("a[i, j]"), "([] a (tuple i j))");
  EXPECT_EQ(expr("a[i,]"), "([] a (tuple i))");
  EXPECT_EQ(expr("a[(i, j)]"), "([] a (tuple i j))");
  EXPECT_EQ(expr("sa[kt % 2].load()"), "(call (. ([] sa (% kt 2)) load))");
}

TEST(Parser, TuplesListsAtoms) {
  EXPECT_EQ(expr("()"), "(tuple)");
  EXPECT_EQ(expr("(a,)"), "(tuple a)");
  EXPECT_EQ(expr("(a)"), "a");
  EXPECT_EQ(expr("(a, b,)"), "(tuple a b)");
  EXPECT_EQ(expr("a, b"), "(tuple a b)");
  EXPECT_EQ(expr("a,"), "(tuple a)");
  EXPECT_EQ(expr("[]"), "(list)");
  EXPECT_EQ(expr("[a, [b], (c,),]"), "(list a (list b) (tuple c))");
  EXPECT_EQ(expr("True, False, None"), "(tuple True False None)");
  EXPECT_EQ(expr("1.5, .5, 1e-3, 1_000.5"), "(tuple f1.5 f0.5 f0.001 f1000.5)");
}

TEST(Parser, IntegerLiterals) {
  EXPECT_EQ(expr("0x2A + 0o17 + 0b11 + 1_000"), "(+ (+ (+ 42 15) 3) 1000)");
  EXPECT_EQ(expr("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(expr("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(expr("-9223372036854775807"), "(- 9223372036854775807)");
}

TEST(Parser, StringConcatenationAndEscapes) {
  EXPECT_EQ(expr("\"ab\" 'cd' \"\"\"e\nf\"\"\""), "\"abcde\nf\"");
  EXPECT_EQ(expr("('a'\n     'b')"), "\"ab\"");
  EXPECT_EQ(expr("'tab\\there \\'q\\' \\\"d\\\" back\\\\slash'"),
            "\"tab\there 'q' \"d\" back\\slash\"");
}

TEST(Parser, Assignments) {
  EXPECT_EQ(stmts("a, b = b, a\n"), "(tuple a b) = (tuple b a)\n");
  EXPECT_EQ(stmts("(a, b), c = x\n"), "(tuple (tuple a b) c) = x\n");
  EXPECT_EQ(stmts("x[0], y.z = 1, 2\n"), "(tuple ([] x 0) (. y z)) = (tuple 1 2)\n");
  EXPECT_EQ(stmts("x, = f()\n"), "(tuple x) = (call f)\n");
  EXPECT_EQ(stmts("a[i, j] = v\n"), "([] a (tuple i j)) = v\n");
}

TEST(Parser, AugmentedAssignments) {
  EXPECT_EQ(stmts("a += 1\na -= 1\na *= 1\na /= 1\na //= 1\na %= 1\na **= 1\n"
                  "a &= 1\na |= 1\na ^= 1\na <<= 1\na >>= 1\na @= b\nx.y[0] += 1, 2\n"),
            "a += 1\na -= 1\na *= 1\na /= 1\na //= 1\na %= 1\na **= 1\n"
            "a &= 1\na |= 1\na ^= 1\na <<= 1\na >>= 1\na @= b\n([] (. x y) 0) += (tuple 1 2)\n");
}

TEST(Parser, ImportsAndModuleConstants) {
  EXPECT_EQ(stmts("import a.b\nimport a as b, c\nfrom argus import *\n"
                  "from argus.lang import (x, y as z,)\nBLOCK = 64  # comment\n"),
            "import a.b\nimport a\nimport c\nimport argus\nimport argus.lang\nBLOCK = 64\n");
}

TEST(Parser, FunctionDefinitionParametersAndDecorators) {
  auto m = parseOk("@kernel(grid=(cdiv(M, BM),), threads=128)\n@other\n"
                   "def k(A: Tensor[M, K, T], n, alpha: f32,\n"
                   "      T: dtype = bf16, BM: const = 64,):\n"
                   "    \"\"\"doc\"\"\"\n    return\n");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->body.size(), 1u);
  const auto *fn = m->body[0]->as<FunctionDef>();
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->name, "k");
  EXPECT_EQ(fn->loc.line, 3u);
  EXPECT_EQ(fn->loc.col, 1u);
  EXPECT_EQ(fn->nameLoc.col, 5u);
  ASSERT_EQ(fn->decorators.size(), 2u);
  EXPECT_EQ(dump(fn->decorators[0].get()),
            "(call kernel grid=(tuple (call cdiv M BM)) threads=128)");
  EXPECT_EQ(dump(fn->decorators[1].get()), "other");
  ASSERT_EQ(fn->params.size(), 5u);
  EXPECT_EQ(fn->params[0].name, "A");
  EXPECT_EQ(dump(fn->params[0].annotation.get()), "([] Tensor (tuple M K T))");
  EXPECT_FALSE(fn->params[0].defaultValue);
  EXPECT_EQ(fn->params[1].name, "n");
  EXPECT_FALSE(fn->params[1].annotation);
  EXPECT_EQ(dump(fn->params[3].defaultValue.get()), "bf16");
  EXPECT_EQ(dump(fn->params[4].annotation.get()), "const");
  EXPECT_EQ(dump(fn->params[4].defaultValue.get()), "64");
  EXPECT_EQ(fn->params[3].loc.line, 4u);
  EXPECT_EQ(fn->params[3].loc.col, 7u);
  ASSERT_EQ(fn->body.size(), 2u);
  EXPECT_EQ(dump(fn->body), "expr \"doc\"\nreturn\n");
}

TEST(Parser, ElifChainsNestInOrElse) {
  auto m = parseOk("def f(x):\n    if x < 0:\n        y = 0\n    elif x < 1:\n        y = 1\n"
                   "    elif x < 2:\n        y = 2\n    else:\n        y = 3\n    return y\n");
  ASSERT_TRUE(m);
  const auto &body = m->body[0]->as<FunctionDef>()->body;
  ASSERT_EQ(body.size(), 2u);
  const auto *if0 = body[0]->as<IfStmt>();
  ASSERT_TRUE(if0);
  ASSERT_EQ(if0->orElse.size(), 1u);
  const auto *if1 = if0->orElse[0]->as<IfStmt>();
  ASSERT_TRUE(if1);
  EXPECT_EQ(if1->loc.line, 4u); // the elif keyword
  ASSERT_EQ(if1->orElse.size(), 1u);
  const auto *if2 = if1->orElse[0]->as<IfStmt>();
  ASSERT_TRUE(if2);
  EXPECT_EQ(dump(if2->condition.get()), "(cmp x < 2)");
  EXPECT_EQ(dump(if2->orElse), "y = 3\n");
  EXPECT_TRUE(body[1]->as<ReturnStmt>());
}

TEST(Parser, OneLineBodiesAndSemicolons) {
  EXPECT_EQ(stmts("def f(a):\n    if a: x = 1; y = 2;\n    else: pass\n"
                  "    for i, j in pairs(a): acc += i * j\n"),
            "def f(a)\n  if a\n    x = 1\n    y = 2\n  else\n    pass\n"
            "  for (tuple i j) in (call pairs a)\n    acc += (* i j)\n");
  EXPECT_EQ(stmts("def f(): return 1, 2\n"), "def f()\n  return (tuple 1 2)\n");
}

TEST(Parser, ForLoopTargetsAndIterables) {
  EXPECT_EQ(stmts("for kt in pipeline(cdiv(K, BK), stages=2):\n    pass\n"),
            "for kt in (call pipeline (call cdiv K BK) stages=2)\n  pass\n");
  EXPECT_EQ(stmts("for (a, b) in x, y:\n    pass\n"),
            "for (tuple a b) in (tuple x y)\n  pass\n");
}

TEST(Parser, AssertStatements) {
  EXPECT_EQ(stmts("assert BK % 32 == 0, \"BK must be a multiple of 32\"\nassert x\n"),
            "assert (cmp (% BK 32) == 0), \"BK must be a multiple of 32\"\nassert x\n");
}

TEST(Parser, LocationsAreFirstCharacters) {
  auto m = parseOk("def f(a):\n    y = (a + 1) * g(k=2).z[3]\n    lam = lambda m, n: m\n");
  ASSERT_TRUE(m);
  const auto &body = m->body[0]->as<FunctionDef>()->body;
  const auto *assign = body[0]->as<AssignStmt>();
  ASSERT_TRUE(assign);
  EXPECT_EQ(assign->loc.line, 2u);
  EXPECT_EQ(assign->loc.col, 5u);
  const auto *mul = assign->value->as<BinaryExpr>();
  ASSERT_TRUE(mul);
  EXPECT_EQ(mul->loc.col, 9u); // the '('
  EXPECT_EQ(mul->lhs->loc.col, 10u);
  const auto *sub = mul->rhs->as<SubscriptExpr>();
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->loc.col, 19u);
  const auto *attr = sub->value->as<AttributeExpr>();
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr->attrLoc.col, 26u);
  const auto *call = attr->value->as<CallExpr>();
  ASSERT_TRUE(call);
  ASSERT_EQ(call->keywords.size(), 1u);
  EXPECT_EQ(call->keywords[0].loc.col, 21u);
  const auto *lam = body[1]->as<AssignStmt>()->value->as<LambdaExpr>();
  ASSERT_TRUE(lam);
  EXPECT_EQ(lam->loc.col, 11u);
  ASSERT_EQ(lam->paramLocs.size(), 2u);
  EXPECT_EQ(lam->paramLocs[1].col, 21u);
}

TEST(Parser, EmptyAndCommentOnlyFiles) {
  for (const char *text : {"", "\n\n", "# only a comment", "\xEF\xBB\xBF", "   \n  # x\n"}) {
    auto m = parseOk(text);
    ASSERT_TRUE(m);
    EXPECT_TRUE(m->body.empty());
  }
}

TEST(Parser, ModulePathIsKept) {
  ParseOutput out = parseModule("x = 1\n", "kernels/a.argus");
  ASSERT_TRUE(out.module);
  EXPECT_EQ(out.module->path, "kernels/a.argus");
  EXPECT_TRUE(out.errors.empty());
}

TEST(Parser, NestingWithinTheLimitsParses) {
  std::string deep = std::string(150, '(') + "1" + std::string(150, ')');
  EXPECT_EQ(expr(deep), "1");
  std::string chain = "a";
  for (int i = 0; i < 900; ++i)
    chain += " + a";
  auto m = parseOk("x = " + chain + "\n");
  ASSERT_TRUE(m);
  std::string flat = "[";
  for (int i = 0; i < 20000; ++i)
    flat += "1, ";
  auto m2 = parseOk("x = " + flat + "]\n");
  ASSERT_TRUE(m2);
  EXPECT_EQ(m2->body[0]->as<AssignStmt>()->value->as<ListExpr>()->elements.size(), 20000u);
}

TEST(Parser, NestingBeyondTheLimitsFails) {
  auto failsWith = [](const std::string &text, const char *needle) {
    ParseOutput out = parseModule(text, "deep.argus");
    ASSERT_EQ(out.errors.size(), 1u) << text.substr(0, 40);
    EXPECT_FALSE(out.module);
    EXPECT_NE(out.errors[0].message.find(needle), std::string::npos) << out.errors[0].message;
  };
  failsWith("x = " + std::string(100000, '(') + "1" + std::string(100000, ')') + "\n",
            "nested too deeply");
  failsWith("x = " + std::string(100000, '-') + "1\n", "nested too deeply");
  std::string chain = "a";
  for (int i = 0; i < 5000; ++i)
    chain += " + a";
  failsWith("x = " + chain + "\n", "nested too deeply");
  std::string attrs = "a";
  for (int i = 0; i < 5000; ++i)
    attrs += ".b";
  failsWith("x = " + attrs + "\n", "nested too deeply");
  std::string pows = "2";
  for (int i = 0; i < 5000; ++i)
    pows += " ** 2";
  failsWith("x = " + pows + "\n", "nested too deeply");
  std::string elifs = "if a:\n    pass\n";
  for (int i = 0; i < 5000; ++i)
    elifs += "elif a:\n    pass\n";
  failsWith(elifs, "nested too deeply");
}

} // namespace
