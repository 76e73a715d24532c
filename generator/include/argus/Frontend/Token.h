//===- Token.h - tokens of the Argus kernel DSL -----------------*- C++ -*-===//
//
// The lexer turns a `.argus` file into the token stream Python's tokenizer
// would produce (NEWLINE / INDENT / DEDENT included), restricted to what the
// DSL uses. The parser only ever looks at these tokens, never at characters.
//
//   for kt in range(n):        Kw_for Name Kw_in Name ( Name ) : Newline
//       acc += 1               Indent Name += Int Newline
//                              Dedent EndOfFile
//
// Python keywords the DSL does not support (`while`, `class`, ...) are lexed
// as `ReservedKeyword` so the parser can say "'while' loops are not supported"
// instead of a puzzling "expected ..." message.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_FRONTEND_TOKEN_H
#define ARGUS_FRONTEND_TOKEN_H

#include "argus/Frontend/AST.h"

#include <cstdint>
#include <string>

namespace argus::dsl {

enum class TokenKind : uint8_t {
  // Layout.
  EndOfFile,
  Newline, // end of a logical line
  Indent,  // the line is indented deeper than the enclosing block
  Dedent,  // one enclosing block ends
  Error,   // the lexer failed; Lexer::error() says why

  // Atoms.
  Name,   // identifier that is not a keyword
  Int,    // integer literal; Token::intValue holds its magnitude
  Float,  // float literal; Token::floatValue
  String, // string literal; Token::text holds the decoded value

  // Keywords the DSL uses.
  Kw_and, Kw_as, Kw_assert, Kw_def, Kw_elif, Kw_else, Kw_False, Kw_for,
  Kw_from, Kw_if, Kw_import, Kw_in, Kw_is, Kw_lambda, Kw_None, Kw_not, Kw_or,
  Kw_pass, Kw_return, Kw_True,
  ReservedKeyword, // other Python keywords: while, class, break, ... (text)

  // Brackets and punctuation.
  LParen, RParen, LBracket, RBracket, LBrace, RBrace,
  Comma, Colon, Semicolon, Dot, At, Equal, Arrow /* -> */, ColonEqual /* := */,

  // Operators.
  Plus, Minus, Star, Slash, DoubleSlash, Percent, DoubleStar, Amp, Pipe,
  Caret, Tilde, LShift, RShift,
  Less, LessEqual, Greater, GreaterEqual, EqualEqual, NotEqual,

  // Augmented assignment operators.
  PlusEqual, MinusEqual, StarEqual, SlashEqual, DoubleSlashEqual,
  PercentEqual, DoubleStarEqual, AtEqual, AmpEqual, PipeEqual, CaretEqual,
  LShiftEqual, RShiftEqual,
};

struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  SourceLoc loc;    // first character
  SourceLoc endLoc; // one past the last character (same line for most tokens)
  /// Names, keywords, numbers, operators: the source spelling.
  /// Strings: the decoded value (escapes resolved, prefix and quotes removed).
  std::string text;
  /// Int: the magnitude, at most 2^63 (so `-9223372036854775808` can be
  /// written); the parser rejects 2^63 unless it is negated.
  uint64_t intValue = 0;
  double floatValue = 0; // Float only

  bool is(TokenKind k) const { return kind == k; }
};

/// Fixed spelling of a token kind for messages: "'+'", "'for'", "newline",
/// "end of file", "name", ...
const char *spelling(TokenKind kind);

/// What a diagnostic calls this token after "found": "name 'acc'",
/// "integer literal 42", "string literal", "keyword 'else'", "')'", "newline".
std::string describe(const Token &token);

/// True for the tokens that can begin an expression.
bool startsExpression(TokenKind kind);

} // namespace argus::dsl

#endif // ARGUS_FRONTEND_TOKEN_H
