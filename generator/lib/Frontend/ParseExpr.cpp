//===- ParseExpr.cpp - expressions of the Argus kernel DSL ----------------===//
//
// Grammar rules for expressions, lowest precedence first, as in Python 3:
//
//   testlist    := test (',' test)* [',']            (a Tuple when a comma appears)
//   test        := lambda | or_test ['if' or_test 'else' test]
//   lambda      := 'lambda' [NAME (',' NAME)* [',']] ':' test
//   or_test     := and_test ('or' and_test)*
//   and_test    := not_test ('and' not_test)*
//   not_test    := 'not' not_test | comparison
//   comparison  := bitor (('<'|'<='|'>'|'>='|'=='|'!=') bitor)*   (one chained node)
//   bitor .. term: '|'  '^'  '&'  '<<' '>>'  '+' '-'  '*' '/' '//' '%' '@'  (left-assoc)
//   factor      := ('-'|'+'|'~') factor | power
//   power       := primary ['**' factor]                (so -2**2 == -(2**2), 2**-1 ok)
//   primary     := atom ('(' args ')' | '[' index ']' | '.' NAME)*
//   atom        := NAME | INT | FLOAT | STRING+ | True | False | None
//                | '(' [test (',' test)* [',']] ')' | '[' [test (',' test)* [',']] ']'
//
// Every node is located at its first character, parentheses included:
// in `(a + b) * c` the product starts at the '('.
//
//===----------------------------------------------------------------------===//
#include "ParserImpl.h"

#include <limits>
#include <set>

