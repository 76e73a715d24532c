//===- PhysicalMap.cpp - logical to physical offsets, symbolically ------===//

#include "PhysicalMap.h"

#include "argus/Dialect/Argus.h"
#include "argus/Layout/Inverse.h"

namespace argus::verify::detail {

namespace {

std::optional<layout::IntTuple> toIntTuple(mlir::Attribute a) {
  if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(a))
    return layout::IntTuple(i.getInt());
  auto array = llvm::dyn_cast<mlir::ArrayAttr>(a);
  if (!array)
    return std::nullopt;
  std::vector<layout::IntTuple> elems;
  for (mlir::Attribute e : array) {
    std::optional<layout::IntTuple> t = toIntTuple(e);
    if (!t)
      return std::nullopt;
    elems.push_back(*t);
  }
  return layout::IntTuple::tuple(std::move(elems));
}

/// CuTe evaluation of flattened modes: sum_j ((i / prod(shape[<j])) % shape[j]) * stride[j].
z3::expr evaluateModes(SymContext &ctx, const std::vector<int64_t> &shape,
                       const std::vector<int64_t> &stride, const z3::expr &index) {
  z3::expr out = ctx.index(0);
  int64_t below = 1;
  for (size_t j = 0; j < shape.size(); ++j) {
    z3::expr coord = shape[j] == 1 ? ctx.index(0)
                                   : z3::urem(z3::udiv(index, ctx.index(below)), ctx.index(shape[j]));
    out = out + coord * ctx.index(stride[j]);
    below *= shape[j];
  }
  return out;
}

} // namespace

PhysicalMap PhysicalMap::fromAttr(mlir::Attribute attr, std::string &error) {
  PhysicalMap m;
  if (!attr)
    return m;
  if (auto s = llvm::dyn_cast<SwizzleAttr>(attr)) {
    m.kind = Kind::Swizzle;
    m.swizzle = {s.getBits(), s.getBase(), s.getShift()};
    return m;
  }
  auto l = llvm::dyn_cast<LayoutAttr>(attr);
  std::optional<layout::IntTuple> shape = l ? toIntTuple(l.getShape()) : std::nullopt;
  std::optional<layout::IntTuple> stride = l ? toIntTuple(l.getStride()) : std::nullopt;
  layout::Expected<layout::Layout> built =
      shape && stride ? layout::makeLayout(*shape, *stride)
                      : layout::Expected<layout::Layout>(layout::makeError("not a layout attribute"));
  if (!built) {
    error = "cannot read the buffer layout: " + built.error().message;
    return m;
  }
  layout::Expected<layout::Layout> inverse = layout::leftInverse(*built);
  if (!inverse) {
    error = "the buffer layout " + layout::toString(*built) +
            " has no left inverse, so the verifier cannot tell which element an offset holds: " +
            inverse.error().message;
    return m;
  }
  m.kind = Kind::Layout;
  m.shape = layout::leaves(layout::flatten(built->shape()));
  m.stride = layout::leaves(layout::flatten(built->stride()));
  m.inverseShape = layout::leaves(layout::flatten(inverse->shape()));
  m.inverseStride = layout::leaves(layout::flatten(inverse->stride()));
  return m;
}

bool PhysicalMap::operator==(const PhysicalMap &o) const {
  return kind == o.kind && swizzle == o.swizzle && shape == o.shape && stride == o.stride;
}

z3::expr PhysicalMap::apply(SymContext &ctx, const z3::expr &index) const {
  switch (kind) {
  case Kind::RowMajor:
    return index;
  case Kind::Swizzle: {
    auto [b, m, s] = swizzle;
    int64_t yyy = ((int64_t(1) << b) - 1) << (m + std::max<int64_t>(0, s));
    z3::expr masked = index & ctx.index(yyy);
    z3::expr moved = s >= 0 ? z3::lshr(masked, ctx.index(s)) : z3::shl(masked, ctx.index(-s));
    return index ^ moved;
  }
  case Kind::Layout:
    return evaluateModes(ctx, shape, stride, index);
  }
  return index;
}

z3::expr PhysicalMap::invert(SymContext &ctx, const z3::expr &offset) const {
  switch (kind) {
  case Kind::RowMajor:
    return offset;
  case Kind::Swizzle:
    return apply(ctx, offset); // an involution
  case Kind::Layout:
    return evaluateModes(ctx, inverseShape, inverseStride, offset);
  }
  return offset;
}

} // namespace argus::verify::detail
