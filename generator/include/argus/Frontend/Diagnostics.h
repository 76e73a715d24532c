//===- Diagnostics.h - user-facing errors of the DSL front end --*- C++ -*-===//
//
// Every error the front end reports names the file, the exact 1-based line
// and column, and says what was expected and what was found. This header is
// the one place that decides how such an error is printed, so the parser,
// the lowering and the tools all print them the same way:
//
//   kernels/gemm.argus:7:24: error: expected ':' after the for-loop header, found newline
//       for kt in range(n)
//                         ^
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_FRONTEND_DIAGNOSTICS_H
#define ARGUS_FRONTEND_DIAGNOSTICS_H

#include "argus/Frontend/AST.h"

#include <string>
#include <string_view>

namespace argus::dsl {

struct Diagnostic {
  std::string file;
  SourceLoc loc;
  std::string message;
};

/// "file:line:col: error: message\n  <source line>\n  <spaces>^\n" (caret under
/// the column; tabs kept so it lines up). Columns count code points. When
/// `loc.line` is not a line of `sourceText` only the first line is printed.
/// The caret may sit one past the end of the line (an error at a newline).
std::string formatDiagnostic(const Diagnostic &d, std::string_view sourceText);

/// The `line`-th (1-based) line of `text` without its line terminator (\n,
/// \r\n or \r) and, on line 1, without a UTF-8 byte order mark. Empty when the
/// line does not exist.
std::string_view sourceLine(std::string_view text, unsigned line);

} // namespace argus::dsl

#endif // ARGUS_FRONTEND_DIAGNOSTICS_H
