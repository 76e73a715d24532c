//===- Division.h - division by constants without dividers -------*- C++ -*-===//
//
// Index arithmetic is full of `kt % STAGES` and `x / TILE`. Bit-blasted, each
// division by a constant is a whole divider circuit, and a query holds many
// (every loop iteration the memory window replays substitutes a new one):
// a 3-stage pipeline took seconds. Each such term is replaced by a fresh
// quotient or remainder tied to its dividend by x == q * c + r with r in
// range, checked in double width so that nothing wraps: multiplication by a
// constant is a few adders. The rewrite is equisatisfiable, and models still
// evaluate the original terms.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_VERIFY_DIVISION_H
#define ARGUS_LIB_VERIFY_DIVISION_H

#include <z3++.h>

#include <vector>

namespace argus::verify::detail {

/// Rewrites `constraints` in place and appends the definitions of the fresh
/// quotients and remainders.
void eliminateConstantDivision(z3::context &ctx, std::vector<z3::expr> &constraints);

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_DIVISION_H
