//===- Divide.h - Tiling a layout: logical/zipped/tiled/flat divides ------===//
//
// Why this file exists: dividing a data layout by a tile layout is how a
// kernel's tiles and each tile's position are described; the verifier checks
// kernels' partitions against these definitions.
//
//   logical_divide(A, B) = A o (B, complement(B, size(A)))
//
// Mode arrangements with a by-mode tiler <T0, T1> of A = (M, N, L, ...):
//   logicalDivide : ((T0,R0), (T1,R1), L, ...)
//   zippedDivide  : ((T0,T1), (R0,R1,L,...))
//   tiledDivide   : ((T0,T1), R0, R1, L, ...)
//   flatDivide    : (T0, T1, R0, R1, L, ...)
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_DIVIDE_H
#define ARGUS_LAYOUT_DIVIDE_H

#include "argus/Layout/Layout.h"

#include <vector>

namespace argus::layout {

/// 1-D divide: ((tile),(rest)).
///   logicalDivide((4,2,3):(2,1,8), 4:2) = ((2,2),(2,3)):((4,1),(2,8))
/// @pre B's strides >= 0, B complementable within size(A), and the
///      composition admissible (errors otherwise).
/// @post mode(result,0) == composition(A, B);
///       result(k) == evaluateUnbounded(coalesce(A), (B, B*)(k)) for all k.
Expected<Layout> logicalDivide(const Layout &a, const Layout &b);

/// By-mode divide: mode i of A divided by tiler[i], other modes kept.
///   logicalDivide((9,(4,8)):(59,(13,1)), <3:3, (2,4):(1,8)>)
///     = ((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))
/// @pre tiler.size() <= rank(A)
Expected<Layout> logicalDivide(const Layout &a, const Tiler &tiler);

/// ((T0,T1,...),(R0,R1,...,L,...)).
///   zippedDivide((9,(4,8)):(59,(13,1)), <3:3, (2,4):(1,8)>)
///     = ((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))
/// @post mode(result,0) == composition(A, tiler)
Expected<Layout> zippedDivide(const Layout &a, const Tiler &tiler);
/// ((T0,T1,...),R0,R1,...,L,...).
Expected<Layout> tiledDivide(const Layout &a, const Tiler &tiler);
/// (T0,T1,...,R0,R1,...,L,...).
Expected<Layout> flatDivide(const Layout &a, const Tiler &tiler);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_DIVIDE_H
