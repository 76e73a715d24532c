//===- Complement.h - The layout of the "rest" of a codomain --------------===//
//
// Why this file exists: the complement of a tile layout enumerates the tile's
// translates that cover a codomain; it is how divides and products build the
// "rest" mode, and how the verifier proves that a set of tiles covers a
// buffer without overlap.
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_COMPLEMENT_H
#define ARGUS_LAYOUT_COMPLEMENT_H

#include "argus/Layout/Layout.h"

namespace argus::layout {

/// complement(A, M): the ordered layout R with
///   - R(i) != A(j) unless both are 0 (disjoint images, up to the origin);
///   - (A, R) is injective;
///   - size(A)*size(R) >= M, and cosize of (A, R) >= M (covers [0, M));
///   - R's strides are increasing (R is "sorted") and R is coalesced.
///   complement(4:2, 24)           = (2,3):(1,8)
///   complement((2,2):(1,6), 24)   = (3,2):(2,12)
///   complement(4:1, 24)           = 6:4
///   complement((2,2):(1,3), 12) -> error (stride 3 is not a multiple of 2)
/// @pre A's strides are >= 0, and, sorted by stride, each mode's stride is a
///      multiple of the span of the smaller modes (A is injective and
///      complementable); stride-0 and extent-1 modes are ignored. M >= 1.
Expected<Layout> complement(const Layout &a, int64_t cotarget);
/// complement(A, cosize(A)).
Expected<Layout> complement(const Layout &a);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_COMPLEMENT_H
