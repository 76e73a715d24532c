//===- ElementwiseFusion.cpp - tiles computed where their one user reads them -===//
#include "ElementwiseFusion.h"

#include "argus/Dialect/Argus.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace argus::codegen::lanes {
namespace {

bool isElementwise(Operation *op) { return isa<BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp>(op); }

/// Whether `user`'s slot expression spells each operand once (abs and silu
/// spell theirs more than once: a fused operand would be computed again).
bool spellsOperandsOnce(Operation *user) {
  auto unary = dyn_cast<UnaryOp>(user);
  return !unary || (unary.getKind() != UnaryKind::abs && unary.getKind() != UnaryKind::silu);
}

/// Whether no op strictly between `from` and `to` (same block, `from` first)
/// may write memory.
bool nothingWrittenBetween(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to; op = op->getNextNode()) {
    if (isMemoryEffectFree(op))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || op->getNumRegions() != 0 || effects.hasEffect<MemoryEffects::Write>())
      return false;
  }
  return true;
}

/// The one user that reads `v` in a loop of its own, if `v` may be fused into it.
Operation *fusingUser(Value v, const RegisterLayouts &layouts) {
  if (!isa<TileType>(v.getType()) || !v.hasOneUse())
    return nullptr;
  OpOperand &use = *v.use_begin();
  Operation *user = use.getOwner();
  if (!isElementwise(user) || user->getBlock() != v.getDefiningOp()->getBlock() || !spellsOperandsOnce(user) ||
      layouts.conversion(user, use.getOperandNumber()) ||
      layouts.of(v).perLane() != layouts.of(user->getResult(0)).perLane())
    return nullptr;
  return user;
}

} // namespace

llvm::DenseSet<Value> fusedTiles(func::FuncOp kernel, const RegisterLayouts &layouts, bool readsTileElements) {
  llvm::DenseSet<Value> fused;
  if (!readsTileElements)
    return fused;
  kernel.walk([&](LoadOp load) {
    if (!layouts.of(load.getResult()).readByElement() || !fusingUser(load.getResult(), layouts))
      return;
    // The chain of elementwise ops from the load, each the one user of the
    // last: all but the last are fused, and memory is read in its loop.
    SmallVector<Value> chain = {load.getResult()};
    Operation *user = fusingUser(load.getResult(), layouts);
    while (Operation *next = fusingUser(user->getResult(0), layouts)) {
      chain.push_back(user->getResult(0));
      user = next;
    }
    if (nothingWrittenBetween(load, user))
      fused.insert(chain.begin(), chain.end());
  });
  return fused;
}

} // namespace argus::codegen::lanes
