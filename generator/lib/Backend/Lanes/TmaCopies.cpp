//===- TmaCopies.cpp - which copy_asyncs a Hopper kernel issues as TMA copies -===//
#include "TmaCopies.h"

#include "../Cpp/CppSyntax.h"

#include "argus/Dialect/Argus.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;

namespace argus::codegen::lanes {
namespace {

/// Why `copy` cannot be a TMA copy; "" when it can. `rows` gets its box's rows.
std::string disqualification(CopyOp copy, int64_t &rows) {
  const std::string at = " (copy_async at " + locString(copy.getLoc()) + ")";
  auto arg = dyn_cast<BlockArgument>(copy.getSrc());
  if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()))
    return "its source is not a tensor argument of the kernel" + at;
  auto tensor = cast<GlobalTensorType>(copy.getSrc().getType());
  Type element = tensor.getElementType();
  if (tensor.getRank() != 2 || !(element.isBF16() || element.isF16()))
    return "its source is not a 2-D bf16 or f16 tensor" + at;
  auto buffer = cast<BufferType>(copy.getDst().getType());
  auto swizzle = dyn_cast_or_null<SwizzleAttr>(buffer.getLayout());
  if (!swizzle || swizzle.getBits() != 3 || swizzle.getBase() != 3 || swizzle.getShift() != 3)
    return "its buffer is not laid out swizzle(3, 3, 3), TMA's 128-byte swizzle" + at;
  ArrayRef<int64_t> slot = buffer.getShape().drop_front(copy.getDstIndices().size());
  if (slot.size() != 2 || slot[1] != 64 || slot[0] % 8 != 0 || slot[0] > 256)
    return "its slot is not R x 64 with R a multiple of 8 up to 256" + at;
  rows = slot[0];
  return "";
}

} // namespace

TmaPlan planTmaCopies(func::FuncOp kernel, const LaneTarget &target, ArrayRef<std::string> argNames) {
  TmaPlan plan;
  if (target.isHip())
    return plan;
  SmallVector<CopyOp> copies;
  llvm::DenseSet<Value> written; // buffers written otherwise than by an async copy
  kernel.walk([&](Operation *op) {
    if (auto copy = dyn_cast<CopyOp>(op)) {
      if (copy.getAsync())
        copies.push_back(copy);
      else
        written.insert(copy.getDst());
    } else if (auto store = dyn_cast<BufferStoreOp>(op)) {
      written.insert(store.getBuffer());
    }
  });
  if (copies.empty())
    return plan;
  if (target.mma != MmaFamily::Wgmma) {
    plan.whyNot = "TMA copies are for kernels whose mmas are all wgmma (their slots are 1024-byte aligned)";
    return plan;
  }
  int64_t deepest = 0;
  kernel.walk([&](WaitOp wait) { deepest = std::max<int64_t>(deepest, wait.getPending()); });
  std::vector<TmaMap> maps;
  llvm::DenseMap<Operation *, size_t> mapOf;
  for (CopyOp copy : copies) {
    int64_t rows = 0;
    std::string why = disqualification(copy, rows);
    if (why.empty() && written.contains(copy.getDst()))
      why = "its buffer is written by ordinary stores too (copy_async at " + locString(copy.getLoc()) + ")";
    if (!why.empty()) {
      plan.whyNot = "a copy_async cannot be a TMA copy: " + why;
      return plan;
    }
    const unsigned argument = cast<BlockArgument>(copy.getSrc()).getArgNumber();
    auto same = llvm::find_if(maps, [&](const TmaMap &m) { return m.argument == argument && m.rows == rows; });
    if (same == maps.end()) {
      maps.push_back({argument, rows, "tma_" + argNames[argument] + "_" + std::to_string(rows)});
      same = maps.end() - 1;
    }
    mapOf[copy.getOperation()] = size_t(same - maps.begin());
  }
  plan.maps = std::move(maps);
  plan.mapOf = std::move(mapOf);
  plan.ringSize = std::max<int64_t>(8, 2 * int64_t(llvm::PowerOf2Ceil(uint64_t(deepest) + 1)));
  return plan;
}

} // namespace argus::codegen::lanes
