//===- Parser.h - parser of the Argus kernel DSL ----------------*- C++ -*-===//
//
// Entry point of the front end: text in, syntax tree (AST.h) or one precise
// diagnostic out. The grammar is a subset of Python 3's, with Python's
// precedence and associativity:
//
//   lambda  <  x if c else y  <  or  <  and  <  not  <  < <= > >= == != (chained)
//   <  |  <  ^  <  &  <  << >>  <  + -  <  * / // % @  <  unary - + ~  <  **
//   <  calls, attributes, subscripts  <  atoms
//
// Like Python it stops at the first error. It never crashes, hangs or
// overflows the stack, whatever the input: nesting is limited (see
// kMaxNestingDepth; the deepest accepted program needs under 0.5 MiB of stack
// in a release build, under 1 MiB at -O0) and the height of every expression
// tree is bounded, so later passes may recurse over the tree freely.
// Time and memory are linear in the size of the input.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_FRONTEND_PARSER_H
#define ARGUS_FRONTEND_PARSER_H

#include "argus/Frontend/AST.h"
#include "argus/Frontend/Diagnostics.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace argus::dsl {

/// Deepest nesting of brackets, operators and blocks the parser accepts
/// ("expression nested too deeply").
constexpr unsigned kMaxNestingDepth = 200;
/// Greatest height of one expression tree (long left-associative chains such
/// as `a + b + c + ...` and trailer chains `x.a.b[0](1)...` count too).
constexpr unsigned kMaxExpressionHeight = 1000;

struct ParseOutput {
  std::unique_ptr<Module> module; // null iff errors is non-empty
  std::vector<Diagnostic> errors; // at most one: the first error
};

/// Parses a whole `.argus` file. `path` is used in diagnostics and stored in
/// Module::path. Never throws.
ParseOutput parseModule(std::string_view text, std::string path);

} // namespace argus::dsl

#endif // ARGUS_FRONTEND_PARSER_H
