//===- Product.h - Replicating a layout: logical/blocked/raked products ---===//
//
// Why this file exists: products describe how a tile (of threads, of values)
// is replicated across a larger arrangement; the verifier uses them to build
// the expected thread/value layouts of copies and MMAs.
//
//   logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B)
//
// blockedProduct and rakedProduct are rank-sensitive: A and B are padded to
// the same rank with 1:0 modes, and mode i of the result combines mode i of A
// with mode i of the replication (A first: blocks; replication first: rakes,
// i.e. a cyclic distribution); each resulting mode is coalesced.
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_PRODUCT_H
#define ARGUS_LAYOUT_PRODUCT_H

#include "argus/Layout/Layout.h"

namespace argus::layout {

/// (A, A* o B).
///   logicalProduct((2,2):(4,1), 6:1)     = ((2,2),(2,3)):((4,1),(2,8))
///   logicalProduct((2,2):(4,1), (4,2):(2,1)) = ((2,2),(4,2)):((4,1),(8,2))
/// @pre A's strides >= 0 and A complementable; the composition admissible.
/// @post mode(result,0) == A; size(result) == size(A)*size(B); when A and B
///       are injective, result is injective.
Expected<Layout> logicalProduct(const Layout &a, const Layout &b);

/// Blocks of A arranged by B.
///   blockedProduct((2,5):(5,1), (3,4):(1,3)) = (6,(5,4)):(5,(1,30))
/// @post result((a0,b0),(a1,b1)) == logicalProduct(A,B)((a0,a1),(b0,b1))
///       (for rank 2; likewise for any rank)
Expected<Layout> blockedProduct(const Layout &a, const Layout &b);

/// A raked (interleaved) across B.
///   rakedProduct((2,5):(5,1), (3,4):(1,3)) = ((3,2),(4,5)):((10,5),(30,1))
/// @post result((b0,a0),(b1,a1)) == logicalProduct(A,B)((a0,a1),(b0,b1))
Expected<Layout> rakedProduct(const Layout &a, const Layout &b);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_PRODUCT_H
