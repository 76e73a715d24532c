//===- Composition.h - Functional composition of layouts -----------------===//
//
// Why this file exists: composition is the core of the algebra: it re-indexes
// a layout by another one (partitioning a tile among threads, selecting a
// sub-tile). The verifier needs it to be exact, and to say why when a pair of
// layouts cannot be composed into a layout.
//
// Semantics (as CuTe): R = A o B is the layout with R(i) == A(B(i)) for all
// i in [0, size(B)), where A is taken with CuTe's extension: its last mode
// (after coalescing) is unbounded, so B may reach past size(A). Precisely,
//   R(i) == evaluateUnbounded(coalesce(A), B(i)),
// and R(i) == A(B(i)) whenever B(i) < size(A). R has the shape of B
// (left-distributive over B's modes), with each integer mode of B refined.
//
// Admissibility (CuTe's conditions, checked on coalesce(A) = (a_0..a_n) :
// (r_0..r_n) against each integer mode s:d of B while dividing it through
// the modes of A):
//   - stride divisibility: the remaining stride d' divides a_k or a_k
//     divides d';
//   - shape divisibility: when a mode of A contributes m < s' elements,
//     m divides the remaining shape s'.
//   - no carry (checked here, implicit in CuTe): when B has several modes,
//     A o B is computed mode by mode, which equals A(B(i)) only if adding
//     the offsets of B's modes never carries across a mode boundary of
//     coalesce(A); e.g. (4,8):(1,100) o (4,2):(1,2) is rejected.
// B's strides must be >= 0 (A's may be negative).
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_COMPOSITION_H
#define ARGUS_LAYOUT_COMPOSITION_H

#include "argus/Layout/Layout.h"

namespace argus::layout {

/// A o B.
///   composition((6,2):(8,2), (4,3):(3,1)) = ((2,2),3):((24,2),8)
///   composition(20:2, (5,4):(4,1))        = (5,4):(8,2)
///   composition((4,3):(1,10), 6:1) -> error "... not admissible: ..."
/// @post shape(result) is B's shape with integer modes possibly refined;
///       result(i) == evaluateUnbounded(coalesce(A), B(i)) for all i.
Expected<Layout> composition(const Layout &a, const Layout &b);

/// By-mode composition with a tiler of layouts (CuTe's composition with a
/// tuple of layouts): mode i of A is composed with tiler[i]; modes of A
/// beyond the tiler are kept.
///   composition((12,(4,8)):(59,(13,1)), {3:4, 8:2}) = (3,(2,4)):(236,(26,1))
/// @pre tiler.size() <= rank(A)
Expected<Layout> composition(const Layout &a, const Tiler &tiler);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_COMPOSITION_H
