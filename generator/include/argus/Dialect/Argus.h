//===- Argus.h - the argus dialect: types, attributes, ops ------*- C++ -*-===//
//
// One include for everything generated from the argus ODS files.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_DIALECT_ARGUS_H
#define ARGUS_DIALECT_ARGUS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"  // must precede the generated ops
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace argus {
/// The caches a prefetch warms. A prefetch "writes" only this resource, so it
/// is not dead code (an op that only reads is erased when unused), yet it
/// clobbers no tensor data for any pass that reasons about memory.
struct CacheHintResource : mlir::SideEffects::Resource::Base<CacheHintResource> {
  llvm::StringRef getName() final { return "argus::CacheHint"; }
};
} // namespace argus

#include "argus/Dialect/ArgusDialect.h.inc"
#include "argus/Dialect/ArgusEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "argus/Dialect/ArgusAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "argus/Dialect/ArgusTypes.h.inc"

#define GET_OP_CLASSES
#include "argus/Dialect/ArgusOps.h.inc"

namespace argus {

/// Attribute names carried by kernel functions (`func.func`).
namespace kernel_attr {
inline constexpr llvm::StringLiteral kKernel = "argus.kernel";      // unit: this is a kernel
inline constexpr llvm::StringLiteral kGrid = "argus.grid";          // symbol of the grid function
inline constexpr llvm::StringLiteral kThreads = "argus.threads";    // i64 threads per instance
inline constexpr llvm::StringLiteral kGridOf = "argus.grid_of";     // on the grid function
inline constexpr llvm::StringLiteral kReference = "argus.reference"; // name of the f64 reference
inline constexpr llvm::StringLiteral kArgNames = "argus.arg_names"; // DSL parameter names
inline constexpr llvm::StringLiteral kSymbols = "argus.symbols";    // dim symbol -> [[arg, dim], ...]
inline constexpr llvm::StringLiteral kConstants = "argus.constants"; // const / dtype parameter -> its value
inline constexpr llvm::StringLiteral kPipelineStages = "argus.pipeline_stages"; // on scf.for
} // namespace kernel_attr

/// Registers argus and the upstream dialects its programs use.
void registerArgusDialects(mlir::DialectRegistry &registry);

/// Numpy broadcast of two shapes (scalars are rank 0). Returns false when
/// they do not broadcast.
bool broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                     llvm::SmallVectorImpl<int64_t> &out);

/// Product of the modes of a (nested) #argus.layout shape tuple: the number
/// of elements the layout maps.
int64_t layoutTupleProduct(mlir::Attribute tuple);

} // namespace argus

#endif // ARGUS_DIALECT_ARGUS_H
