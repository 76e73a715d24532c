//===- Lexer.h - tokenizer of the Argus kernel DSL --------------*- C++ -*-===//
//
// Produces tokens on demand, the way Python's tokenizer does, so that the
// first error reported is the first one in reading order: a bad character on
// line 90 must not hide a syntax error on line 3.
//
// Python rules it follows: INDENT/DEDENT from leading spaces; blank and
// comment-only lines produce nothing; newlines inside () [] {} and after a
// backslash join lines; CRLF and lone CR end lines; a UTF-8 BOM is skipped.
// Deliberate restrictions: tabs in indentation, non-ASCII outside strings and
// comments, f-strings, bytes and imaginary literals, and integers beyond
// 64 bits are errors.
//
// Columns count Unicode code points (1-based), so a caret printed under a
// column lines up even after non-ASCII text in a string.
//
// After the first error `next()` returns `TokenKind::Error` forever and
// `error()` describes it; after the end `next()` returns `EndOfFile` forever.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_FRONTEND_LEXER_H
#define ARGUS_FRONTEND_LEXER_H

#include "argus/Frontend/Token.h"

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace argus::dsl {

struct LexError {
  SourceLoc loc;
  std::string message;
  /// The error is "'(' was never closed": the file ended inside brackets.
  bool unclosedBracket = false;
};

class Lexer {
public:
  /// At most this many nested indented blocks ("too many levels of indentation").
  static constexpr unsigned kMaxIndentDepth = 100;
  /// At most this many open brackets at once ("too many nested brackets"); the
  /// parser's own nesting limit (kMaxNestingDepth) normally triggers first.
  static constexpr unsigned kMaxBracketDepth = 1000;

  explicit Lexer(std::string_view text);

  /// The next token; `Error` once an error was found, then forever.
  Token next();

  const std::optional<LexError> &error() const { return error_; }

  /// The innermost bracket still open, if any (for "'(' was never closed").
  std::optional<SourceLoc> innermostOpenBracket() const;

  /// Convenience for tests and tools: every token up to and including
  /// `EndOfFile`, or up to and including the `Error` token.
  static std::vector<Token> tokenize(std::string_view text, std::optional<LexError> *error);

private:
  struct OpenBracket {
    char ch;
    SourceLoc loc;
  };

  // Character access.
  bool atEnd() const { return pos_ >= text_.size(); }
  char peekChar(size_t ahead = 0) const;
  bool atNewline() const;
  void advance();        // one byte, updating line/column
  void advanceNewline(); // \n, \r\n or \r
  SourceLoc here() const { return {line_, col_}; }

  // Scanning (Lexer.cpp; literals in LexLiterals.cpp).
  bool lexLineStart(); // indentation of a new logical line; false on error
  Token lexToken();
  Token lexName();
  Token lexNumber();
  Token lexString(SourceLoc start, std::string_view prefix);
  Token lexOperator();
  Token lexNonAscii();
  bool decodeEscape(std::string &out); // false: error_ is set

  Token make(TokenKind kind, SourceLoc loc, std::string text); // a real token
  static Token layoutToken(TokenKind kind, SourceLoc loc);     // Newline, Indent, ...
  Token fail(SourceLoc loc, std::string message, bool unclosedBracket = false);

  std::string_view text_;
  size_t pos_ = 0;
  unsigned line_ = 1, col_ = 1;
  bool atLineStart_ = true;    // next token starts a logical line
  bool lineHasTokens_ = false; // a token was produced on this logical line
  SourceLoc lastTokenEnd_{1, 1};
  std::vector<unsigned> indents_{0};
  std::vector<OpenBracket> brackets_;
  std::deque<Token> pending_; // queued Dedent/Newline/EndOfFile tokens
  std::optional<LexError> error_;
  bool finished_ = false;
};

} // namespace argus::dsl

#endif // ARGUS_FRONTEND_LEXER_H
