//===- EmitControlFlow.cpp - scf.for / scf.if / scf.yield as C++ ----------===//
//
// scf.for becomes a C++ for loop; its iter_args become variables (scalars)
// or slots (tiles) declared before the loop and updated by the yield. A tile
// iter_arg takes over the storage of its initial value when that value is
// dead after the loop, so `acc = zeros(); for ...: acc = mma(a, b, acc)`
// lives in one array from the fill to the final store:
//
//   alignas(64) float acc[16 * 16];
//   ak::fill<16 * 16>(acc, 0.0f);
//   for (int64_t kt = 0; kt < kt_n; kt += 1) {
//     ...
//     ak::mma<ak::f32, 16, 16, 32>(acc, a, b);    // in place: nothing to yield
//   }
//
// scf.if becomes if/else assigning result variables; a tile result reuses
// the storage of a value a branch passes through when that value is dead
// after the if (then the other branch usually computes in place too), else
// that of a dying value the then-branch computes its result from.
//
//===----------------------------------------------------------------------===//
#include "CpuEmitter.h"

using namespace mlir;

namespace argus::codegen::cpu {

void CpuEmitter::emitParallelCopy(ArrayRef<Value> srcs, ArrayRef<std::string> dsts, Operation *op) {
  struct Move {
    Value src;
    std::string from, to;
  };
  SmallVector<Move> moves;
  for (auto [src, dst] : llvm::zip(srcs, dsts)) {
    std::string from = isa<TileType>(src.getType()) ? slots.nameOf(src) : scalar(src);
    if (from != dst)
      moves.push_back({src, from, dst});
  }
  // A destination that another move still reads forces every source through
  // a temporary first (a swap of two loop-carried values, say).
  bool clobbers = false;
  for (const Move &a : moves)
    for (const Move &b : moves)
      if (&a != &b && a.to == b.from)
        clobbers = true;
  if (clobbers) {
    for (Move &m : moves) {
      std::string tmp = names.unique("");
      if (auto tile = dyn_cast<TileType>(m.src.getType())) {
        std::string storage = *storageCType(tile.getElementType());
        std::string n = std::to_string(tile.getNumElements());
        line("alignas(64) " + storage + " " + tmp + "[" + n + "];");
        line("ak::copy<" + n + ">(" + tmp + ", " + m.from + ");");
      } else {
        line("const " + *scalarCType(m.src.getType()) + " " + tmp + " = " + m.from + ";");
      }
      m.from = tmp;
    }
  }
  for (const Move &m : moves) {
    if (auto tile = dyn_cast<TileType>(m.src.getType()))
      line("ak::copy<" + std::to_string(tile.getNumElements()) + ">(" + m.to + ", " + m.from + ");",
           op);
    else
      line(m.to + " = " + m.from + ";", op);
  }
}

LogicalResult CpuEmitter::emitFor(scf::ForOp op) {
  Type ivType = op.getInductionVar().getType();
  std::optional<std::string> ivCType = scalarCType(ivType);
  if (!ivCType || ivType.isInteger(1))
    return fail(op, "unsupported scf.for induction variable type");

  // Loop-carried values: variables / slots declared before the loop.
  SmallVector<std::string> carried;
  llvm::SmallDenseSet<SlotTable::Id> taken;
  for (auto [init, iterArg] : llvm::zip(op.getInitArgs(), op.getRegionIterArgs())) {
    if (auto tile = dyn_cast<TileType>(iterArg.getType())) {
      std::string storage = *storageCType(tile.getElementType());
      SlotTable::Id id = slots.of(init);
      if (!taken.contains(id) &&
          slots.canOverwrite(id, op, storage, tile.getNumElements(), /*regionUsesAreLater=*/true)) {
        slots.place(iterArg, id); // the loop carries the initial value's storage in place
      } else {
        id = declareTile(iterArg, op, "loop-carried");
        line("ak::copy<" + std::to_string(tile.getNumElements()) + ">(" + slots.get(id).name + ", " +
                 slots.nameOf(init) + ");",
             op);
      }
      taken.insert(id);
      carried.push_back(slots.get(id).name);
      continue;
    }
    std::optional<std::string> ctype = scalarCType(iterArg.getType());
    if (!ctype)
      return fail(op, "unsupported loop-carried scalar type");
    std::string name = nameFor(iterArg);
    line(*ctype + " " + name + " = " + scalar(init) + ";", op, "loop-carried");
    scalars[iterArg] = name;
    carried.push_back(name);
  }

  std::string iv = nameFor(op.getInductionVar(), "");
  scalars[op.getInductionVar()] = iv;
  std::string header = "for (" + *ivCType + " " + iv + " = " + scalar(op.getLowerBound()) + "; " +
                       iv + " < " + scalar(op.getUpperBound()) + "; " + iv +
                       " += " + scalar(op.getStep()) + ") {";
  std::string note;
  if (auto stages = op->getAttrOfType<IntegerAttr>(kernel_attr::kPipelineStages))
    note = "pipeline_stages = " + std::to_string(stages.getInt()) + " (copies are synchronous on the CPU)";
  line(header, op, note);
  indent();
  Block &body = *op.getBody();
  if (failed(emitBlock(body)))
    return failure();
  auto yield = cast<scf::YieldOp>(body.getTerminator());
  emitParallelCopy(llvm::to_vector(yield.getOperands()), carried, yield);
  dedent();
  line("}");

  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    if (isa<TileType>(result.getType()))
      slots.place(result, slots.of(op.getRegionIterArgs()[i]));
    else
      scalars[result] = carried[i];
  }
  return success();
}

