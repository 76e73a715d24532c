//===- Lexer.cpp - tokenizer of the Argus kernel DSL ----------------------===//
//
// A hand-written, pull-based version of Python's tokenizer (see Lexer.h for
// the rules): layout (lines, indentation, end of file), names, keywords and
// operators. Literals live in LexLiterals.cpp. Every loop consumes at least
// one byte or returns, so the lexer terminates on any input; nothing recurses.
//
//===----------------------------------------------------------------------===//
#include "argus/Frontend/Lexer.h"

#include "CharInfo.h"

namespace argus::dsl {

using namespace charinfo;

namespace {

struct KeywordEntry {
  std::string_view word;
  TokenKind kind;
};
const KeywordEntry kKeywords[] = {
    {"and", TokenKind::Kw_and},       {"as", TokenKind::Kw_as},
    {"assert", TokenKind::Kw_assert}, {"def", TokenKind::Kw_def},
    {"elif", TokenKind::Kw_elif},     {"else", TokenKind::Kw_else},
    {"False", TokenKind::Kw_False},   {"for", TokenKind::Kw_for},
    {"from", TokenKind::Kw_from},     {"if", TokenKind::Kw_if},
    {"import", TokenKind::Kw_import}, {"in", TokenKind::Kw_in},
    {"is", TokenKind::Kw_is},         {"lambda", TokenKind::Kw_lambda},
    {"None", TokenKind::Kw_None},     {"not", TokenKind::Kw_not},
    {"or", TokenKind::Kw_or},         {"pass", TokenKind::Kw_pass},
    {"return", TokenKind::Kw_return}, {"True", TokenKind::Kw_True},
};
const std::string_view kReservedKeywords[] = {
    "async", "await", "break", "class",  "continue", "del",   "except", "finally",
    "global", "nonlocal", "raise", "try", "while",   "with",  "yield",
};

struct OperatorEntry {
  std::string_view text;
  TokenKind kind;
};
// Longest first: the lexer takes the first entry that matches.
const OperatorEntry kOperators[] = {
    {"**=", TokenKind::DoubleStarEqual}, {"//=", TokenKind::DoubleSlashEqual},
    {">>=", TokenKind::RShiftEqual},     {"<<=", TokenKind::LShiftEqual},
    {"**", TokenKind::DoubleStar},       {"//", TokenKind::DoubleSlash},
    {"<<", TokenKind::LShift},           {">>", TokenKind::RShift},
    {"<=", TokenKind::LessEqual},        {">=", TokenKind::GreaterEqual},
    {"==", TokenKind::EqualEqual},       {"!=", TokenKind::NotEqual},
    {"->", TokenKind::Arrow},            {":=", TokenKind::ColonEqual},
    {"+=", TokenKind::PlusEqual},        {"-=", TokenKind::MinusEqual},
    {"*=", TokenKind::StarEqual},        {"/=", TokenKind::SlashEqual},
    {"%=", TokenKind::PercentEqual},     {"@=", TokenKind::AtEqual},
    {"&=", TokenKind::AmpEqual},         {"|=", TokenKind::PipeEqual},
    {"^=", TokenKind::CaretEqual},       {"(", TokenKind::LParen},
    {")", TokenKind::RParen},            {"[", TokenKind::LBracket},
    {"]", TokenKind::RBracket},          {"{", TokenKind::LBrace},
    {"}", TokenKind::RBrace},            {",", TokenKind::Comma},
    {":", TokenKind::Colon},             {";", TokenKind::Semicolon},
    {".", TokenKind::Dot},               {"@", TokenKind::At},
    {"=", TokenKind::Equal},             {"+", TokenKind::Plus},
    {"-", TokenKind::Minus},             {"*", TokenKind::Star},
    {"/", TokenKind::Slash},             {"%", TokenKind::Percent},
    {"&", TokenKind::Amp},               {"|", TokenKind::Pipe},
    {"^", TokenKind::Caret},             {"~", TokenKind::Tilde},
    {"<", TokenKind::Less},              {">", TokenKind::Greater},
};

const char *bracketWord(char c) {
  switch (c) {
  case '(': case ')': return "parenthesis";
  case '[': case ']': return "bracket";
  default: return "brace";
  }
}
char closingOf(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

} // namespace

//===----------------------------------------------------------------------===//
// Character access
//===----------------------------------------------------------------------===//

Lexer::Lexer(std::string_view text) : text_(text) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF")
    pos_ = 3; // the BOM is not part of line 1's columns
}

char Lexer::peekChar(size_t ahead) const {
  return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
}

bool Lexer::atNewline() const {
  return !atEnd() && (text_[pos_] == '\n' || text_[pos_] == '\r');
}

void Lexer::advance() {
  unsigned char c = static_cast<unsigned char>(text_[pos_++]);
  if ((c & 0xC0) != 0x80) // continuation bytes do not start a column
    ++col_;
}

void Lexer::advanceNewline() {
  if (text_[pos_] == '\r' && peekChar(1) == '\n')
    ++pos_;
  ++pos_;
  ++line_;
  col_ = 1;
}

Token Lexer::make(TokenKind kind, SourceLoc loc, std::string text) {
  Token t;
  t.kind = kind;
  t.loc = loc;
  t.endLoc = here();
  t.text = std::move(text);
  lastTokenEnd_ = t.endLoc;
  lineHasTokens_ = true;
  return t;
}

Token Lexer::layoutToken(TokenKind kind, SourceLoc loc) {
  Token t;
  t.kind = kind;
  t.loc = t.endLoc = loc;
  return t;
}

Token Lexer::fail(SourceLoc loc, std::string message, bool unclosedBracket) {
  if (!error_)
    error_ = LexError{loc, std::move(message), unclosedBracket};
  pending_.clear();
  return layoutToken(TokenKind::Error, error_->loc);
}

std::optional<SourceLoc> Lexer::innermostOpenBracket() const {
  if (brackets_.empty())
    return std::nullopt;
  return brackets_.back().loc;
}

//===----------------------------------------------------------------------===//
// Layout: lines, indentation, end of file
//===----------------------------------------------------------------------===//

Token Lexer::next() {
  if (!pending_.empty()) {
    Token t = std::move(pending_.front());
    pending_.pop_front();
    return t;
  }
  if (error_)
    return layoutToken(TokenKind::Error, error_->loc);
  if (finished_)
    return layoutToken(TokenKind::EndOfFile, lastTokenEnd_);

  for (;;) {
    if (atLineStart_) {
      if (!lexLineStart())
        return layoutToken(TokenKind::Error, error_->loc);
      if (!pending_.empty())
        return next();
    }
    while (!atEnd() && (peekChar() == ' ' || peekChar() == '\t' || peekChar() == '\f'))
      advance();

    if (atEnd()) {
      if (!brackets_.empty()) {
        const OpenBracket &b = brackets_.back();
        return fail(b.loc, std::string("'") + b.ch + "' was never closed",
                    /*unclosedBracket=*/true);
      }
      finished_ = true;
      if (lineHasTokens_)
        pending_.push_back(layoutToken(TokenKind::Newline, lastTokenEnd_));
      lineHasTokens_ = false;
      for (size_t i = 1; i < indents_.size(); ++i)
        pending_.push_back(layoutToken(TokenKind::Dedent, lastTokenEnd_));
      indents_.resize(1);
      pending_.push_back(layoutToken(TokenKind::EndOfFile, lastTokenEnd_));
      return next();
    }

    char c = peekChar();
    if (c == '#') {
      while (!atEnd() && !atNewline())
        advance();
      continue;
    }
    if (c == '\\') {
      SourceLoc loc = here();
      advance();
      if (atEnd())
        return fail(loc, "unexpected end of file after line continuation character '\\'");
      if (!atNewline())
        return fail(loc, "unexpected character after line continuation character '\\' "
                         "(expected a newline right after it)");
      advanceNewline();
      continue;
    }
    if (atNewline()) {
      advanceNewline();
      if (!brackets_.empty())
        continue; // implicit line joining
      atLineStart_ = true;
      if (lineHasTokens_) {
        lineHasTokens_ = false;
        return layoutToken(TokenKind::Newline, lastTokenEnd_);
      }
      continue;
    }
    return lexToken();
  }
}

bool Lexer::lexLineStart() {
  for (;;) {
    unsigned width = 0;
    std::optional<SourceLoc> tab;
    while (!atEnd()) {
      char c = peekChar();
      if (c == ' ') {
        ++width;
      } else if (c == '\t') {
        if (!tab)
          tab = here();
      } else if (c == '\f') {
        width = 0; // Python resets the count at a form feed
      } else {
        break;
      }
      advance();
    }
    if (atEnd())
      return true; // the caller produces the end-of-file tokens
    if (peekChar() == '#') {
      while (!atEnd() && !atNewline())
        advance();
    }
    if (atEnd())
      return true;
    if (atNewline()) { // blank or comment-only line
      advanceNewline();
      continue;
    }

    // A line with tokens: its indentation matters.
    if (tab) {
      fail(*tab, "tabs are not allowed for indentation; use spaces");
      return false;
    }
    atLineStart_ = false;
    SourceLoc loc = here();
    if (width > indents_.back()) {
      if (indents_.size() > kMaxIndentDepth) {
        fail(loc, "too many levels of indentation (at most " +
                      std::to_string(kMaxIndentDepth) + ")");
        return false;
      }
      indents_.push_back(width);
      pending_.push_back(layoutToken(TokenKind::Indent, loc));
      return true;
    }
    unsigned popped = indents_.back();
    while (width < indents_.back()) {
      popped = indents_.back();
      indents_.pop_back();
      pending_.push_back(layoutToken(TokenKind::Dedent, loc));
    }
    if (width != indents_.back()) {
      fail(loc, "unindent does not match any outer indentation level: expected column " +
                    std::to_string(indents_.back() + 1) + " or " + std::to_string(popped + 1) +
                    ", found column " + std::to_string(width + 1));
      return false;
    }
    return true;
  }
}

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

Token Lexer::lexToken() {
  char c = peekChar();
  if (static_cast<unsigned char>(c) >= 0x80)
    return lexNonAscii();
  if (isIdentStart(c))
    return lexName();
  if (isDigit(c) || (c == '.' && isDigit(peekChar(1))))
    return lexNumber();
  if (c == '\'' || c == '"')
    return lexString(here(), "");
  return lexOperator();
}

Token Lexer::lexNonAscii() {
  SourceLoc loc = here();
  uint32_t cp = 0;
  size_t len = decodeUtf8(text_.substr(pos_, 4), cp);
  if (len == 0)
    return fail(loc, "invalid UTF-8 byte " + hexByte(static_cast<unsigned char>(peekChar())) +
                         " at line " + std::to_string(loc.line) + ", column " +
                         std::to_string(loc.col) + " (source files must be UTF-8)");
  return fail(loc, "non-ASCII character '" + std::string(text_.substr(pos_, len)) + "' (" +
                       codePointName(cp) + ") at line " + std::to_string(loc.line) +
                       ", column " + std::to_string(loc.col) +
                       ": only strings and comments may contain non-ASCII text");
}

Token Lexer::lexName() {
  SourceLoc start = here();
  size_t begin = pos_;
  while (!atEnd() && isIdentChar(peekChar()))
    advance();
  std::string word(text_.substr(begin, pos_ - begin));

  if (peekChar() == '\'' || peekChar() == '"') {
    std::string lower;
    for (char c : word)
      lower += char(c | 0x20);
    if (lower == "r" || lower == "u")
      return lexString(start, word);
    if (lower == "f" || lower == "fr" || lower == "rf")
      return fail(start, "f-strings are not supported; use a plain string literal");
    if (lower == "b" || lower == "br" || lower == "rb")
      return fail(start, "bytes literals are not supported; use a plain string literal");
  }
  if (word.size() <= 8) { // the longest keyword, "continue"
    for (const KeywordEntry &k : kKeywords)
      if (word == k.word)
        return make(k.kind, start, std::move(word));
    for (std::string_view r : kReservedKeywords)
      if (word == r)
        return make(TokenKind::ReservedKeyword, start, std::move(word));
  }
  return make(TokenKind::Name, start, std::move(word));
}

Token Lexer::lexOperator() {
  SourceLoc loc = here();
  std::string_view rest = text_.substr(pos_, 3);
  for (const OperatorEntry &op : kOperators) {
    size_t n = op.text.size();
    if (op.text[0] != rest[0] || rest.substr(0, n) != op.text)
      continue;
    char c = op.text[0];
    if (n == 1 && (c == '(' || c == '[' || c == '{')) {
      if (brackets_.size() >= kMaxBracketDepth)
        return fail(loc, "too many nested brackets (at most " +
                             std::to_string(kMaxBracketDepth) + ")");
      brackets_.push_back({c, loc});
    } else if (n == 1 && (c == ')' || c == ']' || c == '}')) {
      if (brackets_.empty())
        return fail(loc, std::string("unmatched '") + c + "'");
      OpenBracket open = brackets_.back();
      if (closingOf(open.ch) != c)
        return fail(loc, std::string("closing ") + bracketWord(c) + " '" + c +
                             "' does not match opening " + bracketWord(open.ch) + " '" +
                             open.ch + "' on line " + std::to_string(open.loc.line) +
                             " (expected '" + closingOf(open.ch) + "')");
      brackets_.pop_back();
    }
    for (size_t i = 0; i < n; ++i)
      advance();
    return make(op.kind, loc, std::string(op.text));
  }

  char c = peekChar();
  if (c == '!')
    return fail(loc, "invalid character '!' (U+0021): use 'not' for negation and '!=' for "
                     "inequality");
  if (c == '\0')
    return fail(loc, "null bytes are not allowed in source files");
  if (c >= 0x20 && c < 0x7F)
    return fail(loc, std::string("invalid character '") + c + "' (" +
                         codePointName(static_cast<unsigned char>(c)) + ")");
  return fail(loc, "invalid control character " + codePointName(static_cast<unsigned char>(c)));
}

std::vector<Token> Lexer::tokenize(std::string_view text, std::optional<LexError> *error) {
  Lexer lexer(text);
  std::vector<Token> tokens;
  for (;;) {
    tokens.push_back(lexer.next());
    TokenKind k = tokens.back().kind;
    if (k == TokenKind::EndOfFile || k == TokenKind::Error)
      break;
  }
  if (error)
    *error = lexer.error();
  return tokens;
}

} // namespace argus::dsl
