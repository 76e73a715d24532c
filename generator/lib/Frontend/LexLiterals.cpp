//===- LexLiterals.cpp - number and string literals of the DSL ------------===//
//
// Python's literal syntax, minus what the DSL cannot use: integers (decimal,
// 0x, 0o, 0b, '_' separators, at most 2^63), floats (1.0, 1e-3, .5, 1_000.5),
// and strings ('..', "..", triple-quoted, r/u prefixes, the usual escapes).
// f-strings, bytes, imaginary numbers and 64-bit overflow are errors with a
// message that says so.
//
//===----------------------------------------------------------------------===//
#include "argus/Frontend/Lexer.h"

#include "CharInfo.h"

#include <charconv>

namespace argus::dsl {

using namespace charinfo;

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
      if (!decodeEscape(value))
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

bool Lexer::decodeEscape(std::string &out) {
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

} // namespace argus::dsl