/// The tile values defined outside `op` that `v` is computed from inside it,
/// nearest first (a breadth-first walk back through the ops in `op`).
static SmallVector<Value> outsideSources(Value v, scf::IfOp op) {
  SmallVector<Value> sources, frontier = {v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  for (size_t i = 0; i < frontier.size(); ++i) {
    Operation *def = frontier[i].getDefiningOp();
    if (!def || !op->isAncestor(def)) {
      if (isa<TileType>(frontier[i].getType()) && !op->isAncestor(frontier[i].getParentBlock()->getParentOp()))
        sources.push_back(frontier[i]);
      continue;
    }
    if (seen.insert(def).second)
      llvm::append_range(frontier, def->getOperands());
  }
  return sources;
}

LogicalResult CpuEmitter::emitIf(scf::IfOp op) {
  SmallVector<std::string> results;
  SmallVector<SlotTable::Id> resultSlots;
  llvm::SmallDenseSet<SlotTable::Id> taken;
  auto thenYield = op.thenYield();
  auto elseYield = op.getNumResults() ? op.elseYield() : scf::YieldOp();

  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    if (auto tile = dyn_cast<TileType>(result.getType())) {
      std::string storage = *storageCType(tile.getElementType());
      SlotTable::Id chosen = -1;
      // Reuse the storage of a value a branch passes through, if it dies here.
      for (Value y : {thenYield.getOperand(i), elseYield.getOperand(i)}) {
        if (op->isAncestor(y.getParentBlock()->getParentOp()))
          continue; // computed inside a branch: no storage outside yet
        SlotTable::Id id = slots.of(y);
        if (!taken.contains(id) && slots.canOverwrite(id, op, storage, tile.getNumElements())) {
          chosen = id;
          break;
        }
      }
      // Else the storage of a value the then-branch computes its yield from,
      // if it dies here: an update `acc = acc * alpha + ...` in both branches
      // then runs in place, with no copies in and out of a result array.
      if (chosen < 0)
        for (Value x : outsideSources(thenYield.getOperand(i), op)) {
          SlotTable::Id id = slots.of(x);
          if (!taken.contains(id) && slots.canOverwrite(id, op, storage, tile.getNumElements())) {
            chosen = id;
            break;
          }
        }
      if (chosen < 0) {
        chosen = declareTile(result, op, "result of the if below");
      }
      taken.insert(chosen);
      resultSlots.push_back(chosen);
      results.push_back(slots.get(chosen).name);
      continue;
    }
    std::optional<std::string> ctype = scalarCType(result.getType());
    if (!ctype)
      return fail(op, "unsupported scf.if result type");
    std::string name = nameFor(result);
    line(*ctype + " " + name + ";", op, "result of the if below");
    results.push_back(name);
    resultSlots.push_back(-1);
  }

  SlotTable::Snapshot before = slots.snapshot();
  line("if (" + scalar(op.getCondition()) + ") {", op);
  indent();
  if (failed(emitBlock(op.getThenRegion().front())))
    return failure();
  emitParallelCopy(llvm::to_vector(thenYield.getOperands()), results, thenYield);
  dedent();
  slots.restore(before);
  Region &elseRegion = op.getElseRegion();
  // An else that only passes through values already in the result storage
  // prints nothing.
  // (Only values from outside the if have storage or a name yet: with any op
  // in the else region there is code anyway.)
  bool elseHasCode = !elseRegion.empty() && !elseRegion.front().without_terminator().empty();
  if (!elseHasCode && !elseRegion.empty() && op.getNumResults() > 0)
    for (auto [i, y] : llvm::enumerate(elseYield.getOperands()))
      if ((isa<TileType>(y.getType()) ? slots.nameOf(y) : scalar(y)) != results[i])
        elseHasCode = true;
  if (elseHasCode) {
    line("} else {");
    indent();
    if (failed(emitBlock(elseRegion.front())))
      return failure();
    if (op.getNumResults() > 0)
      emitParallelCopy(llvm::to_vector(elseYield.getOperands()), results, elseYield);
    dedent();
    slots.restore(before);
  }
  line("}");

  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    if (resultSlots[i] >= 0)
      slots.place(result, resultSlots[i]);
    else
      scalars[result] = results[i];
  }
  return success();
}

} // namespace argus::codegen::cpu
