//===- Inverse.h - Right and left inverses of layouts ---------------------===//
//
// Why this file exists: inverses turn "offset -> index" questions into layout
// evaluations: which thread owns this offset (left inverse), and how far a
// layout is contiguous (the size of its right inverse), which the verifier
// uses to prove vectorized accesses legal.
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_INVERSE_H
#define ARGUS_LAYOUT_INVERSE_H

#include "argus/Layout/Layout.h"

namespace argus::layout {

/// The largest-domain layout R with L(R(i)) == i for all i in [0, size(R)):
/// R enumerates, in order, the contiguous prefix [0, size(R)) of L's image.
///   rightInverse((4,2):(2,1)) = (2,4):(4,1)
///   rightInverse(4:2)         = 1:0       (offset 1 is never reached)
///   rightInverse((8,4):(4,1)) = (4,8):(8,1)
/// Modes with stride <= 0 are never used. Always exists (possibly 1:0).
/// @post for all i in [0, size(R)): L(R(i)) == i
Layout rightInverse(const Layout &l);

/// A layout R with R(L(i)) == i for all i in [0, size(L)). Computed as
/// rightInverse((L, complement(L))); it exists iff L is injective and
/// complementable (non-negative strides, sorted modes tile without gaps
/// other than whole multiples).
///   leftInverse(4:2)           = (2,4):(4,1)
///   leftInverse((2,4):(4,1))   = (4,2):(2,1)
///   leftInverse((2,2):(0,1)) -> error "... is not injective ..."
/// @post for all i in [0, size(L)): R(L(i)) == i
Expected<Layout> leftInverse(const Layout &l);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_INVERSE_H
