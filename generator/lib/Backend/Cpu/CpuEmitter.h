//===- CpuEmitter.h - the state of emitting one kernel as C++ -------------===//
//
// CpuEmitter walks a kernel once, in program order, and prints one C++
// statement (or loop nest) per op, with the op's DSL location as a comment.
// Its state is what the walk has decided so far: the C++ name of every
// scalar, the slot (array) of every tile, and the buffers.
//
// The work is split by op family, one file each:
//   CpuEmitter.cpp       the unit: prologue, argument unpacking, the grid
//                        function inlined into the entry point, the OpenMP
//                        loop over program instances, op dispatch
//   EmitControlFlow.cpp  scf.for / scf.if / scf.yield (loop-carried slots)
//   EmitArith.cpp        arith ops on scalars
//   EmitTileOps.cpp      argus ops (memory, tiles, mma)
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_CPU_CPUEMITTER_H
#define ARGUS_BACKEND_CPU_CPUEMITTER_H

#include "CppSyntax.h"
#include "TileStorage.h"

#include "argus/Backend/CodegenCpu.h"
#include "argus/Dialect/Argus.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace argus::codegen::cpu {

/// Rank limit of argus_cpu_tensor (ARGUS_CPU_MAX_RANK in argus_cpu_abi.h).
inline constexpr int64_t kMaxTensorRank = 4;

/// A scratch buffer (argus.alloc): one flat row-major array. Its layout
/// attribute (swizzle) only matters to GPU banks, so the CPU ignores it: every
/// access goes through copy / buffer_load / buffer_store, which agree. A
/// buffer_load / buffer_store `view` is mapped back through the buffer's own
/// layout (see slotViewIndex in EmitTileOps.cpp) or refused.
struct BufferInfo {
  std::string name;
  std::string storage;
};

class CpuEmitter {
public:
  explicit CpuEmitter(const CpuTarget &target) : target(target) {}

  /// The whole translation unit for `kernel`.
  llvm::Expected<std::string> emitUnit(mlir::func::FuncOp kernel, llvm::StringRef symbol);

  //===--- used by the per-family files --------------------------------===//

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
  mlir::LogicalResult defineScalar(mlir::Value v, const llvm::Twine &expr, mlir::Operation *op,
                                   llvm::StringRef hint = "");

  /// Declares a new tile array for `v` (not yet filled) and places `v` in it.
  SlotTable::Id declareTile(mlir::Value v, mlir::Operation *op, llvm::StringRef note = "");
  /// The slot a result of `op` should be written to: the slot of the first
  /// of `candidates` that is dead after `op` (and holds no other operand of
  /// `op`), else a new array. `v` is placed in it.
  SlotTable::Id tileForResult(mlir::Value v, mlir::Operation *op,
                              llvm::ArrayRef<mlir::Value> candidates);

  mlir::LogicalResult emitBlock(mlir::Block &block);
  mlir::LogicalResult emitOp(mlir::Operation *op);

  // EmitControlFlow.cpp
  mlir::LogicalResult emitFor(mlir::scf::ForOp op);
  mlir::LogicalResult emitIf(mlir::scf::IfOp op);
  /// dsts[i] <- srcs[i] for all i at once (tiles: slots, scalars: variables).
  void emitParallelCopy(llvm::ArrayRef<mlir::Value> srcs, llvm::ArrayRef<std::string> dsts,
                        mlir::Operation *op);

  // EmitArith.cpp
  mlir::LogicalResult emitArith(mlir::Operation *op);
  // EmitTileOps.cpp
  mlir::LogicalResult emitArgusOp(mlir::Operation *op);

  const CpuTarget &target;
  NameTable names;
  SlotTable slots;
  llvm::DenseMap<mlir::Value, std::string> scalars;
  llvm::DenseMap<mlir::Value, BufferInfo> buffers;
  /// Transposes read only as mma b operands: they alias their operand's slot
  /// and those mma ops become ak::mma_kn.
  llvm::DenseSet<mlir::Value> foldedTransposes;

private:
  mlir::LogicalResult checkKernel(mlir::func::FuncOp kernel, mlir::func::FuncOp &grid);
  mlir::LogicalResult emitArguments(mlir::func::FuncOp f, llvm::ArrayRef<std::string> argNames);
  /// Most stack one program instance may use (tiles plus mma scratch).
  static constexpr int64_t kStackBudgetBytes = 512 * 1024;
  mlir::LogicalResult checkStackBudget(mlir::func::FuncOp kernel);
  mlir::LogicalResult emitInstanceFunction(mlir::func::FuncOp kernel, llvm::StringRef name,
                                           llvm::ArrayRef<std::string> argNames);
  mlir::LogicalResult emitEntryFunction(mlir::func::FuncOp grid, llvm::StringRef symbol,
                                        llvm::StringRef instanceName,
                                        llvm::ArrayRef<std::string> argNames);
  void resetScope();

  std::string out;
  llvm::raw_string_ostream os{out};
  int depth = 0;
  std::optional<std::string> error;
  /// While emitting the grid function: where func.return's values go.
  bool inGridFunction = false;
};

} // namespace argus::codegen::cpu

#endif // ARGUS_BACKEND_CPU_CPUEMITTER_H
