//===- Coalesce.h - Simplest layout computing the same function -----------===//
//
// Why this file exists: coalescing is the normal form that composition,
// complement and the inverses start from, and the way the verifier compares
// two layouts as functions.
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_COALESCE_H
#define ARGUS_LAYOUT_COALESCE_H

#include "argus/Layout/Layout.h"

namespace argus::layout {

/// Flatten, drop extent-1 modes, and merge each adjacent pair s0:d0, s1:d1
/// with s0*d0 == d1 into (s0*s1):d0. A single remaining mode is returned as
/// an integer shape; no mode at all gives 1:0.
///   coalesce((2,(1,6)):(1,(6,2))) = 12:1
///   coalesce((4,3):(3,1))         = (4,3):(3,1)
/// @post size(result) == size(l), result(i) == l(i) for all i in [0,size),
///       depth(result) <= 1, and no two adjacent modes of result merge.
Layout coalesce(const Layout &l);

/// Coalesce each top-level mode separately, keeping the rank (CuTe's
/// coalesce(layout, Shape<_1,_1,...>{})):
///   coalesceModes(((2,3),(5,4)):((5,10),(1,30))) = (6,(5,4)):(5,(1,30))
Layout coalesceModes(const Layout &l);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_COALESCE_H
