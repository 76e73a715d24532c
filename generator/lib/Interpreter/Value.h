//===- Value.h - the interpreter's value model ------------------*- C++ -*-===//
//
// What an SSA value of an argus kernel is while the interpreter runs it:
//
//   Elem      one element or scalar, 8 bytes: a double for float types (always
//             already rounded to the type) or an int64 for integer / index
//             types (always sign-extended from the type's bit width, so i1
//             true is -1, as in MLIR's signed view).
//   Tile      a register tile: static shape, row-major elements.
//   Buffer    a shared / local buffer: physical storage plus the map from a
//             logical row-major index to a physical offset (layout/swizzle).
//   TensorArg a global tensor argument: its type and the caller's descriptor.
//   RtValue   the value of one SSA value in one program instance: one Lane per
//             thread, or a single Lane when every thread holds the same one
//             ("uniform"). A Lane is one of the four things above.
//
// Element types are classified once into ElemType, which says how an element
// is rounded and how many bytes it takes in a host tensor.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_INTERPRETER_VALUE_H
#define ARGUS_LIB_INTERPRETER_VALUE_H

#include "argus/Dialect/Argus.h"
#include "cpu/argus_cpu_abi.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace argus::interp::detail {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// F8E4M3FN: OCP fp8 (NVIDIA, gfx950); F8E4M3FNUZ: the fp8 gfx942's MFMA reads
/// (exponent bias 8, no negative zero, 0x80 the only NaN).
enum class ElemKind : uint8_t { F64, F32, F16, BF16, F8E4M3FN, F8E4M3FNUZ, Int };

/// How elements of one MLIR type are rounded and stored.
struct ElemType {
  ElemKind kind = ElemKind::Int;
  unsigned width = 64; // bits of the value (index counts as 64)

  bool isFloat() const { return kind != ElemKind::Int; }
  /// Bytes one element takes in a host tensor (i1 takes a byte).
  size_t storageBytes() const { return width <= 8 ? 1 : width / 8; }

  /// Classifies a scalar type; nullopt for types the interpreter cannot run.
  static std::optional<ElemType> get(mlir::Type type);
};

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

/// One element: the bits of a double or of an int64, chosen by its ElemType.
class Elem {
public:
  Elem() = default;
  static Elem ofFloat(double f) {
    Elem e;
    std::memcpy(&e.bits, &f, sizeof f);
    return e;
  }
  static Elem ofInt(int64_t i) {
    Elem e;
    e.bits = static_cast<uint64_t>(i);
    return e;
  }
  double f() const {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  int64_t i() const { return static_cast<int64_t>(bits); }
  uint64_t raw() const { return bits; }
  bool operator==(const Elem &o) const { return bits == o.bits; }
  bool operator!=(const Elem &o) const { return bits != o.bits; }

private:
  uint64_t bits = 0;
};

/// Sign-extends the low `width` bits of `v` (wrap-around at the bit width).
inline int64_t wrapInt(unsigned width, int64_t v) {
  if (width >= 64)
    return v;
  uint64_t u = static_cast<uint64_t>(v) << (64 - width);
  return static_cast<int64_t>(u) >> (64 - width);
}

/// The unsigned reading of an integer element of `width` bits.
inline uint64_t zextInt(unsigned width, int64_t v) {
  if (width >= 64)
    return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(v) & ((uint64_t(1) << width) - 1);
}

/// Rounds `v` to a float element kind (f32 by a cast; bf16/f16 through f32
/// with the shared argus_numerics.h conversion; f8E4M3FN by APFloat).
double roundFloat(ElemKind kind, double v);

/// Rounds / wraps a double into an element of `type`: floats are rounded,
/// integers converted toward zero with saturation (NaN gives 0).
Elem elemFromDouble(ElemType type, double v);

/// An element of `type` read as a double (integers by their signed value,
/// i1 by its unsigned value 0 / 1).
double elemToDouble(ElemType type, Elem e);

/// Converts an element between element types the way `argus.cast` does.
Elem convertElem(ElemType from, ElemType to, Elem e);

/// The poison a fresh buffer holds: NaN, or the most negative integer.
Elem poisonElem(ElemType type);

/// Reads / writes one element of a host tensor at `p`.
Elem readHostElem(ElemType type, const void *p);
void writeHostElem(ElemType type, void *p, Elem e);

/// Prints an element for diagnostics.
std::string formatElem(ElemType type, Elem e);

//===----------------------------------------------------------------------===//
// Tiles, buffers, tensors
//===----------------------------------------------------------------------===//

/// A register tile: row-major elements of a static shape.
struct Tile {
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<Elem> elems;

  Tile() = default;
  explicit Tile(llvm::ArrayRef<int64_t> shape);
  int64_t numElements() const { return static_cast<int64_t>(elems.size()); }
};
using TileRef = std::shared_ptr<const Tile>;

/// A shared or local buffer. Logical element `i` (row-major over `type`'s
/// shape) lives at `storage[physical(i)]`.
struct Buffer {
  BufferType type;
  ElemType elem;
  llvm::SmallVector<int64_t, 4> rowStrides; // row-major strides of the logical shape
  std::vector<int64_t> physicalOf;          // empty: identity
  std::vector<Elem> storage;
  std::string description;                  // "shared buffer allocated at f.mlir:3:9"

  int64_t physical(int64_t logical) const {
    return physicalOf.empty() ? logical : physicalOf[logical];
  }
};

/// The offset a layout or swizzle attribute gives row-major index `i`: a
/// #argus.layout decomposes `i` over its flattened shape (CuTe semantics,
/// first mode fastest) and dots it with its strides; a #argus.swizzle xors
/// its bits (CuTe Swizzle<B,M,S>). Any other attribute (or null): `i`.
int64_t applyLayout(mlir::Attribute layout, int64_t i);

/// Builds the storage of a buffer of `type` (filled with poison), applying its
/// layout or swizzle (applyLayout) to the row-major index. The storage holds
/// at least the buffer's element count, so a slot view (whose offsets stay
/// inside the slot) never leaves it. Null on an unsupported element type,
/// with `error` set.
std::unique_ptr<Buffer> createBuffer(BufferType type, std::string description,
                                     std::string &error);

/// A global tensor argument.
struct TensorArg {
  GlobalTensorType type;
  ElemType elem;
  argus_cpu_tensor desc;
  std::string name; // "'A' (argument 0)"
};

//===----------------------------------------------------------------------===//
// SSA values
//===----------------------------------------------------------------------===//

using Lane = std::variant<Elem, TileRef, Buffer *, const TensorArg *>;

/// An SSA value in one program instance: one lane per thread, or a single
/// lane shared by all threads.
struct RtValue {
  llvm::SmallVector<Lane, 1> lanes;

  bool isUniform() const { return lanes.size() == 1; }
  const Lane &at(unsigned thread) const { return lanes.size() == 1 ? lanes[0] : lanes[thread]; }
};

} // namespace argus::interp::detail

#endif // ARGUS_LIB_INTERPRETER_VALUE_H
