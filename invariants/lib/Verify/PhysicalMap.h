//===- PhysicalMap.h - logical to physical offsets, symbolically -*- C++ -*-===//
//
// How a buffer (or one access's view of a slot) places a linear logical index
// in storage, as the interpreter and the backends do:
//
//   row-major   identity
//   swizzle     CuTe Swizzle<B,M,S> on the index (an involution, |S| >= B)
//   layout      CuTe layout evaluation: the index decomposed over the
//               flattened shape, first mode fastest, dotted with the strides
//
// The inverse maps a physical offset back to the logical index; a layout has
// one when it is injective and complementable (its left inverse, from the
// layout algebra in argus/Layout), else the verifier reports the buffer as
// not modelled rather than guessing.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_VERIFY_PHYSICALMAP_H
#define ARGUS_LIB_VERIFY_PHYSICALMAP_H

#include "Symbolic.h"

#include "mlir/IR/Attributes.h"

#include <array>

namespace argus::verify::detail {

class PhysicalMap {
public:
  /// Identity (row-major storage).
  PhysicalMap() = default;
  /// From a buffer type's or view's #argus.swizzle / #argus.layout (null:
  /// identity). Sets `error` when a layout has no inverse.
  static PhysicalMap fromAttr(mlir::Attribute attr, std::string &error);

  bool isIdentity() const { return kind == Kind::RowMajor; }
  bool operator==(const PhysicalMap &o) const;

  z3::expr apply(SymContext &ctx, const z3::expr &index) const;
  /// The logical index stored at `offset` (meaningful for offsets in the image).
  z3::expr invert(SymContext &ctx, const z3::expr &offset) const;

private:
  enum class Kind { RowMajor, Swizzle, Layout } kind = Kind::RowMajor;
  std::array<int64_t, 3> swizzle{};
  // Flattened modes of the layout and of its left inverse.
  std::vector<int64_t> shape, stride, inverseShape, inverseStride;
};

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_PHYSICALMAP_H
