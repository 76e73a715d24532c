//===- RegisterLayouts.h - which lane holds which element of a group's tile -===//
//
// A thread of a GPU-targeted argus kernel is a lane group (a CDNA wave of 64,
// a CUDA warp of 32), and each of its tiles is spread over the group's lanes.
// This analysis gives every tile value one register layout of the target's
// tile header (gpu/argus_gpu_tile.h and argus_hip_tile.h / argus_cuda_tile.h),
// chosen by how the value is used:
//
//   - mma fixes its operands (MmaOperand) and its accumulator and result
//     (MmaAcc). On CDNA: MFMA blocks of 32 x 32 where the shapes allow, else
//     16 x 16. On CUDA: mma.sync.m16n8k16's, A in 16-row blocks, B in 8-row
//     ones, C in 16 x 8. Tiles are padded to whole blocks (a 4-row decode
//     tile fills 4 of 16 rows). Where every mma can be a wgmma, threads are
//     warpgroups, operands stay in shared memory (SharedOperand: no
//     registers) and accumulators take wgmma's m64nN layout;
//   - values an op combines elementwise (same shape), a loop carries, an if
//     yields, or a reshape renames share one layout;
//   - an operand broadcast into an elementwise op takes its result's layout
//     with the broadcast dimension pinned (Broadcast);
//   - a reduce's result is its operand's layout with the reduced (last)
//     dimension pinned; a transpose's operand is its result's, Transposed;
//   - whatever is left (tiles only loaded, stored or staged through LDS) is
//     Striped in 16-byte runs, the layout of wide memory accesses.
//
// A value has one layout, the first one asked for. A use that needs another
// (P, an MFMA result, as the A operand of P·V; a row statistic broadcast into
// two MFMA shapes) reads a converted copy: the emitter moves it through the
// wave's LDS scratch before the op (ak::convert).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_LANES_REGISTERLAYOUTS_H
#define ARGUS_BACKEND_LANES_REGISTERLAYOUTS_H

#include "LaneTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <string>

namespace argus::codegen::lanes {

/// One register layout of the tile headers over a tile seen as rows x cols
/// (rows: the product of all but the last dimension).
struct RegLayout {
  enum class Kind { Striped, MmaAcc, MmaOperand, SharedOperand, Broadcast, Transposed };
  Kind kind = Kind::Striped;
  int64_t rows = 1, cols = 1;
  int64_t lanes = 64;                    // of the lane group
  MmaFamily family = MmaFamily::Mfma;    // Mma*: which instructions' layouts
  int64_t run = 1;                       // Striped: elements per run
  int64_t block = 32;                    // Mfma: 32 (32x32x8) or 16 (16x16x16); MmaSync operands: 16 (A) or 8 (B)
  std::shared_ptr<const RegLayout> base; // Broadcast: the result's layout; Transposed: the untransposed
  bool keepRows = true, keepCols = true; // Broadcast: which coordinates are kept

  /// The C++ type, e.g. "ak::MfmaAcc<64, 64, 32>".
  std::string spell() const;
  /// Elements per lane.
  int64_t perLane() const;
  /// Whether ak::reduceRows can reduce its rows (lanes split every row alike).
  bool rowsReducible() const;
  /// Whether CDNA's ak::loadGlobal reads it element by element (it has no
  /// runs of whole columns to load as vectors).
  bool readByElement() const;
  bool operator==(const RegLayout &o) const { return spell() == o.spell(); }
};

/// Rows and columns of a tile shape (a rank-1 tile is one row).
std::pair<int64_t, int64_t> tileRowsCols(llvm::ArrayRef<int64_t> shape);

/// Whether every mma of `kernel` (tags erased; at least one) can be a wgmma
/// reading both operands in place, and nothing else needs warps: bf16 or f16
/// into f32, A rows a multiple of 64, B rows an N wgmma takes, K = 64; each
/// operand a buffer_load (no view) of a whole slot of a shared buffer in the
/// 128-byte swizzle (swizzle(3, 3, 3)) used by mmas only, as A or B; no
/// reduce (a striped row may span warps); at most 8 threads (warpgroups).
bool wgmmaOperands(mlir::func::FuncOp kernel, int64_t threads);

/// The layouts of every tile value of `kernel` (tags already erased), or a
/// message naming the op that asks for what the backend cannot give.
class RegisterLayouts {
public:
  explicit RegisterLayouts(const LaneTarget &target) : target(target) {}
  /// Fills the table; false with `error` set ("file:line:col: ...").
  bool assign(mlir::func::FuncOp kernel, std::string &error);
  const RegLayout &of(mlir::Value tile) const;
  /// The layout operand `index` of `op` is read in where it is not the
  /// value's own (the emitter converts it first); null otherwise.
  const RegLayout *conversion(mlir::Operation *op, unsigned index) const;
  /// The layout a reduce computes in: its (possibly converted) operand's,
  /// the last dimension pinned. Converted when the result's differs.
  const RegLayout &reducedIn(mlir::Operation *reduce) const;
  /// Shared bytes one lane group needs for its largest conversion (0: none).
  int64_t conversionScratchBytes() const { return scratchBytes; }

private:
  const LaneTarget &target;
  using LayoutPtr = std::shared_ptr<const RegLayout>;
  llvm::DenseMap<mlir::Value, LayoutPtr> layouts;
  llvm::DenseMap<std::pair<mlir::Operation *, unsigned>, LayoutPtr> conversions;
  llvm::DenseMap<mlir::Operation *, LayoutPtr> reduced;
  int64_t scratchBytes = 0;
};

} // namespace argus::codegen::lanes

#endif // ARGUS_BACKEND_LANES_REGISTERLAYOUTS_H
