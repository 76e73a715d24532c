//===- ParseStmt.cpp - statements of the Argus kernel DSL -----------------===//
//
// Grammar rules for files, statements and blocks (a subset of Python 3's):
//
//   file        := statement* EOF
//   statement   := funcdef | for | if | simple (';' simple)* [';'] NEWLINE
//   simple      := pass | return [testlist] | assert test [',' test]
//                | import | from-import | testlist [('=' | augop) testlist]
//   for         := 'for' targets 'in' testlist ':' suite
//   if          := 'if' test ':' suite ('elif' test ':' suite)* ['else' ':' suite]
//   funcdef     := ('@' test NEWLINE)* 'def' NAME '(' [param (',' param)* [',']] ')' ':' suite
//   param       := NAME [':' test] ['=' test]
//   suite       := simple-statements on the same line | NEWLINE INDENT statement+ DEDENT
//
// Python features outside the DSL (while, class, nested def, for-else,
// chained or annotated assignment, ...) get an error that names them.
//
//===----------------------------------------------------------------------===//
#include "ParserImpl.h"

#include <set>

namespace argus::dsl::detail {

template <typename T> static std::unique_ptr<T> node(SourceLoc loc) {
  return std::make_unique<T>(loc);
}

static std::optional<BinaryOp> augmentedOp(TokenKind kind) {
  switch (kind) {
  case TokenKind::PlusEqual: return BinaryOp::Add;
  case TokenKind::MinusEqual: return BinaryOp::Sub;
  case TokenKind::StarEqual: return BinaryOp::Mul;
  case TokenKind::SlashEqual: return BinaryOp::Div;
  case TokenKind::DoubleSlashEqual: return BinaryOp::FloorDiv;
  case TokenKind::PercentEqual: return BinaryOp::Mod;
  case TokenKind::DoubleStarEqual: return BinaryOp::Pow;
  case TokenKind::AtEqual: return BinaryOp::MatMul;
  case TokenKind::AmpEqual: return BinaryOp::BitAnd;
  case TokenKind::PipeEqual: return BinaryOp::BitOr;
  case TokenKind::CaretEqual: return BinaryOp::BitXor;
  case TokenKind::LShiftEqual: return BinaryOp::LShift;
  case TokenKind::RShiftEqual: return BinaryOp::RShift;
  default: return std::nullopt;
  }
}

std::unique_ptr<Module> Parser::parseFile() {
  auto module = std::make_unique<Module>();
  module->path = path_;
  while (!at(TokenKind::EndOfFile))
    parseStatement(module->body);
  return module;
}

void Parser::parseStatement(Block &out) {
  const Token &t = peek();
  switch (t.kind) {
  case TokenKind::Newline:
    take();
    return;
  case TokenKind::Indent:
    fail(t.loc, "unexpected indent");
  case TokenKind::At:
  case TokenKind::Kw_def:
    if (inFunction_)
      fail(t.loc, "nested functions are not supported; define helpers at module level");
    out.push_back(parseFunctionDef());
    return;
  case TokenKind::Kw_for:
    out.push_back(parseFor());
    return;
  case TokenKind::Kw_if:
    out.push_back(parseIf());
    return;
  default:
    parseSimpleStatements(out);
    return;
  }
}

void Parser::parseSimpleStatements(Block &out) {
  for (;;) {
    parseSimpleStatement(out);
    if (!accept(TokenKind::Semicolon) || at(TokenKind::Newline))
      break;
  }
  if (!at(TokenKind::Newline))
    failExpected("newline or ';' after the statement");
  take();
}

void Parser::parseSimpleStatement(Block &out) {
  const Token &t = peek();
  switch (t.kind) {
  case TokenKind::Kw_pass:
    out.push_back(node<PassStmt>(take().loc));
    return;
  case TokenKind::Kw_return: {
    if (!inFunction_)
      fail(t.loc, "'return' outside a function");
    auto ret = node<ReturnStmt>(take().loc);
    if (startsExpression(peek().kind))
      ret->value = parseTestList();
    out.push_back(std::move(ret));
    return;
  }
  case TokenKind::Kw_assert: {
    auto a = node<AssertStmt>(take().loc);
    a->condition = parseTest();
    if (accept(TokenKind::Comma))
      a->message = parseTest();
    out.push_back(std::move(a));
    return;
  }
  case TokenKind::Kw_import:
    parseImport(out);
    return;
  case TokenKind::Kw_from:
    parseFromImport(out);
    return;
  case TokenKind::At:
  case TokenKind::Kw_def:
    if (inFunction_)
      fail(t.loc, "nested functions are not supported; define helpers at module level");
    [[fallthrough]];
  case TokenKind::Kw_for:
  case TokenKind::Kw_if:
    fail(t.loc, "a compound statement (" + describe(t) +
                    ") cannot follow ':' on the same line; start it on a new, indented line");
  case TokenKind::Kw_elif:
  case TokenKind::Kw_else:
    fail(t.loc, describe(t) + " must follow an 'if' block at the same indentation");
  case TokenKind::ReservedKeyword:
    failUnsupportedKeyword(t);
  default:
    out.push_back(parseExpressionStatement());
    return;
  }
}

/// testlist [('=' testlist) | (augop testlist)]
StmtPtr Parser::parseExpressionStatement() {
  SourceLoc start = peek().loc;
  ExprPtr first = parseTestList();
  if (at(TokenKind::Equal)) {
    checkAssignTarget(*first, /*augmented=*/false);
    take();
    auto assign = node<AssignStmt>(start);
    assign->target = std::move(first);
    assign->value = parseTestList();
    if (at(TokenKind::Equal))
      fail(peek().loc, "chained assignment ('a = b = value') is not supported; assign one "
                       "target per statement");
    return assign;
  }
  if (std::optional<BinaryOp> op = augmentedOp(peek().kind)) {
    checkAssignTarget(*first, /*augmented=*/true);
    take();
    auto aug = node<AugAssignStmt>(start);
    aug->target = std::move(first);
    aug->op = *op;
    aug->value = parseTestList();
    return aug;
  }
  if (at(TokenKind::Colon))
    fail(peek().loc, "annotated assignments ('x: T = value') are not supported; write "
                     "'x = value'");
  if (at(TokenKind::ColonEqual))
    fail(peek().loc, "the ':=' operator is not supported; use a separate assignment");
  auto stmt = node<ExprStmt>(start);
  stmt->value = std::move(first);
  return stmt;
}

void Parser::checkAssignTarget(const Expr &target, bool augmented) {
  switch (target.kind) {
  case ExprKind::Name:
  case ExprKind::Attribute:
  case ExprKind::Subscript:
    return;
  case ExprKind::Tuple: {
    if (augmented)
      fail(target.loc, "cannot use a tuple as the target of an augmented assignment (expected "
                       "a name, a subscript or an attribute)");
    const auto &elements = target.as<TupleExpr>()->elements;
    if (elements.empty())
      fail(target.loc, "cannot assign to an empty tuple");
    for (const ExprPtr &e : elements)
      checkAssignTarget(*e, false);
    return;
  }
  default:
    fail(target.loc, std::string("cannot assign to ") + describeExpr(target) + " (expected " +
                         (augmented ? "a name, a subscript or an attribute)"
                                    : "a name, a tuple of names, a subscript or an attribute)"));
  }
}

/// 'import' dotted ['as' NAME] (',' dotted ['as' NAME])*
void Parser::parseImport(Block &out) {
  take(); // import
  do {
    SourceLoc loc = peek().loc;
    auto imp = node<ImportStmt>(loc);
    imp->module = parseDottedName();
    if (accept(TokenKind::Kw_as))
      expect(TokenKind::Name, "a name after 'as'");
    out.push_back(std::move(imp));
  } while (accept(TokenKind::Comma));
}

/// 'from' dotted 'import' ('*' | names | '(' names [','] ')')
void Parser::parseFromImport(Block &out) {
  auto imp = node<ImportStmt>(take().loc);
  if (at(TokenKind::Dot))
    fail(peek().loc, "relative imports are not supported");
  imp->module = parseDottedName();
  expect(TokenKind::Kw_import, "'import' after the module name");
  if (!accept(TokenKind::Star)) {
    bool parenthesized = accept(TokenKind::LParen);
    for (;;) {
      expect(TokenKind::Name, "a name to import");
      if (accept(TokenKind::Kw_as))
        expect(TokenKind::Name, "a name after 'as'");
      if (!accept(TokenKind::Comma) || (parenthesized && at(TokenKind::RParen)))
        break;
    }
    if (parenthesized)
      expect(TokenKind::RParen, "',' or ')' after the imported name");
  }
  out.push_back(std::move(imp));
}

std::string Parser::parseDottedName() {
  std::string name = expect(TokenKind::Name, "a module name").text;
  while (accept(TokenKind::Dot))
    name += "." + expect(TokenKind::Name, "a name after '.' in the module name").text;
  return name;
}

/// 'for' targets 'in' testlist ':' suite
StmtPtr Parser::parseFor() {
  Token kw = take();
  auto loop = node<ForStmt>(kw.loc);
  loop->target = parseTargetList();
  checkForTarget(*loop->target);
  expect(TokenKind::Kw_in, "'in' after the for-loop target");
  loop->iter = parseTestList();
  expect(TokenKind::Colon, "':' after the for-loop header");
  loop->body = parseSuite("'for' statement", kw.loc.line);
  if (at(TokenKind::Kw_else))
    fail(peek().loc, "'else' after a for-loop is not supported");
  return loop;
}

void Parser::checkForTarget(const Expr &target) {
  if (target.kind == ExprKind::Name)
    return;
  if (const auto *tuple = target.as<TupleExpr>(); tuple && !tuple->elements.empty()) {
    for (const ExprPtr &e : tuple->elements)
      checkForTarget(*e);
    return;
  }
  fail(target.loc, std::string("expected a name or a tuple of names as the for-loop target, "
                               "found ") +
                       describeExpr(target));
}

/// ('if' | 'elif') test ':' suite [elif... | 'else' ':' suite]
StmtPtr Parser::parseIf() {
  Token kw = take();
  DepthGuard guard(*this, kw.loc, "statements (counting each 'elif')");
  const char *word = kw.is(TokenKind::Kw_if) ? "'if'" : "'elif'";
  auto stmt = node<IfStmt>(kw.loc);
  stmt->condition = parseTest();
  expect(TokenKind::Colon, std::string("':' after the ") + word + " condition");
  stmt->body = parseSuite(std::string(word) + " statement", kw.loc.line);
  if (at(TokenKind::Kw_elif)) {
    stmt->orElse.push_back(parseIf());
  } else if (at(TokenKind::Kw_else)) {
    Token elseTok = take();
    expect(TokenKind::Colon, "':' after 'else'");
    stmt->orElse = parseSuite("'else' statement", elseTok.loc.line);
  }
  return stmt;
}

/// decorators 'def' NAME '(' params ')' ':' suite
StmtPtr Parser::parseFunctionDef() {
  std::vector<ExprPtr> decorators;
  while (at(TokenKind::At)) {
    take();
    decorators.push_back(parseTest());
    expect(TokenKind::Newline, "newline after the decorator");
  }
  if (at(TokenKind::ReservedKeyword) && peek().text == "class")
    failUnsupportedKeyword(peek());
  Token kw = expect(TokenKind::Kw_def, "'def' after the decorator");
  auto fn = node<FunctionDef>(kw.loc);
  fn->decorators = std::move(decorators);
  Token name = expect(TokenKind::Name, "a function name after 'def'");
  fn->name = name.text;
  fn->nameLoc = name.loc;
  expect(TokenKind::LParen, "'(' after the function name '" + fn->name + "'");

  std::set<std::string> seen;
  bool sawDefault = false;
  while (!at(TokenKind::RParen)) {
    if (at(TokenKind::Star) || at(TokenKind::DoubleStar))
      fail(peek().loc, "variadic parameters ('*args', '**kwargs') are not supported");
    if (at(TokenKind::Slash))
      fail(peek().loc, "the positional-only marker '/' is not supported");
    Token p = expect(TokenKind::Name, "a parameter name");
    if (!seen.insert(p.text).second)
      fail(p.loc, "duplicate parameter '" + p.text + "' in function '" + fn->name + "'");
    Param param;
    param.name = p.text;
    param.loc = p.loc;
    if (accept(TokenKind::Colon))
      param.annotation = parseTest();
    if (accept(TokenKind::Equal)) {
      param.defaultValue = parseTest();
      sawDefault = true;
    } else if (sawDefault) {
      fail(p.loc, "parameter '" + p.text + "' without a default follows a parameter with a "
                  "default");
    }
    fn->params.push_back(std::move(param));
    if (!accept(TokenKind::Comma)) {
      if (!at(TokenKind::RParen))
        failExpected("',' or ')' after parameter '" + p.text + "'");
      break;
    }
  }
  take(); // ')'
  if (at(TokenKind::Arrow))
    fail(peek().loc, "return annotations ('->') are not supported");
  expect(TokenKind::Colon, "':' after the parameter list of '" + fn->name + "'");
  inFunction_ = true;
  fn->body = parseSuite("function definition", kw.loc.line);
  inFunction_ = false;
  return fn;
}

/// suite := simple statements on the same line | NEWLINE INDENT statement+ DEDENT
Block Parser::parseSuite(const std::string &owner, unsigned ownerLine) {
  DepthGuard guard(*this, peek().loc, "statements");
  Block block;
  if (!at(TokenKind::Newline)) {
    parseSimpleStatements(block);
    return block;
  }
  take();
  if (!at(TokenKind::Indent))
    failExpected("an indented block after " + owner + " on line " + std::to_string(ownerLine));
  take();
  while (!at(TokenKind::Dedent) && !at(TokenKind::EndOfFile))
    parseStatement(block);
  accept(TokenKind::Dedent);
  return block;
}

} // namespace argus::dsl::detail
