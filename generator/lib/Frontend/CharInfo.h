//===- CharInfo.h - character classes and UTF-8 for the lexer ---*- C++ -*-===//
//
// Private to the front end: the ASCII classes the DSL's tokens are made of,
// and the UTF-8 decoding/encoding the lexer needs for strings and for naming
// a stray non-ASCII character in a diagnostic. Locale-independent on purpose
// (<cctype> depends on the C locale).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_FRONTEND_CHARINFO_H
#define ARGUS_LIB_FRONTEND_CHARINFO_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace argus::dsl::charinfo {

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool isIdentStart(char c) { return isAlpha(c) || c == '_'; }
inline bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
inline int hexValue(char c) {
  if (isDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
inline bool isDigitOfBase(char c, unsigned base) {
  int v = hexValue(c);
  return v >= 0 && unsigned(v) < base;
}

inline std::string hexByte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", unsigned(c));
  return buf;
}
inline std::string codePointName(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", unsigned(cp));
  return buf;
}

/// Length of the valid UTF-8 sequence at `s`, and its code point; 0 if invalid.
inline size_t decodeUtf8(std::string_view s, uint32_t &cp) {
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

inline void appendUtf8(std::string &out, uint32_t cp) {
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

} // namespace argus::dsl::charinfo

#endif // ARGUS_LIB_FRONTEND_CHARINFO_H
