//===- LaneEmitter.h - the state of emitting one kernel as GPU C++ --------===//
//
// LaneEmitter walks a kernel once, in program order, and prints the statements
// one lane runs for each op, in HIP C++ for CDNA waves or CUDA C++ for warps
// (LaneTarget.h). Every tile value is a register array of its register
// layout's elements per lane, declared where the value is defined;
// loop-carried tiles are arrays declared before the loop. The compiler keeps
// them in registers: every index into them is a constant after unrolling.
//
//   LaneEmitter.cpp   the unit: parameter struct, launch function (the grid
//                     function inlined), body, kernel entry, control flow,
//                     op dispatch
//   EmitLaneOps.cpp   argus ops: global and shared memory, mma, elementwise
//   TmaCopies.cpp     which copy_asyncs a Hopper kernel issues as TMA copies
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_LANES_LANEEMITTER_H
#define ARGUS_BACKEND_LANES_LANEEMITTER_H

#include "ElementwiseFusion.h"
#include "LaneTarget.h"
#include "RegisterLayouts.h"
#include "TmaCopies.h"

#include "../Cpp/CppKernelEmitter.h"

#include "argus/Dialect/Argus.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"

#include <memory>

namespace argus::codegen::lanes {

/// A shared buffer: an array in the workgroup's shared memory (LDS).
struct SharedBuffer {
  std::string name;      // the element pointer in the body
  std::string placement; // the Place functor of argus_gpu_tile.h
  int64_t offsetBytes = 0;
};

class LaneEmitter : public CppKernelEmitter {
public:
  explicit LaneEmitter(const LaneTarget &target)
      : CppKernelEmitter(target.backend), target(target), layouts(this->target) {}

  llvm::Expected<std::string> emitUnit(mlir::func::FuncOp kernel, llvm::StringRef symbol);

  //===--- used by EmitLaneOps.cpp ---------------------------------------===//

  /// The register array of tile `v`.
  std::string tile(mlir::Value v);
  /// Declares the register array of tile result `v`: `T name[perLane];`.
  std::string declareTile(mlir::Value v, mlir::Operation *op, llvm::StringRef note = "");
  /// v's layout (while an op is emitted, the layout that op reads it in).
  const RegLayout &layoutOf(mlir::Value v) const {
    auto it = readAs.find(v);
    return it == readAs.end() ? layouts.of(v) : *it->second;
  }
  /// Operand `index` of `op` in registers of the layout `op` reads it in:
  /// tile(v), or a copy converted through the group's shared scratch (made
  /// once: an op that reads the same value in the same layout where that copy
  /// is in scope reads the copy).
  std::string operandTile(mlir::Operation *op, unsigned index);
  /// Emits `dst` (declared) <- `src` moved from layout `from` to `to`.
  void emitConvert(const std::string &dst, const std::string &src, const RegLayout &from, const RegLayout &to,
                   mlir::Type element, mlir::Operation *op);

  mlir::LogicalResult emitArgusOp(mlir::Operation *op) override;
  mlir::LogicalResult emitMma(MmaOp op);
  mlir::LogicalResult emitReduce(ReduceOp op);
  /// buffer_load / buffer_store / copy: a tile to or from one slot of a shared buffer.
  template <class SlotOp> mlir::LogicalResult emitSlotAccess(SlotOp op);
  /// `{a, b}` of index operands.
  std::string indexListOf(mlir::ValueRange values);

