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
//   ../Cpp/EmitArith.cpp arith ops on scalars (shared with the HIP backend)
//   EmitTileOps.cpp      argus ops (memory, tiles, mma)
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_CPU_CPUEMITTER_H
#define ARGUS_BACKEND_CPU_CPUEMITTER_H

#include "TileStorage.h"

#include "../Cpp/CppKernelEmitter.h"

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

/// C++ of one element (EmitTileOps.cpp): memory <-> arithmetic conversions
/// (bf16 / f16 widen to float, i1 is a byte) and the scalar operators.
std::string loadConv(mlir::Type elem, const std::string &e);
std::string storeConv(mlir::Type elem, const std::string &e);
std::string binaryExpr(BinaryKind kind, mlir::Type elem, const std::string &x, const std::string &y);
std::string unaryExpr(UnaryKind kind, const std::string &x);
std::string cmpExpr(CmpPredicate p, const std::string &x, const std::string &y);

class CpuEmitter : public CppKernelEmitter {
public:
  explicit CpuEmitter(const CpuTarget &target) : CppKernelEmitter("the CPU backend"), target(target) {}

  /// The whole translation unit for `kernel`.
  llvm::Expected<std::string> emitUnit(mlir::func::FuncOp kernel, llvm::StringRef symbol);

  //===--- used by the per-family files --------------------------------===//

  /// Declares a new tile array for `v` (not yet filled) and places `v` in it.
  SlotTable::Id declareTile(mlir::Value v, mlir::Operation *op, llvm::StringRef note = "");
  /// The slot a result of `op` should be written to: the slot of the first
  /// of `candidates` that is dead after `op` (and holds no other operand of
  /// `op`), else a new array. `v` is placed in it.
  SlotTable::Id tileForResult(mlir::Value v, mlir::Operation *op,
                              llvm::ArrayRef<mlir::Value> candidates);


  // EmitControlFlow.cpp
  mlir::LogicalResult emitFor(mlir::scf::ForOp op) override;
  mlir::LogicalResult emitIf(mlir::scf::IfOp op) override;
  /// dsts[i] <- srcs[i] for all i at once (tiles: slots, scalars: variables).
  void emitParallelCopy(llvm::ArrayRef<mlir::Value> srcs, llvm::ArrayRef<std::string> dsts,
                        mlir::Operation *op);

  // EmitTileOps.cpp
  mlir::LogicalResult emitArgusOp(mlir::Operation *op) override;

  // EmitRowFusion.cpp
  /// When `op` starts a run of elementwise ops and row reductions over one
  /// R x C f32 shape worth fusing, emits the whole run (`fused`), its column
  /// work in one loop over rows per phase, and marks its other ops in `fusedOps`.
  mlir::LogicalResult emitRowPipeline(mlir::Operation *op, bool &fused);
  /// Ops already emitted inside a row pipeline.
  llvm::DenseSet<mlir::Operation *> fusedOps;

  const CpuTarget &target;
  SlotTable slots;
  /// Thread-arena slots taken by this instance's operand copies
  /// (ak::arena_scratch; past kArenaSlots they go on the stack).
  int arenaSlotsTaken = 0;
  static constexpr int kArenaSlots = 8; // ak::kArenaSlots (argus_cpu_arena.h)
  llvm::DenseMap<mlir::Value, BufferInfo> buffers;
  /// Transposes read only as mma b operands: they alias their operand's slot
  /// and those mma ops become ak::mma_kn.
  llvm::DenseSet<mlir::Value> foldedTransposes;
  /// mma ops that fetch an argus.prefetch's tile as they read b: the
  /// ak::tile_shadow variable of the latest such prefetch before them.
  llvm::DenseMap<mlir::Operation *, std::string> shadowOf;
  /// mma ops that scale their accumulator's rows first (ak::row_scale): the
  /// slot of the factors, from the multiply folded into them.
  llvm::DenseMap<mlir::Operation *, std::string> rowScaleOf;
  /// Whether an mma of the instance keeps its b panels for the launch
  /// (ak::pack_reuse): the entry point then numbers the launch.
  bool packReuse = false;
  /// Folds `mul` (acc * factors a row, read only by the mma after it) into
  /// that mma's epilogue: no code here, the result placed in acc's slot.
  /// False (nothing done) when it does not fit.
  bool foldRowScale(BinaryOp mul);

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

};

} // namespace argus::codegen::cpu

#endif // ARGUS_BACKEND_CPU_CPUEMITTER_H
