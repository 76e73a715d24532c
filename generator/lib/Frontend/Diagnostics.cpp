//===- Diagnostics.cpp - printing front-end errors with a caret -----------===//
//
// One format for every DSL error (see Diagnostics.h). The caret line copies
// the tabs of the source line so it lines up in any terminal, and columns
// count code points to match the lexer.
//
//===----------------------------------------------------------------------===//
#include "argus/Frontend/Diagnostics.h"

namespace argus::dsl {

std::string_view sourceLine(std::string_view text, unsigned line) {
  if (line == 0)
    return {};
  size_t pos = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    pos = 3;
  for (unsigned current = 1; current < line; ++current) {
    size_t eol = text.find_first_of("\r\n", pos);
    if (eol == std::string_view::npos)
      return {};
    pos = eol + ((text[eol] == '\r' && eol + 1 < text.size() && text[eol + 1] == '\n') ? 2 : 1);
  }
  if (pos > text.size())
    return {};
  size_t eol = text.find_first_of("\r\n", pos);
  return text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
}

/// True when `text` has a `line`-th line (possibly empty: "a\n" has line 2).
static bool hasLine(std::string_view text, unsigned line) {
  if (line == 0)
    return false;
  unsigned lines = 1;
  for (size_t i = 0; i < text.size() && lines < line; ++i) {
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n')))
      ++lines;
  }
  return lines >= line;
}

std::string formatDiagnostic(const Diagnostic &d, std::string_view sourceText) {
  std::string out = d.file + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) +
                    ": error: " + d.message + "\n";
  if (!hasLine(sourceText, d.loc.line))
    return out;
  std::string_view line = sourceLine(sourceText, d.loc.line);
  out += "  ";
  out += line;
  out += "\n  ";
  // One pad character per code point before the column; tabs are kept.
  unsigned col = 1;
  for (size_t i = 0; i < line.size() && col < d.loc.col; ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if ((c & 0xC0) == 0x80)
      continue; // continuation byte of the previous code point
    out += c == '\t' ? '\t' : ' ';
    ++col;
  }
  // Past the end of the line (an error at a newline): plain spaces, bounded.
  for (; col < d.loc.col && col <= line.size() + 1; ++col)
    out += ' ';
  out += "^\n";
  return out;
}

} // namespace argus::dsl
