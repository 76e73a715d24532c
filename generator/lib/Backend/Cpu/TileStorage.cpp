//===- TileStorage.cpp - which C++ array holds which tile value -----------===//
#include "TileStorage.h"

#include "mlir/IR/Block.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <stdexcept>

using namespace mlir;

namespace argus::codegen::cpu {

/// True when some use of `v` lies (at any nesting depth) in an op of
/// `at`'s block that comes after `at`; with `includeAt`, uses nested inside
/// `at`'s regions count too.
static bool usedAfterInBlock(Value v, Operation *at, bool includeAt) {
  Block *block = at->getBlock();
  for (OpOperand &use : v.getUses()) {
    Operation *ancestor = block->findAncestorOpInBlock(*use.getOwner());
    if (!ancestor)
      continue;
    if (ancestor == at) {
      if (includeAt && use.getOwner() != at)
        return true;
      continue;
    }
    if (at->isBeforeInBlock(ancestor))
      return true;
  }
  return false;
}

static bool isLoop(Operation *op) { return isa<LoopLikeOpInterface>(op); }

bool isDeadAfter(Value v, Operation *at, bool regionUsesAreLater) {
  Block *defBlock = v.getParentBlock();
  Operation *cur = at;
  bool first = true;
  while (cur->getBlock() != defBlock) {
    if (usedAfterInBlock(v, cur, first && regionUsesAreLater))
      return false;
    first = false;
    Operation *parent = cur->getParentOp();
    if (!parent || isLoop(parent))
      return false; // live into the next iteration (or not nested at all)
    cur = parent;
  }
  return !usedAfterInBlock(v, cur, first && regionUsesAreLater);
}

bool isUsedAfter(Value v, Operation *op) { return usedAfterInBlock(v, op, /*includeAt=*/false); }

int64_t SlotTable::stackBytes() const {
  int64_t bytes = 0;
  for (const Slot &s : slots) {
    if (s.readOnly || s.storeBack)
      continue;
    int64_t width = s.storage == "uint16_t" ? 2 : s.storage == "uint8_t" ? 1
                    : (s.storage == "double" || s.storage == "int64_t") ? 8 : 4;
    bytes += s.elements * width;
  }
  return bytes;
}

SlotTable::Id SlotTable::create(std::string name, std::string storage, int64_t elements,
                                bool readOnly, bool tileRef) {
  Slot s;
  s.name = std::move(name);
  s.storage = std::move(storage);
  s.elements = elements;
  s.readOnly = readOnly;
  s.tileRef = tileRef;
  slots.push_back(std::move(s));
  return static_cast<Id>(slots.size() - 1);
}

SlotTable::Id SlotTable::of(Value v) const {
  auto it = slotOf.find(v);
  return it == slotOf.end() ? -1 : it->second;
}

const std::string &SlotTable::nameOf(Value v) const {
  const Id id = of(v);
  if (id < 0)
    throw std::logic_error("CPU emitter: a tile value is used before it has storage");
  return slots[id].name;
}

void SlotTable::place(Value v, Id id) {
  slots[id].occupants.assign({v});
  slotOf[v] = id;
}

void SlotTable::alias(Value v, Id id) {
  slots[id].occupants.push_back(v);
  slotOf[v] = id;
}

bool SlotTable::canOverwrite(Id id, Operation *at, llvm::StringRef storage, int64_t elements,
                             bool regionUsesAreLater) const {
  if (id < 0)
    return false;
  const Slot &s = slots[id];
  if (s.readOnly || s.storage != storage || s.elements != elements)
    return false;
  if (s.storeBack) { /* the buffer's own storage: only before the store back, for values dead by then */
    Operation *top = at;
    while (top && top->getBlock() != s.storeBack->getBlock())
      top = top->getParentOp();
    if (!top || top == s.storeBack || !top->isBeforeInBlock(s.storeBack))
      return false;
    for (Value result : at->getResults())
      if (isUsedAfter(result, s.storeBack))
        return false;
  }
  for (Value v : s.occupants)
    if (!isDeadAfter(v, at, regionUsesAreLater))
      return false;
  return true;
}

SlotTable::Snapshot SlotTable::snapshot() const {
  Snapshot snap;
  snap.reserve(slots.size());
  for (const Slot &s : slots)
    snap.push_back(s.occupants);
  return snap;
}

void SlotTable::restore(const Snapshot &snap) {
  for (size_t i = 0; i < snap.size() && i < slots.size(); ++i)
    slots[i].occupants = snap[i];
}

} // namespace argus::codegen::cpu
