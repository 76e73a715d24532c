//===- Parser.cpp - token stream, errors and limits of the parser ---------===//
//
// The machinery under the grammar rules: lookahead over the lazy lexer,
// turning lexer and parser failures into one Diagnostic, the nesting and
// tree-height limits that keep every input safe, and the public entry point
// parseModule(), which is the only place exceptions are caught.
//
//===----------------------------------------------------------------------===//
#include "ParserImpl.h"

#include <algorithm>
#include <new>
#include <stdexcept>

namespace argus::dsl {
namespace detail {

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

const Token &Parser::fill(size_t ahead) {
  if (ahead >= kLookahead)
    throw std::logic_error("parser lookahead beyond the token ring");
  while (count_ <= ahead) {
    Token t = lexer_.next();
    if (t.kind == TokenKind::Error) {
      const LexError &e = *lexer_.error();
      throw ParseFailure{e.loc, e.message, /*fromLexer=*/true};
    }
    ring_[(head_ + count_) % kLookahead] = std::move(t);
    ++count_;
  }
  return ring_[(head_ + ahead) % kLookahead];
}

Token Parser::take() {
  peek();
  Token t = std::move(ring_[head_]);
  head_ = (head_ + 1) % kLookahead;
  --count_;
  return t;
}

bool Parser::accept(TokenKind kind) {
  if (!at(kind))
    return false;
  take();
  return true;
}

Token Parser::expect(TokenKind kind, const std::string &what) {
  if (!at(kind))
    failExpected(what);
  return take();
}

void Parser::fail(SourceLoc loc, std::string message) {
  throw ParseFailure{loc, std::move(message), /*fromLexer=*/false};
}

void Parser::failExpected(const std::string &what) {
  const Token &t = peek();
  fail(t.loc, "expected " + what + ", found " + describe(t));
}

void Parser::failUnsupportedKeyword(const Token &t) {
  const std::string &w = t.text;
  if (w == "while")
    fail(t.loc, "'while' loops are not supported; use 'for i in range(n):'");
  if (w == "break" || w == "continue")
    fail(t.loc, "'" + w + "' is not supported: a loop always runs all its iterations");
  if (w == "class")
    fail(t.loc, "classes are not supported; define kernels and helpers with 'def'");
  if (w == "try" || w == "except" || w == "finally" || w == "raise")
    fail(t.loc, "exceptions ('" + w + "') are not supported; use 'assert' for compile-time checks");
  fail(t.loc, "'" + w + "' is not supported in the Argus DSL");
}

//===----------------------------------------------------------------------===//
// Limits
//===----------------------------------------------------------------------===//

DepthGuard::DepthGuard(Parser &owner, SourceLoc loc, const char *what) : parser(owner) {
  if (++parser.depth_ > kMaxNestingDepth) {
    --parser.depth_;
    parser.fail(loc, std::string(what) + " nested too deeply (more than " +
                         std::to_string(kMaxNestingDepth) + " levels)");
  }
}

/// Calls `fn(child)` for every direct sub-expression of `e`.
template <typename Fn> static void forEachChild(const Expr &e, Fn fn) {
  switch (e.kind) {
  case ExprKind::Tuple:
    for (const ExprPtr &c : e.as<TupleExpr>()->elements) fn(c.get());
    break;
  case ExprKind::List:
    for (const ExprPtr &c : e.as<ListExpr>()->elements) fn(c.get());
    break;
  case ExprKind::Call: {
    const auto *call = e.as<CallExpr>();
    fn(call->callee.get());
    for (const ExprPtr &c : call->args) fn(c.get());
    for (const Keyword &k : call->keywords) fn(k.value.get());
    break;
  }
  case ExprKind::Attribute: fn(e.as<AttributeExpr>()->value.get()); break;
  case ExprKind::Subscript:
    fn(e.as<SubscriptExpr>()->value.get());
    fn(e.as<SubscriptExpr>()->index.get());
    break;
  case ExprKind::Unary: fn(e.as<UnaryExpr>()->operand.get()); break;
  case ExprKind::Binary:
    fn(e.as<BinaryExpr>()->lhs.get());
    fn(e.as<BinaryExpr>()->rhs.get());
    break;
  case ExprKind::Compare:
    fn(e.as<CompareExpr>()->first.get());
    for (const ExprPtr &c : e.as<CompareExpr>()->comparators) fn(c.get());
    break;
  case ExprKind::BoolOp:
    for (const ExprPtr &c : e.as<BoolOpExpr>()->values) fn(c.get());
    break;
  case ExprKind::IfElse: {
    const auto *ie = e.as<IfElseExpr>();
    fn(ie->condition.get());
    fn(ie->thenValue.get());
    fn(ie->elseValue.get());
    break;
  }
  case ExprKind::Lambda: fn(e.as<LambdaExpr>()->body.get()); break;
  default: break; // leaves
  }
}

unsigned Parser::heightOf(const Expr *e) const {
  auto it = heights_.find(e);
  return it == heights_.end() ? 1 : it->second;
}

ExprPtr Parser::finish(ExprPtr e) {
  unsigned below = 0;
  forEachChild(*e, [&](const Expr *c) { below = std::max(below, heightOf(c)); });
  unsigned height = below + 1;
  if (height > kMaxExpressionHeight)
    fail(e->loc, "expression nested too deeply (its syntax tree is more than " +
                     std::to_string(kMaxExpressionHeight) +
                     " levels deep); split it into several statements");
  if (height > 1)
    heights_[e.get()] = height;
  return e;
}

const char *describeExpr(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Name: return "a name";
  case ExprKind::Int:
  case ExprKind::Float:
  case ExprKind::String:
  case ExprKind::Bool:
  case ExprKind::None: return "a literal";
  case ExprKind::Tuple: return "a tuple";
  case ExprKind::List: return "a list";
  case ExprKind::Call: return "a function call";
  case ExprKind::Attribute: return "an attribute";
  case ExprKind::Subscript: return "a subscript";
  case ExprKind::Unary:
  case ExprKind::Binary: return "an operator expression";
  case ExprKind::Compare: return "a comparison";
  case ExprKind::BoolOp: return "a boolean expression";
  case ExprKind::IfElse: return "a conditional expression";
  case ExprKind::Lambda: return "a lambda";
  }
  return "an expression";
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

Diagnostic Parser::diagnose(const ParseFailure &failure) {
  Diagnostic d{path_, failure.loc, failure.message};
  // Like Python: a syntax error on a later line than a bracket that never
  // closes is really the missing closing bracket.
  std::optional<SourceLoc> open = lexer_.innermostOpenBracket();
  if (failure.fromLexer || !open || open->line >= failure.loc.line)
    return d;
  for (;;) {
    TokenKind k = lexer_.next().kind;
    if (k == TokenKind::EndOfFile || k == TokenKind::Error)
      break;
  }
  if (lexer_.error() && lexer_.error()->unclosedBracket) {
    d.loc = lexer_.error()->loc;
    d.message = lexer_.error()->message;
  }
  return d;
}

} // namespace detail

ParseOutput parseModule(std::string_view text, std::string path) {
  ParseOutput out;
  detail::Parser parser(text, path);
  std::optional<detail::ParseFailure> failure;
  try {
    out.module = parser.parseFile();
  } catch (const detail::ParseFailure &f) {
    failure = f;
  } catch (const std::bad_alloc &) {
    out.errors.push_back({path, {1, 1}, "out of memory while parsing"});
  } catch (const std::exception &e) {
    out.errors.push_back({path, {1, 1}, std::string("internal parser error: ") + e.what()});
  }
  if (failure) {
    try {
      out.errors.push_back(parser.diagnose(*failure));
    } catch (...) {
      out.errors.push_back({path, failure->loc, failure->message});
    }
  }
  if (!out.errors.empty())
    out.module.reset();
  return out;
}

} // namespace argus::dsl
