//===- CppKernelEmitter.h - what every C++-emitting backend shares --------===//
//
// The CPU and HIP backends both print one C++ statement per op of a kernel,
// in program order, with the op's DSL location as a comment. This base holds
// what does not depend on the target: the output and its indentation, the
// first error (with the op's location), the C++ names of scalars, and the
// arith ops on scalars (EmitArith.cpp), which both spell through the `ak::`
// helpers of dist/runtime/argus_scalar_ops.h.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_CPP_CPPKERNELEMITTER_H
#define ARGUS_BACKEND_CPP_CPPKERNELEMITTER_H

#include "CppSyntax.h"

#include "argus/Dialect/Argus.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace argus::codegen {

class CppKernelEmitter {
public:
  /// `backend` names the emitter in messages: "the CPU backend".
  explicit CppKernelEmitter(llvm::StringRef backend) : backend(backend.str()) {}
  virtual ~CppKernelEmitter() = default;

  /// Every op of `block`, in order.
  mlir::LogicalResult emitBlock(mlir::Block &block);
  /// One op: arith (emitArith), scf (emitFor / emitIf), func.return (the
  /// grid function's sizes), argus (emitArgusOp); tags print nothing.
  mlir::LogicalResult emitOp(mlir::Operation *op);
  virtual mlir::LogicalResult emitFor(mlir::scf::ForOp op) = 0;
  virtual mlir::LogicalResult emitIf(mlir::scf::IfOp op) = 0;
  virtual mlir::LogicalResult emitArgusOp(mlir::Operation *op) = 0;

  /// Records the first error (with the op's location) and returns failure.
  mlir::LogicalResult fail(mlir::Operation *op, const llvm::Twine &message);
  mlir::LogicalResult fail(mlir::Location loc, const llvm::Twine &message);

  /// Prints one line at the current indentation, with `op`'s location (and
  /// `note`) as a trailing comment.
  void line(const llvm::Twine &text, mlir::Operation *op = nullptr, llvm::StringRef note = "");
  void indent() { depth += 1; }
  void dedent() { depth -= 1; }

  /// The C++ expression of a scalar value (its variable).
  std::string scalar(mlir::Value v);
  /// A fresh identifier for value `v` (its DSL name when the location has one).
  std::string nameFor(mlir::Value v, llvm::StringRef fallback = "");
  /// Declares `const T name = expr;` for scalar result `v`.
  /// argus.segment: `const <tensorType> name = ak::segment<...>(...)`, the
  /// runtime's view of a varlen sequence's rows (a CPU or a GPU tensor).
  mlir::LogicalResult emitSegment(SegmentOp op, llvm::StringRef tensorType);
  mlir::LogicalResult defineScalar(mlir::Value v, const llvm::Twine &expr, mlir::Operation *op,
                                   llvm::StringRef hint = "");

  /// The grid function (argus.grid) of `kernel`, after checking that the
  /// kernel returns nothing, has a body, and names a grid function taking
  /// its arguments and returning 3 index values.
  mlir::LogicalResult findGridFunction(mlir::func::FuncOp kernel, mlir::func::FuncOp &grid);
  /// The DSL names of the kernel's parameters (argus.arg_names), arg<i> where missing.
  static std::vector<std::string> argumentNames(mlir::func::FuncOp kernel);
  /// A clone of `kernel` without its tag ops (compile-time only); the caller erases it.
  static mlir::func::FuncOp copyWithoutTags(mlir::func::FuncOp kernel);
  /// Fails unless `symbol` is a C identifier (it names the emitted entry point).
  mlir::LogicalResult checkSymbol(mlir::Operation *kernel, llvm::StringRef symbol);
  /// The first recorded error as an llvm::Error ("<backend>: code generation
  /// failed" when none was recorded).
  llvm::Error takeError() const;

  /// One arith op on scalars (EmitArith.cpp).
  mlir::LogicalResult emitArith(mlir::Operation *op);

  NameTable names;
  llvm::DenseMap<mlir::Value, std::string> scalars;

protected:
  /// While emitting the grid function: func.return's values become grid0..2.
  bool inGridFunction = false;
  std::string backend;
  std::string out;
  llvm::raw_string_ostream os{out};
  int depth = 0;
  std::optional<std::string> error;
};

} // namespace argus::codegen

#endif // ARGUS_BACKEND_CPP_CPPKERNELEMITTER_H
