//===- Layout.h - CuTe-style layouts: shape:stride functions --------------===//
//
// Why this file exists: the verifier reasons about how threads and tiles map
// to memory with CuTe's layout algebra. A Layout is a pair of congruent
// IntTuples shape:stride; it is a function from an integer index (or a
// coordinate) to an integer offset:
//
//   L = (4,(2,8)):(16,(1,2))
//   L(coord (c0,(c1,c2))) = c0*16 + c1*1 + c2*2
//   L(i) = L(idx2crd(i, shape))   colexicographic: the FIRST mode is fastest.
//   size(L)   = 4*2*8 = 64       (the domain is [0, size))
//   cosize(L) = L(size-1) + 1 = 3*16 + 1*1 + 7*2 + 1 = 64
//
// The algebra on layouts (coalesce, composition, complement, inverses,
// divides, products) lives in the neighbouring headers, one operation per
// file, each a small free function with its contract and a worked example.
// Every function that can fail returns Expected<>; nothing throws or aborts.
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_LAYOUT_H
#define ARGUS_LAYOUT_LAYOUT_H

#include "argus/Layout/Expected.h"
#include "argus/Layout/IntTuple.h"

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace argus::layout {

class Layout {
public:
  const IntTuple &shape() const { return shape_; }
  const IntTuple &stride() const { return stride_; }

  bool operator==(const Layout &o) const {
    return shape_ == o.shape_ && stride_ == o.stride_;
  }
  bool operator!=(const Layout &o) const { return !(*this == o); }

private:
  friend Expected<Layout> makeLayout(IntTuple shape, IntTuple stride);
  Layout(IntTuple shape, IntTuple stride)
      : shape_(std::move(shape)), stride_(std::move(stride)) {}

  // Invariant (established by makeLayout, the only way to build a Layout):
  //  - congruent(shape_, stride_);
  //  - every leaf of shape_ is >= 1;
  //  - the product of shape_ and sum_i (s_i-1)*|d_i| fit in int64, so that
  //    size, cosize and every evaluation inside the domain cannot overflow.
  IntTuple shape_;
  IntTuple stride_;
};

/// A tiler applied by mode (CuTe's `<L0, L1, ...>`): tiler[i] acts on mode i.
using Tiler = std::vector<Layout>;

/// The checked constructor.
///   makeLayout((4,(2,8)), (16,(1,2))) prints "(4,(2,8)):(16,(1,2))"
///   makeLayout((4,2), 1) -> error "shape (4,2) and stride 1 are not congruent"
Expected<Layout> makeLayout(IntTuple shape, IntTuple stride);
/// Compact column-major (CuTe's LayoutLeft): makeLayout((4,(2,8))) =
/// (4,(2,8)):(1,(4,8)).
Expected<Layout> makeLayout(IntTuple shape);
/// Compact row-major (LayoutRight): makeLayoutRowMajor((4,(2,8))) =
/// (4,(2,8)):(16,(8,1)).
Expected<Layout> makeLayoutRowMajor(IntTuple shape);
/// Concatenation of modes: makeLayout({4:2, (2,3):(1,8)}) =
/// (4,(2,3)):(2,(1,8)).
Expected<Layout> makeLayout(const std::vector<Layout> &modes);
/// Parse "shape:stride", e.g. "(4,(2,8)):(16,(1,2))", with the checks of
/// makeLayout.
Expected<Layout> parseLayout(std::string_view text);

/// "(4,(2,8)):(16,(1,2))".
std::string toString(const Layout &l);
std::ostream &operator<<(std::ostream &os, const Layout &l);

int rank(const Layout &l);
int depth(const Layout &l);
/// Mode i as a layout. @pre 0 <= i < rank(l)
Layout mode(const Layout &l, int i);
/// The top-level modes as layouts.
std::vector<Layout> modes(const Layout &l);
/// Product of the shape.
int64_t size(const Layout &l);
/// One past the largest offset: 1 + sum_i (s_i-1)*max(d_i,0). For
/// non-negative strides this is CuTe's cosize, L(size-1)+1.
int64_t cosize(const Layout &l);
/// Flatten shape and stride: flatten((4,(2,8)):(16,(1,2))) = (4,2,8):(16,1,2).
Layout flatten(const Layout &l);
/// True when every stride is >= 0.
bool hasNonNegativeStrides(const Layout &l);

/// Colexicographic index -> natural coordinate (first mode fastest).
///   idx2crd(13, (4,(2,8))) = (1,(1,1))
/// @pre 0 <= idx < product(shape)
Expected<IntTuple> idx2crd(int64_t idx, const IntTuple &shape);

/// L(idx), idx in [0, size(L)).
///   evaluate((4,(2,8)):(16,(1,2)), 13) = 1*16 + 1*1 + 1*2 = 19
Expected<int64_t> evaluate(const Layout &l, int64_t idx);
/// L(coord), where coord is weakly congruent to the shape: an integer in
/// place of a sub-shape is a 1-D index into that sub-shape.
///   evaluate((4,(2,8)):(16,(1,2)), (1,(1,1))) = 19
///   evaluate((4,(2,8)):(16,(1,2)), (1,3))     = 16 + 1 + 2 = 19
Expected<int64_t> evaluate(const Layout &l, const IntTuple &coord);
/// CuTe's extended evaluation: the last flattened mode is unbounded, so any
/// idx >= 0 is accepted: evaluateUnbounded(4:2, 6) = 12. Composition and
/// the divides are defined with respect to this extension (see
/// Composition.h). Errors on idx < 0 or int64 overflow.
Expected<int64_t> evaluateUnbounded(const Layout &l, int64_t idx);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_LAYOUT_H