namespace argus::dsl::detail {

template <typename T> static std::unique_ptr<T> node(SourceLoc loc) {
  return std::make_unique<T>(loc);
}

/// testlist: a bare tuple `a, b` when a comma follows the first element.
ExprPtr Parser::parseTestList() {
  SourceLoc start = peek().loc;
  ExprPtr first = parseTest();
  if (!at(TokenKind::Comma))
    return first;
  auto tuple = node<TupleExpr>(start);
  tuple->elements.push_back(std::move(first));
  while (accept(TokenKind::Comma)) {
    if (!startsExpression(peek().kind))
      break;
    tuple->elements.push_back(parseTest());
  }
  return finish(std::move(tuple));
}

ExprPtr Parser::parseTest() {
  DepthGuard guard(*this, peek().loc);
  if (at(TokenKind::Kw_lambda))
    return parseLambda();
  SourceLoc start = peek().loc;
  ExprPtr value = parseOrTest();
  if (!at(TokenKind::Kw_if))
    return value;
  take();
  auto e = node<IfElseExpr>(start);
  e->thenValue = std::move(value);
  e->condition = parseOrTest();
  expect(TokenKind::Kw_else, "'else' in the conditional expression 'x if c else y'");
  e->elseValue = parseTest();
  return finish(std::move(e));
}

ExprPtr Parser::parseLambda() {
  auto lambda = node<LambdaExpr>(take().loc);
  std::set<std::string> seen;
  while (!at(TokenKind::Colon)) {
    if (at(TokenKind::Star) || at(TokenKind::DoubleStar))
      fail(peek().loc, "variadic lambda parameters are not supported");
    Token p = expect(TokenKind::Name, "a lambda parameter name or ':'");
    if (!seen.insert(p.text).second)
      fail(p.loc, "duplicate lambda parameter '" + p.text + "'");
    if (at(TokenKind::Equal))
      fail(peek().loc, "default values for lambda parameters are not supported");
    lambda->params.push_back(p.text);
    lambda->paramLocs.push_back(p.loc);
    if (!accept(TokenKind::Comma))
      break;
  }
  expect(TokenKind::Colon, "':' after the lambda parameters");
  lambda->body = parseTest();
  return finish(std::move(lambda));
}

ExprPtr Parser::parseOrTest() {
  SourceLoc start = peek().loc;
  ExprPtr first = parseAndTest();
  if (!at(TokenKind::Kw_or))
    return first;
  auto e = node<BoolOpExpr>(start);
  e->op = BoolOpKind::Or;
  e->values.push_back(std::move(first));
  while (accept(TokenKind::Kw_or))
    e->values.push_back(parseAndTest());
  return finish(std::move(e));
}

ExprPtr Parser::parseAndTest() {
  SourceLoc start = peek().loc;
  ExprPtr first = parseNotTest();
  if (!at(TokenKind::Kw_and))
    return first;
  auto e = node<BoolOpExpr>(start);
  e->op = BoolOpKind::And;
  e->values.push_back(std::move(first));
  while (accept(TokenKind::Kw_and))
    e->values.push_back(parseNotTest());
  return finish(std::move(e));
}

ExprPtr Parser::parseNotTest() {
  if (!at(TokenKind::Kw_not))
    return parseComparison();
  DepthGuard guard(*this, peek().loc);
  auto e = node<UnaryExpr>(take().loc);
  e->op = UnaryOp::Not;
  e->operand = parseNotTest();
  return finish(std::move(e));
}

static std::optional<CompareOp> compareOp(TokenKind kind) {
  switch (kind) {
  case TokenKind::Less: return CompareOp::Lt;
  case TokenKind::LessEqual: return CompareOp::Le;
  case TokenKind::Greater: return CompareOp::Gt;
  case TokenKind::GreaterEqual: return CompareOp::Ge;
  case TokenKind::EqualEqual: return CompareOp::Eq;
  case TokenKind::NotEqual: return CompareOp::Ne;
  default: return std::nullopt;
  }
}

ExprPtr Parser::parseComparison() {
  SourceLoc start = peek().loc;
  ExprPtr first = parseBinary(0);
  std::unique_ptr<CompareExpr> cmp;
  for (;;) {
    const Token &t = peek();
    if (t.is(TokenKind::Kw_in))
      fail(t.loc, "the 'in' operator is not supported");
    if (t.is(TokenKind::Kw_is))
      fail(t.loc, "the 'is' operator is not supported; use '==' or '!='");
    if (t.is(TokenKind::Kw_not) && peek(1).is(TokenKind::Kw_in))
      fail(t.loc, "the 'not in' operator is not supported");
    std::optional<CompareOp> op = compareOp(t.kind);
    if (!op)
      break;
    take();
    if (!cmp) {
      cmp = node<CompareExpr>(start);
      cmp->first = std::move(first);
    }
    cmp->ops.push_back(*op);
    cmp->comparators.push_back(parseBinary(0));
  }
  if (!cmp)
    return first;
  return finish(std::move(cmp));
}

/// Precedence of a binary operator token, loosest (0: '|') to tightest
/// (5: '*' '/' '//' '%' '@'); -1 when the token is not a binary operator.
static int binaryPrecedence(TokenKind kind, BinaryOp &op) {
  switch (kind) {
  case TokenKind::Pipe: op = BinaryOp::BitOr; return 0;
  case TokenKind::Caret: op = BinaryOp::BitXor; return 1;
  case TokenKind::Amp: op = BinaryOp::BitAnd; return 2;
  case TokenKind::LShift: op = BinaryOp::LShift; return 3;
  case TokenKind::RShift: op = BinaryOp::RShift; return 3;
  case TokenKind::Plus: op = BinaryOp::Add; return 4;
  case TokenKind::Minus: op = BinaryOp::Sub; return 4;
  case TokenKind::Star: op = BinaryOp::Mul; return 5;
  case TokenKind::Slash: op = BinaryOp::Div; return 5;
  case TokenKind::DoubleSlash: op = BinaryOp::FloorDiv; return 5;
  case TokenKind::Percent: op = BinaryOp::Mod; return 5;
  case TokenKind::At: op = BinaryOp::MatMul; return 5;
  default: return -1;
  }
}

/// bitor .. term by precedence climbing: one frame per operator that binds
/// tighter than its left neighbour, so the common case `(a + b)` costs one
/// frame of stack instead of one per precedence level.
ExprPtr Parser::parseBinary(int minPrecedence) {
  SourceLoc start = peek().loc;
  ExprPtr lhs = parseFactor();
  for (;;) {
    BinaryOp op = BinaryOp::Add;
    int precedence = binaryPrecedence(peek().kind, op);
    if (precedence < minPrecedence)
      return lhs;
    DepthGuard guard(*this, peek().loc);
    take();
    auto e = node<BinaryExpr>(start);
    e->op = op;
    e->lhs = std::move(lhs);
    e->rhs = parseBinary(precedence + 1); // left-associative
    lhs = finish(std::move(e));
  }
}

ExprPtr Parser::parseFactor() {
  const Token &t = peek();
  UnaryOp op;
  switch (t.kind) {
  case TokenKind::Minus: op = UnaryOp::Neg; break;
  case TokenKind::Plus: op = UnaryOp::Pos; break;
  case TokenKind::Tilde: op = UnaryOp::Invert; break;
  default: return parsePower();
  }
  DepthGuard guard(*this, t.loc);
  SourceLoc loc = take().loc;
  // -9223372036854775808 is the one literal that only exists negated; it is
  // folded into an IntExpr (unless `**` or a trailer binds tighter).
  if (op == UnaryOp::Neg && at(TokenKind::Int) &&
      peek().intValue == uint64_t(std::numeric_limits<int64_t>::max()) + 1) {
    TokenKind after = peek(1).kind;
    if (after != TokenKind::DoubleStar && after != TokenKind::LParen &&
        after != TokenKind::LBracket && after != TokenKind::Dot) {
      take();
      auto e = node<IntExpr>(loc);
      e->value = std::numeric_limits<int64_t>::min();
      return e;
    }
  }
  auto e = node<UnaryExpr>(loc);
  e->op = op;
  e->operand = parseFactor();
  return finish(std::move(e));
}

ExprPtr Parser::parsePower() {
  SourceLoc start = peek().loc;
  ExprPtr base = parsePrimary();
  if (!at(TokenKind::DoubleStar))
    return base;
  DepthGuard guard(*this, peek().loc);
  take();
  auto e = node<BinaryExpr>(start);
  e->op = BinaryOp::Pow;
  e->lhs = std::move(base);
  e->rhs = parseFactor(); // right-associative; `2 ** -1` allowed
  return finish(std::move(e));
}

ExprPtr Parser::parsePrimary() {
  SourceLoc start = peek().loc;
  ExprPtr e = parseAtom();
  for (;;) {
    if (at(TokenKind::LParen)) {
      e = parseCall(std::move(e), start);
    } else if (at(TokenKind::LBracket)) {
      e = parseSubscript(std::move(e), start);
    } else if (at(TokenKind::Dot)) {
      take();
      Token name = expect(TokenKind::Name, "an attribute name after '.'");
      auto attr = node<AttributeExpr>(start);
      attr->value = std::move(e);
      attr->attr = name.text;
      attr->attrLoc = name.loc;
      e = finish(std::move(attr));
    } else {
      return e;
    }
  }
}

/// '(' [arg (',' arg)* [',']] ')' with arg := test | NAME '=' test
ExprPtr Parser::parseCall(ExprPtr callee, SourceLoc start) {
  take(); // (
  auto call = node<CallExpr>(start);
  call->callee = std::move(callee);
  std::set<std::string> keywordNames;
  while (!at(TokenKind::RParen)) {
    const Token &t = peek();
    if (t.is(TokenKind::Star))
      fail(t.loc, "argument unpacking ('*args') is not supported");
    if (t.is(TokenKind::DoubleStar))
      fail(t.loc, "keyword argument unpacking ('**kwargs') is not supported");
    if (t.is(TokenKind::Name) && peek(1).is(TokenKind::Equal)) {
      Token name = take();
      take(); // =
      if (!keywordNames.insert(name.text).second)
        fail(name.loc, "keyword argument '" + name.text + "' repeated");
      call->keywords.push_back(Keyword{name.text, name.loc, parseTest()});
    } else {
      if (!call->keywords.empty())
        fail(t.loc, "positional argument follows keyword argument '" +
                        call->keywords.back().name + "'");
      call->args.push_back(parseTest());
      if (at(TokenKind::Equal))
        fail(peek().loc, "expected ',' or ')' after the argument, found '=' (a keyword "
                         "argument needs a plain name before '=')");
      if (at(TokenKind::Kw_for))
        fail(peek().loc, "generator expressions and comprehensions are not supported");
    }
    if (!accept(TokenKind::Comma)) {
      if (!at(TokenKind::RParen))
        failExpected("',' or ')' after the argument");
      break;
    }
  }
  take(); // )
  return finish(std::move(call));
}

/// '[' test (',' test)* [','] ']'; several indices make a Tuple index.
ExprPtr Parser::parseSubscript(ExprPtr value, SourceLoc start) {
  take(); // [
  if (at(TokenKind::RBracket))
    failExpected("an index expression");
  SourceLoc indexStart = peek().loc;
  std::vector<ExprPtr> indices;
  bool sawComma = false;
  for (;;) {
    if (at(TokenKind::Colon))
      fail(peek().loc, "slices are not supported");
    indices.push_back(parseTest());
    if (at(TokenKind::Colon))
      fail(peek().loc, "slices are not supported");
    if (!accept(TokenKind::Comma))
      break;
    sawComma = true;
    if (at(TokenKind::RBracket))
      break;
  }
  expect(TokenKind::RBracket, "',' or ']' after the index");
  auto sub = node<SubscriptExpr>(start);
  sub->value = std::move(value);
  if (indices.size() == 1 && !sawComma) {
    sub->index = std::move(indices.front());
  } else {
    auto tuple = node<TupleExpr>(indexStart);
    tuple->elements = std::move(indices);
    sub->index = finish(std::move(tuple));
  }
  return finish(std::move(sub));
}

ExprPtr Parser::parseAtom() {
  const Token &t = peek();
  switch (t.kind) {
  case TokenKind::Name: {
    auto e = node<NameExpr>(t.loc);
    e->name = take().text;
    return e;
  }
  case TokenKind::Int: {
    if (t.intValue > uint64_t(std::numeric_limits<int64_t>::max()))
      fail(t.loc, "integer literal " + t.text +
                      " is too large: integers must fit in 64 bits (at most 2^63 - 1)");
    auto e = node<IntExpr>(t.loc);
    e->value = int64_t(take().intValue);
    return e;
  }
  case TokenKind::Float: {
    auto e = node<FloatExpr>(t.loc);
    e->value = take().floatValue;
    return e;
  }
  case TokenKind::Kw_True:
  case TokenKind::Kw_False: {
    auto e = node<BoolExpr>(t.loc);
    e->value = take().is(TokenKind::Kw_True);
    return e;
  }
  case TokenKind::Kw_None:
    return node<NoneExpr>(take().loc);
  case TokenKind::String: {
    auto e = node<StringExpr>(t.loc);
    while (at(TokenKind::String)) // adjacent literals concatenate
      e->value += take().text;
    return e;
  }
  case TokenKind::LParen:
    return parseParenthesized();
  case TokenKind::LBracket:
    return parseList();
  case TokenKind::LBrace:
    fail(t.loc, "dictionaries and sets ('{...}') are not supported");
  case TokenKind::ReservedKeyword:
    failUnsupportedKeyword(t);
  default:
    failExpected("an expression");
  }
}

/// '(' ')' | '(' test ')' | '(' test ',' [test (',' test)* [',']] ')'
ExprPtr Parser::parseParenthesized() {
  SourceLoc open = take().loc;
  auto tuple = node<TupleExpr>(open);
  if (accept(TokenKind::RParen))
    return finish(std::move(tuple));
  ExprPtr first = parseTest();
  if (at(TokenKind::Kw_for))
    fail(peek().loc, "generator expressions and comprehensions are not supported");
  if (accept(TokenKind::RParen))
    return first; // a parenthesized expression, not a tuple
  if (!at(TokenKind::Comma))
    failExpected("',' or ')' after the expression in parentheses");
  tuple->elements.push_back(std::move(first));
  while (accept(TokenKind::Comma)) {
    if (at(TokenKind::RParen))
      break;
    tuple->elements.push_back(parseTest());
    if (!at(TokenKind::Comma) && !at(TokenKind::RParen))
      failExpected("',' or ')' after the tuple element");
  }
  expect(TokenKind::RParen, "',' or ')' after the tuple element");
  return finish(std::move(tuple));
}

/// '[' [test (',' test)* [',']] ']'
ExprPtr Parser::parseList() {
  auto list = node<ListExpr>(take().loc);
  while (!at(TokenKind::RBracket)) {
    list->elements.push_back(parseTest());
    if (at(TokenKind::Kw_for))
      fail(peek().loc, "list comprehensions are not supported");
    if (!accept(TokenKind::Comma)) {
      if (!at(TokenKind::RBracket))
        failExpected("',' or ']' after the list element");
      break;
    }
  }
  take(); // ]
  return finish(std::move(list));
}

/// for-loop targets: bitor (',' bitor)* [','], stopping before 'in'.
ExprPtr Parser::parseTargetList() {
  SourceLoc start = peek().loc;
  ExprPtr first = parseBinary(0);
  if (!at(TokenKind::Comma))
    return first;
  auto tuple = node<TupleExpr>(start);
  tuple->elements.push_back(std::move(first));
  while (accept(TokenKind::Comma)) {
    if (at(TokenKind::Kw_in))
      break;
    tuple->elements.push_back(parseBinary(0));
  }
  return finish(std::move(tuple));
}

} // namespace argus::dsl::detail
