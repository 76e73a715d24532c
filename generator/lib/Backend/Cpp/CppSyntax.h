//===- CppSyntax.h - spelling MLIR types, literals and names in C++ -------===//
//
// The emitted C++ must read like the DSL: DSL names where the location
// carries them (NameLoc), short generated ones otherwise (t0, t1, c16), C++
// types that say what a value is, and comments that point back to the DSL
// source. This file owns those spellings; it knows nothing about ops.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_CPP_CPPSYNTAX_H
#define ARGUS_BACKEND_CPP_CPPSYNTAX_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "mlir/IR/Attributes.h"

#include <optional>
#include <string>

namespace argus::codegen {

/// C++ type of a scalar in emitted code: index/i64 -> int64_t, i32 -> int32_t,
/// i1 -> bool, f32 -> float, f64 -> double, bf16/f16 -> float (a float that
/// holds a value representable in the narrow type). None when unsupported.
std::optional<std::string> scalarCType(mlir::Type type);

/// Element-type tag of argus_cpu_kernel.h for tile elements, already
/// qualified: "ak::f32", "ak::bf16", "ak::i32", ... (index -> "ak::i64").
std::optional<std::string> dtypeTag(mlir::Type type);

/// C++ type tiles of this element type are stored as: float, uint16_t
/// (bf16, f16), int32_t, uint8_t (i1), ...
std::optional<std::string> storageCType(mlir::Type type);

/// True for bf16 and f16: values are rounded after every scalar operation.
bool isNarrowFloat(mlir::Type type);

/// A C++ literal of `type` with exactly the value `v` (shortest round-trip
/// spelling; INFINITY / NAN for the special values).
std::string floatLiteral(double v, mlir::Type type);
std::string intLiteral(int64_t v, mlir::Type type);

/// "file:line:col" of a location (full file name), or "" when it has none.
std::string locString(mlir::Location loc);
/// "file:line:col" with the directories dropped, for comments.
std::string locComment(mlir::Location loc);
/// The DSL name a location carries (NameLoc, possibly inside a FusedLoc), or "".
std::string locName(mlir::Location loc);

/// The modes of a nested #argus.layout shape or stride, flattened in order.
void flattenModes(mlir::Attribute a, llvm::SmallVectorImpl<int64_t> &out);

/// C++ expression of `layout` (#argus.layout / #argus.swizzle) applied to
/// the int64_t expression `x`, e.g. `(x ^ ((x & 48) >> 2))` for
/// swizzle<2,2,2> or `(x % 8) * 4 + (x / 8)` for layout<(8,4):(4,1)>.
std::string layoutExpr(mlir::Attribute layout, const std::string &x);

/// Unique, valid C++ identifiers for one function scope. Keywords, the
/// support namespace alias and the names the emitter itself uses are reserved.
class NameTable {
public:
  NameTable();
  /// `hint` sanitised into an identifier and made unique (hint, hint_1, ...);
  /// an empty hint gives t0, t1, ...
  std::string unique(llvm::StringRef hint);
  /// Marks a name as taken (e.g. the loop indices of elementwise loops).
  void reserve(llvm::StringRef name) { used.insert(name); }

private:
  llvm::StringSet<> used;
  unsigned nextTemp = 0;
};

} // namespace argus::codegen

#endif // ARGUS_BACKEND_CPP_CPPSYNTAX_H
