//===- Lexer.cpp - tokenizer of the Argus kernel DSL ----------------------===//
//
// A hand-written, pull-based version of Python's tokenizer (see Lexer.h for
// the rules). Every loop consumes at least one byte or returns, so the lexer
// terminates on any input; nothing recurses.
//
//===----------------------------------------------------------------------===//
#include "argus/Frontend/Lexer.h"

#include <charconv>
#include <cstdio>

namespace argus::dsl {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isIdentStart(char c) { return isAlpha(c) || c == '_'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
int hexValue(char c) {
  if (isDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
bool isDigitOfBase(char c, unsigned base) {
  int v = hexValue(c);
  return v >= 0 && unsigned(v) < base;
}

std::string hexByte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", unsigned(c));
  return buf;
}
std::string codePointName(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", unsigned(cp));
  return buf;
}

/// Length of the valid UTF-8 sequence at `s`, and its code point; 0 if invalid.
size_t decodeUtf8(std::string_view s, uint32_t &cp) {
  auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  if (s.empty()) return 0;
  unsigned char c = b(0);
  size_t len;
  if (c < 0x80) { cp = c; return 1; }
  if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
  else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
  else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
  else return 0;
  if (s.size() < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((b(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

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

static Token layoutToken(TokenKind kind, SourceLoc loc) {
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

Token Lexer::lexNumber() {
  SourceLoc start = here();
  size_t begin = pos_;
  auto spellingSoFar = [&] { return std::string(text_.substr(begin, pos_ - begin)); };
  auto tooLarge = [&](const std::string &spelling) {
    return fail(start, "integer literal " + spelling +
                           " is too large: integers must fit in 64 bits (at most 2^63 - 1)");
  };
  constexpr uint64_t kMaxMagnitude = uint64_t(1) << 63; // allowed only when negated

  // 0x.. 0o.. 0b..
  char p = char(peekChar(1) | 0x20);
  if (peekChar() == '0' && (p == 'x' || p == 'o' || p == 'b')) {
    unsigned base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
    const char *name = p == 'x' ? "hexadecimal" : p == 'o' ? "octal" : "binary";
    advance();
    advance();
    uint64_t value = 0;
    bool overflow = false, anyDigit = false;
    for (;;) {
      if (peekChar() == '_' && isDigitOfBase(peekChar(1), base))
        advance();
      if (!isDigitOfBase(peekChar(), base))
        break;
      uint64_t d = uint64_t(hexValue(peekChar()));
      if (value > (kMaxMagnitude - d) / base)
        overflow = true;
      else
        value = value * base + d;
      anyDigit = true;
      advance();
    }
    if (!anyDigit)
      return fail(start, std::string("invalid ") + name + " literal '" + spellingSoFar() +
                             "': expected digits after the prefix");
    if (isDigit(peekChar()))
      return fail(here(), std::string("invalid digit '") + peekChar() + "' in " + name +
                              " literal");
    if (isIdentChar(peekChar()))
      return fail(start, std::string("invalid ") + name + " literal '" + spellingSoFar() +
                             peekChar() + "'");
    if (overflow)
      return tooLarge(spellingSoFar());
    Token t = make(TokenKind::Int, start, spellingSoFar());
    t.intValue = value;
    return t;
  }

  // Decimal integers and floats: digits may be separated by single '_'.
  std::string clean;
  bool bad = false;
  auto readDigits = [&] {
    while (isDigit(peekChar())) {
      clean += peekChar();
      advance();
      if (peekChar() == '_') {
        if (!isDigit(peekChar(1)))
          bad = true;
        advance();
      }
    }
  };
  bool isFloat = false;
  readDigits();
  if (!bad && peekChar() == '.') {
    isFloat = true;
    clean += '.';
    advance();
    if (peekChar() == '_')
      bad = true;
    readDigits();
  }
  char e = peekChar();
  if (!bad && (e == 'e' || e == 'E') &&
      (isDigit(peekChar(1)) ||
       ((peekChar(1) == '+' || peekChar(1) == '-') && isDigit(peekChar(2))))) {
    isFloat = true;
    clean += 'e';
    advance();
    if (peekChar() == '+' || peekChar() == '-') {
      clean += peekChar();
      advance();
    }
    readDigits();
  }
  if (!bad && (peekChar() == 'j' || peekChar() == 'J'))
    return fail(start, "imaginary literals are not supported");
  if (bad || isIdentChar(peekChar())) {
    while (isIdentChar(peekChar()) || peekChar() == '.')
      advance();
    return fail(start, "invalid decimal literal '" + spellingSoFar() + "'");
  }

  std::string spelling = spellingSoFar();
  if (isFloat) {
    double value = 0;
    auto [ptr, ec] = std::from_chars(clean.data(), clean.data() + clean.size(), value);
    if (ec == std::errc::result_out_of_range)
      return fail(start, "float literal " + spelling + " is out of the range of a double");
    if (ec != std::errc() || ptr != clean.data() + clean.size())
      return fail(start, "invalid float literal '" + spelling + "'");
    Token t = make(TokenKind::Float, start, spelling);
    t.floatValue = value;
    return t;
  }
  if (clean.size() > 1 && clean[0] == '0' &&
      clean.find_first_not_of('0') != std::string::npos)
    return fail(start, "leading zeros in decimal integer literals are not permitted; use an "
                       "0o prefix for octal integers");
  uint64_t value = 0;
  for (char c : clean) {
    uint64_t d = uint64_t(c - '0');
    if (value > (kMaxMagnitude - d) / 10)
      return tooLarge(spelling);
    value = value * 10 + d;
  }
  Token t = make(TokenKind::Int, start, spelling);
  t.intValue = value;
  return t;
}

Token Lexer::lexString(SourceLoc start, std::string_view prefix) {
  bool raw = prefix.find_first_of("rR") != std::string_view::npos;
  char quote = peekChar();
  bool triple = peekChar(1) == quote && peekChar(2) == quote;
  for (int i = 0; i < (triple ? 3 : 1); ++i)
    advance();

  std::string value;
  for (;;) {
    if (atEnd())
      return fail(start, triple ? "unterminated triple-quoted string literal"
                                : "unterminated string literal");
    char c = peekChar();
    if (c == quote) {
      if (!triple) {
        advance();
        break;
      }
      if (peekChar(1) == quote && peekChar(2) == quote) {
        advance();
        advance();
        advance();
        break;
      }
      value += c;
      advance();
      continue;
    }
    if (atNewline()) {
      if (!triple)
        return fail(start, "unterminated string literal (a string that spans lines needs "
                           "triple quotes)");
      value += '\n';
      advanceNewline();
      continue;
    }
    if (c == '\\') {
      if (raw) { // the backslash stays, and protects the next character
        value += c;
        advance();
        if (atNewline()) {
          value += '\n';
          advanceNewline();
        } else if (!atEnd() && static_cast<unsigned char>(peekChar()) < 0x80) {
          value += peekChar();
          advance();
        }
        continue;
      }
      if (!decodeEscape(value, triple))
        return layoutToken(TokenKind::Error, error_->loc);
      continue;
    }
    if (c == '\0')
      return fail(here(), "null bytes are not allowed in source files");
    if (static_cast<unsigned char>(c) >= 0x80) {
      uint32_t cp = 0;
      size_t len = decodeUtf8(text_.substr(pos_, 4), cp);
      if (len == 0)
        return fail(here(), "invalid UTF-8 byte " + hexByte(static_cast<unsigned char>(c)) +
                                " in string literal (source files must be UTF-8)");
      value.append(text_.substr(pos_, len));
      for (size_t i = 0; i < len; ++i)
        advance();
      continue;
    }
    value += c;
    advance();
  }
  return make(TokenKind::String, start, std::move(value));
}

bool Lexer::decodeEscape(std::string &out, bool /*triple*/) {
  SourceLoc loc = here();
  advance(); // the backslash
  if (atEnd())
    return true; // the caller reports the unterminated string
  if (atNewline()) {
    advanceNewline(); // backslash-newline continues the string
    return true;
  }
  char c = peekChar();
  auto simple = [&](char decoded) {
    out += decoded;
    advance();
    return true;
  };
  auto hexEscape = [&](unsigned digits) {
    advance(); // x, u or U
    uint32_t cp = 0;
    for (unsigned i = 0; i < digits; ++i) {
      int v = hexValue(peekChar());
      if (atEnd() || v < 0) {
        fail(loc, std::string("invalid \\") + c + " escape: expected " +
                      std::to_string(digits) + " hexadecimal digits");
        return false;
      }
      cp = cp * 16 + uint32_t(v);
      advance();
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      fail(loc, "escape \\" + std::string(1, c) + " names an invalid code point " +
                    codePointName(cp));
      return false;
    }
    appendUtf8(out, cp);
    return true;
  };
  switch (c) {
  case 'n': return simple('\n');
  case 't': return simple('\t');
  case 'r': return simple('\r');
  case '\\': return simple('\\');
  case '\'': return simple('\'');
  case '"': return simple('"');
  case 'a': return simple('\a');
  case 'b': return simple('\b');
  case 'f': return simple('\f');
  case 'v': return simple('\v');
  case 'x': return hexEscape(2);
  case 'u': return hexEscape(4);
  case 'U': return hexEscape(8);
  default: break;
  }
  if (c >= '0' && c <= '7') {
    uint32_t cp = 0;
    for (int i = 0; i < 3 && peekChar() >= '0' && peekChar() <= '7'; ++i) {
      cp = cp * 8 + uint32_t(peekChar() - '0');
      advance();
    }
    appendUtf8(out, cp);
    return true;
  }
  if (static_cast<unsigned char>(c) >= 0x80 || c < 0x20)
    fail(loc, "invalid escape sequence in string literal (supported: \\n \\t \\r \\\\ \\' \\\" "
              "\\xhh \\uhhhh)");
  else
    fail(loc, std::string("invalid escape sequence '\\") + c +
                  "' in string literal (supported: \\n \\t \\r \\\\ \\' \\\" \\xhh \\uhhhh; "
                  "write '\\\\' for a backslash)");
  return false;
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
