//===- ElementwiseFusion.h - tiles computed where their one user reads them -===//
//
// The lane emitter gives every tile value a register array and computes an
// elementwise op in a loop over the lane's slots. A chain of them (the GEMM
// epilogue `acc * alpha + cast(load(C)) * beta`) then holds every
// intermediate tile at once: the compiler keeps the loads' results and the
// accumulator live together, and a 256 x 256 tile's epilogue spills. A fused
// tile has no array: its slot ix is an expression inlined into the loop of
// its one user, so the chain becomes one loop that holds one element of each
// intermediate at a time.
//
// Fusion starts at a load the target reads element by element anyway
// (LaneTarget::readsTileElements; the layout has no runs to load as vectors)
// whose one use is an elementwise op (binary, unary, cmp, select, cast) of
// the same block that reads it in its own layout (no conversion) and spells
// it once; it follows the chain of such ops, each the one user of the last,
// and fuses all but the last, in whose loop the load then reads memory: no
// op between may write memory. Chains of registers alone are left as they
// are: the compiler schedules those freely (fusing them moved the prefill
// kernels, at the edge of their register budget, into spills); what it does
// not do is sink 128 loads into their uses.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_LANES_ELEMENTWISEFUSION_H
#define ARGUS_BACKEND_LANES_ELEMENTWISEFUSION_H

#include "RegisterLayouts.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace argus::codegen::lanes {

/// The tile values of `kernel` (tags erased, layouts assigned) that the lane
/// emitter computes inside their user's loop (none where the target cannot
/// read a tile element by element).
llvm::DenseSet<mlir::Value> fusedTiles(mlir::func::FuncOp kernel, const RegisterLayouts &layouts,
                                       bool readsTileElements);

} // namespace argus::codegen::lanes

#endif // ARGUS_BACKEND_LANES_ELEMENTWISEFUSION_H
