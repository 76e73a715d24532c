//===- ParserImpl.h - the recursive-descent parser (private) ----*- C++ -*-===//
//
// Shared by Parser.cpp (token stream, errors, limits), ParseStmt.cpp and
// ParseExpr.cpp. One method per grammar rule, named after it; each says in a
// comment which rule it parses. Errors are thrown as ParseFailure and caught
// in parseModule(), so a half-built tree is freed by unwinding and no caller
// has to check for null. Nothing outside this library sees an exception.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_FRONTEND_PARSERIMPL_H
#define ARGUS_LIB_FRONTEND_PARSERIMPL_H

#include "argus/Frontend/Lexer.h"
#include "argus/Frontend/Parser.h"

#include <array>
#include <optional>
#include <string>
#include <unordered_map>

namespace argus::dsl::detail {

/// The first error; thrown by Parser::fail.
struct ParseFailure {
  SourceLoc loc;
  std::string message;
  bool fromLexer = false;
};

class Parser {
public:
  Parser(std::string_view text, std::string path) : lexer_(text), path_(std::move(path)) {}

  /// file: (statement)* EOF. Throws ParseFailure.
  std::unique_ptr<Module> parseFile();

  /// The diagnostic to report for `failure`: Python's rule that an error
  /// inside brackets which never close is reported as "'(' was never closed".
  Diagnostic diagnose(const ParseFailure &failure);

private:
  friend struct DepthGuard;

  //===--- Tokens (Parser.cpp) ---------------------------------------------===//
  const Token &peek(size_t ahead = 0) {
    return ahead < count_ ? ring_[(head_ + ahead) % kLookahead] : fill(ahead);
  }
  const Token &fill(size_t ahead); // lexes tokens until `ahead` is buffered
  bool at(TokenKind kind) { return peek().kind == kind; }
  Token take();
  bool accept(TokenKind kind);
  /// Takes a token of `kind` or fails with "expected <what>, found <token>".
  Token expect(TokenKind kind, const std::string &what);
  [[noreturn]] void fail(SourceLoc loc, std::string message);
  /// "expected <what>, found <the next token>" at the next token.
  [[noreturn]] void failExpected(const std::string &what);
  [[noreturn]] void failUnsupportedKeyword(const Token &token);

  /// Records the height of a finished composite node and fails when it
  /// exceeds kMaxExpressionHeight. Every composite node passes through here.
  ExprPtr finish(ExprPtr e);
  unsigned heightOf(const Expr *e) const;

  //===--- Statements (ParseStmt.cpp) --------------------------------------===//
  void parseStatement(Block &out);
  void parseSimpleStatements(Block &out);
  void parseSimpleStatement(Block &out);
  StmtPtr parseExpressionStatement();
  void parseImport(Block &out);
  void parseFromImport(Block &out);
  std::string parseDottedName();
  StmtPtr parseFor();
  StmtPtr parseIf();
  StmtPtr parseFunctionDef();
  Block parseSuite(const std::string &owner, unsigned ownerLine);
  void checkAssignTarget(const Expr &target, bool augmented);
  void checkForTarget(const Expr &target);

  //===--- Expressions (ParseExpr.cpp) -------------------------------------===//
  ExprPtr parseTestList();
  ExprPtr parseTest();
  ExprPtr parseLambda();
  ExprPtr parseOrTest();
  ExprPtr parseAndTest();
  ExprPtr parseNotTest();
  ExprPtr parseComparison();
  ExprPtr parseBinary(int minPrecedence);
  ExprPtr parseFactor();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  ExprPtr parseAtom();
  ExprPtr parseParenthesized();
  ExprPtr parseList();
  ExprPtr parseCall(ExprPtr callee, SourceLoc start);
  ExprPtr parseSubscript(ExprPtr value, SourceLoc start);
  ExprPtr parseTargetList();

  Lexer lexer_;
  std::string path_;
  // Lookahead ring: the grammar needs two tokens; a reference returned by
  // peek() stays valid until that token is taken.
  static constexpr unsigned kLookahead = 4;
  std::array<Token, kLookahead> ring_;
  unsigned head_ = 0, count_ = 0;
  unsigned depth_ = 0;      // current nesting, see DepthGuard
  bool inFunction_ = false; // parsing the body of a def
  std::unordered_map<const Expr *, unsigned> heights_; // composite nodes only
};

/// Counts one level of nesting for the life of a scope; fails past
/// kMaxNestingDepth so no input can overflow the stack.
struct DepthGuard {
  DepthGuard(Parser &owner, SourceLoc loc, const char *what = "expression");
  ~DepthGuard() { --parser.depth_; }
  DepthGuard(const DepthGuard &) = delete;
  DepthGuard &operator=(const DepthGuard &) = delete;
  Parser &parser;
};

/// "a function call", "a literal", ... for "cannot assign to ..." messages.
const char *describeExpr(const Expr &e);

} // namespace argus::dsl::detail

#endif // ARGUS_LIB_FRONTEND_PARSERIMPL_H
