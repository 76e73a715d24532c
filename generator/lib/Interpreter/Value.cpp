//===- Value.cpp - element rounding, host memory and buffer storage ------===//
//
// The numeric ground rules of the interpreter live here and nowhere else:
// how a double becomes an element of each type, how elements are read from
// and written to host tensors, and where a buffer's logical elements sit in
// its physical storage.
//
//===----------------------------------------------------------------------===//
#include "Value.h"

#include "argus_numerics.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;

namespace argus::interp::detail {

std::optional<ElemType> ElemType::get(Type type) {
  if (type.isF64())
    return ElemType{ElemKind::F64, 64};
  if (type.isF32())
    return ElemType{ElemKind::F32, 32};
  if (type.isF16())
    return ElemType{ElemKind::F16, 16};
  if (type.isBF16())
    return ElemType{ElemKind::BF16, 16};
  if (isa<Float8E4M3FNType>(type))
    return ElemType{ElemKind::F8E4M3FN, 8};
  if (isa<Float8E4M3FNUZType>(type))
    return ElemType{ElemKind::F8E4M3FNUZ, 8};
  if (type.isIndex())
    return ElemType{ElemKind::Int, 64};
  if (auto i = dyn_cast<IntegerType>(type))
    if (i.isSignless() && i.getWidth() >= 1 && i.getWidth() <= 64)
      return ElemType{ElemKind::Int, i.getWidth()};
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Rounding and conversion
//===----------------------------------------------------------------------===//

static const llvm::fltSemantics &f8Semantics(ElemKind kind) {
  return kind == ElemKind::F8E4M3FNUZ ? llvm::APFloat::Float8E4M3FNUZ() : llvm::APFloat::Float8E4M3FN();
}

static double f8ToDouble(ElemKind kind, uint8_t bits) {
  llvm::APFloat f(f8Semantics(kind), llvm::APInt(8, bits));
  return f.convertToDouble();
}

static uint8_t doubleToF8(ElemKind kind, double v) {
  llvm::APFloat f(v);
  bool losesInfo = false;
  f.convert(f8Semantics(kind), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return static_cast<uint8_t>(f.bitcastToAPInt().getZExtValue());
}

double roundFloat(ElemKind kind, double v) {
  switch (kind) {
  case ElemKind::F64:
    return v;
  case ElemKind::F32:
    return static_cast<float>(v);
  case ElemKind::F16:
    return argus_num::f16_to_f32(argus_num::f32_to_f16(static_cast<float>(v)));
  case ElemKind::BF16:
    return argus_num::bf16_to_f32(argus_num::f32_to_bf16(static_cast<float>(v)));
  case ElemKind::F8E4M3FN:
  case ElemKind::F8E4M3FNUZ:
    return f8ToDouble(kind, doubleToF8(kind, v));
  case ElemKind::Int:
    break;
  }
  return v;
}

Elem elemFromDouble(ElemType type, double v) {
  if (type.isFloat())
    return Elem::ofFloat(roundFloat(type.kind, v));
  if (type.width == 1)
    return Elem::ofInt(v != 0 ? -1 : 0); // a truth value: nonzero is true
  if (std::isnan(v))
    return Elem::ofInt(0);
  // Saturate to the signed range of the width, then truncate toward zero.
  double lo = -std::ldexp(1.0, type.width - 1);
  double hi = std::ldexp(1.0, type.width - 1);
  if (v <= lo)
    return Elem::ofInt(type.width >= 64 ? std::numeric_limits<int64_t>::min()
                                        : -(int64_t(1) << (type.width - 1)));
  if (v >= hi)
    return Elem::ofInt(type.width >= 64 ? std::numeric_limits<int64_t>::max()
                                        : (int64_t(1) << (type.width - 1)) - 1);
  return Elem::ofInt(static_cast<int64_t>(std::trunc(v)));
}

double elemToDouble(ElemType type, Elem e) {
  if (type.isFloat())
    return e.f();
  if (type.width == 1)
    return e.i() != 0 ? 1.0 : 0.0;
  return static_cast<double>(e.i());
}

Elem convertElem(ElemType from, ElemType to, Elem e) {
  if (to.isFloat())
    return Elem::ofFloat(roundFloat(to.kind, elemToDouble(from, e)));
  if (from.isFloat())
    return elemFromDouble(to, e.f());
  if (to.width == 1)
    return Elem::ofInt(e.i() != 0 ? -1 : 0);
  if (from.width == 1) // a truth value becomes 0 / 1
    return Elem::ofInt(e.i() != 0 ? 1 : 0);
  return Elem::ofInt(wrapInt(to.width, e.i()));
}

Elem poisonElem(ElemType type) {
  if (type.isFloat())
    return Elem::ofFloat(std::numeric_limits<double>::quiet_NaN());
  if (type.width == 1)
    return Elem::ofInt(0);
  return Elem::ofInt(type.width >= 64 ? std::numeric_limits<int64_t>::min()
                                      : -(int64_t(1) << (type.width - 1)));
}

//===----------------------------------------------------------------------===//
// Host memory
//===----------------------------------------------------------------------===//

template <typename T> static T load(const void *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T> static void put(void *p, T v) { std::memcpy(p, &v, sizeof v); }

Elem readHostElem(ElemType type, const void *p) {
  switch (type.kind) {
  case ElemKind::F64:
    return Elem::ofFloat(load<double>(p));
  case ElemKind::F32:
    return Elem::ofFloat(load<float>(p));
  case ElemKind::F16:
    return Elem::ofFloat(argus_num::f16_to_f32(load<uint16_t>(p)));
  case ElemKind::BF16:
    return Elem::ofFloat(argus_num::bf16_to_f32(load<uint16_t>(p)));
  case ElemKind::F8E4M3FN:
  case ElemKind::F8E4M3FNUZ:
    return Elem::ofFloat(f8ToDouble(type.kind, load<uint8_t>(p)));
  case ElemKind::Int:
    break;
  }
  if (type.width == 1)
    return Elem::ofInt(load<uint8_t>(p) != 0 ? -1 : 0);
  if (type.width <= 8)
    return Elem::ofInt(wrapInt(type.width, load<int8_t>(p)));
  if (type.width <= 16)
    return Elem::ofInt(wrapInt(type.width, load<int16_t>(p)));
  if (type.width <= 32)
    return Elem::ofInt(wrapInt(type.width, load<int32_t>(p)));
  return Elem::ofInt(wrapInt(type.width, load<int64_t>(p)));
}

void writeHostElem(ElemType type, void *p, Elem e) {
  switch (type.kind) {
  case ElemKind::F64:
    return put<double>(p, e.f());
  case ElemKind::F32:
    return put<float>(p, static_cast<float>(e.f()));
  case ElemKind::F16:
    return put<uint16_t>(p, argus_num::f32_to_f16(static_cast<float>(e.f())));
  case ElemKind::BF16:
    return put<uint16_t>(p, argus_num::f32_to_bf16(static_cast<float>(e.f())));
  case ElemKind::F8E4M3FN:
  case ElemKind::F8E4M3FNUZ:
    return put<uint8_t>(p, doubleToF8(type.kind, e.f()));
  case ElemKind::Int:
    break;
  }
  if (type.width == 1)
    return put<uint8_t>(p, e.i() != 0 ? 1 : 0);
  if (type.width <= 8)
    return put<int8_t>(p, static_cast<int8_t>(e.i()));
  if (type.width <= 16)
    return put<int16_t>(p, static_cast<int16_t>(e.i()));
  if (type.width <= 32)
    return put<int32_t>(p, static_cast<int32_t>(e.i()));
  return put<int64_t>(p, e.i());
}

std::string formatElem(ElemType type, Elem e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (type.isFloat())
    os << llvm::format("%.9g", e.f());
  else if (type.width == 1)
    os << (e.i() != 0 ? "true" : "false");
  else
    os << e.i();
  return s;
}

//===----------------------------------------------------------------------===//
// Tiles and buffers
//===----------------------------------------------------------------------===//

Tile::Tile(llvm::ArrayRef<int64_t> s) : shape(s.begin(), s.end()) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  elems.resize(n);
}

/// Flattens a (nested) layout tuple into its integer modes, in order.
static void flattenModes(Attribute a, llvm::SmallVectorImpl<int64_t> &out) {
  if (auto i = dyn_cast<IntegerAttr>(a)) {
    out.push_back(i.getInt());
    return;
  }
  for (Attribute e : cast<ArrayAttr>(a))
    flattenModes(e, out);
}

/// CuTe Swizzle<B,M,S>: offset ^ ((offset & yyy) >> S), yyy = (2^B-1) << (M + max(0,S)).
///   0bxxxxYYYxxxZZZxxxx : the B bits YYY are xor-ed onto ZZZ (starting at bit M).
static int64_t applySwizzle(SwizzleAttr s, int64_t offset) {
  int64_t b = s.getBits(), m = s.getBase(), sh = s.getShift();
  int64_t mask = (int64_t(1) << b) - 1;
  int64_t yyy = mask << (m + std::max<int64_t>(0, sh));
  int64_t moved = sh >= 0 ? (offset & yyy) >> sh : (offset & yyy) << -sh;
  return offset ^ moved;
}

int64_t applyLayout(Attribute layout, int64_t i) {
  if (auto l = dyn_cast_or_null<LayoutAttr>(layout)) {
    llvm::SmallVector<int64_t, 8> modes, strides;
    flattenModes(l.getShape(), modes);
    flattenModes(l.getStride(), strides);
    int64_t rest = i, offset = 0;
    for (size_t m = 0; m < modes.size(); ++m) {
      offset += (rest % modes[m]) * strides[m];
      rest /= modes[m];
    }
    return offset;
  }
  if (auto s = dyn_cast_or_null<SwizzleAttr>(layout))
    return applySwizzle(s, i);
  return i;
}

std::unique_ptr<Buffer> createBuffer(BufferType type, std::string description,
                                     std::string &error) {
  std::optional<ElemType> elem = ElemType::get(type.getElementType());
  if (!elem) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "unsupported buffer element type " << type.getElementType();
    error = s;
    return nullptr;
  }
  auto buffer = std::make_unique<Buffer>();
  buffer->type = type;
  buffer->elem = *elem;
  buffer->description = std::move(description);
  llvm::ArrayRef<int64_t> shape = type.getShape();
  buffer->rowStrides.assign(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    buffer->rowStrides[i] = buffer->rowStrides[i + 1] * shape[i + 1];
  int64_t n = type.getNumElements();
  int64_t storageSize = n;
  if (type.getLayout()) {
    buffer->physicalOf.resize(n);
    for (int64_t i = 0; i < n; ++i) {
      buffer->physicalOf[i] = applyLayout(type.getLayout(), i);
      storageSize = std::max(storageSize, buffer->physicalOf[i] + 1);
    }
  }
  buffer->storage.assign(storageSize, poisonElem(*elem));
  return buffer;
}

} // namespace argus::interp::detail