  /// The target; cuda-sm90a becomes its warpgroup form for a kernel whose
  /// mmas all read their operands in place (wgmmaOperands).
  LaneTarget target;
  int64_t groups = 1; // lane groups per workgroup: the DSL's threads
  /// CDNA: the fewest direct-to-LDS loads of any copy_async of the kernel
  /// (fewestDmaLoadsOf): wait(n) is s_waitcnt vmcnt(n times it). Any younger
  /// vector memory operation only makes the wait stricter, and a copy that
  /// ran synchronously waited for every older one (they complete in order).
  int64_t fewestDmaLoads = 0;
  /// The copy_asyncs issued as TMA copies (TmaCopies.h), and the name of
  /// the lane group's ring of mbarriers in the body.
  TmaPlan tma;
  std::string tmaRing;
  /// Tiles read in place by wgmma: the address of their slot.
  llvm::DenseMap<mlir::Value, std::string> sharedOperands;
  std::string symbol;
  llvm::DenseMap<mlir::Value, std::string> tiles;
  /// Tiles computed in their one user's loop (ElementwiseFusion.h), and the
  /// expression of slot `ix` of each emitted so far, in its compute type.
  llvm::DenseSet<mlir::Value> fused;
  llvm::DenseMap<mlir::Value, std::string> fusedSlots;
  llvm::DenseMap<mlir::Value, SharedBuffer> buffers;
  /// The Place functor of each buffer access with a `view`.
  llvm::DenseMap<mlir::Operation *, std::string> viewPlacements;

private:
  mlir::LogicalResult checkKernel(mlir::func::FuncOp kernel, mlir::func::FuncOp &grid);
  mlir::LogicalResult planShared(mlir::func::FuncOp kernel, int64_t &ldsBytes);
  void emitParams(mlir::func::FuncOp kernel, llvm::ArrayRef<std::string> argNames);
  void emitArguments(mlir::func::FuncOp f, llvm::ArrayRef<std::string> argNames);
  /// The launch refuses tensors a loaded tile of spans 2 GiB or more of.
  mlir::LogicalResult emitTileSpanChecks(mlir::func::FuncOp kernel, llvm::ArrayRef<std::string> argNames);
  mlir::LogicalResult emitLaunch(mlir::func::FuncOp kernel, mlir::func::FuncOp grid,
                                 llvm::ArrayRef<std::string> argNames,
                                 int64_t ldsBytes);
  mlir::LogicalResult emitBody(mlir::func::FuncOp kernel, llvm::ArrayRef<std::string> argNames,
                               int64_t ldsBytes);
  mlir::LogicalResult emitFor(mlir::scf::ForOp op) override;
  mlir::LogicalResult emitIf(mlir::scf::IfOp op) override;
  /// Declares what a loop or an if carries out (`results`: tiles and scalars),
  /// named after the values the body yields (`sources`).
  llvm::SmallVector<std::string> declareCarried(mlir::ValueRange results, mlir::ValueRange sources,
                                                mlir::Operation *op, llvm::StringRef note);
  /// dsts[i] <- operand firstOperand + i of `op` (converted where it must be), all at once.
  void assignCarried(mlir::Operation *op, unsigned firstOperand, llvm::ArrayRef<std::string> dsts);
  void resetScope();

  RegisterLayouts layouts;
  /// Operands of the op being emitted that it reads converted.
  llvm::DenseMap<mlir::Value, const RegLayout *> readAs;
  /// Converted copies made so far of each value: the layout (spelled), the
  /// copy and the op it was made for; reused by the ops that op dominates.
  struct Conversion {
    std::string layout, name;
    mlir::Operation *madeFor;
  };
  llvm::DenseMap<mlir::Value, llvm::SmallVector<Conversion, 1>> conversions;
  std::unique_ptr<mlir::DominanceInfo> dominance;
  /// Where the lane groups' conversion scratch starts in shared memory.
  int64_t scratchOffset = 0;
  /// Where the lane groups' TMA barrier rings start (after the scratch).
  int64_t tmaRingOffset = 0;
  std::string paramsType;
};

/// Storage type of a tile element in registers and memory (float, uint16_t
/// for bf16 / f16, int32_t, uint8_t for i1), and the element-type tag of
/// the tile headers ("ak::Bf16"); none when unsupported.
std::optional<std::string> storageType(mlir::Type type);
/// The direct-to-LDS loads one copy_async issues on CDNA (0: synchronous),
/// and the fewest of any copy_async of `kernel`.
int64_t dmaLoadsOf(CopyOp copy);
int64_t fewestDmaLoadsOf(mlir::func::FuncOp kernel);
std::optional<std::string> elementTag(mlir::Type type);

} // namespace argus::codegen::lanes

#endif // ARGUS_BACKEND_LANES_LANEEMITTER_H
