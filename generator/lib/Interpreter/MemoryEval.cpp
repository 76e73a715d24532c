//===- MemoryEval.cpp - global tensors, buffers, async copies, barriers ---===//
//
// Semantics of the argus ops that touch memory:
//
//   load / store     masked global access: an element whose coordinate is < 0
//                    or >= the tensor's dim reads `padding` / is not written.
//   segment          a view of the rows [offsets[key], offsets[key + 1]) of
//                    a tensor, clamped to it, at most `limit` of them; an
//                    absent key: no rows.
//                    `unmasked` (also on copy): such an element is an error.
//   alloc            `shared`: one buffer per program instance; `local`: one
//                    per thread. Fresh buffers hold poison.
//   copy             global tile -> buffer slot, out-of-bounds elements zero.
//                    The source is read at issue. A sync copy writes at once;
//                    an async one is queued and writes at the `wait` that
//                    leaves at most N younger copies in flight.
//   wait N           completes the oldest pending copies until <= N remain.
//   buffer_load/store  slot access; a slot index outside the buffer is an
//                    error (never a wild read). With a `view`, element i of
//                    the slot is at storage[slot base + view(i)].
//   barrier          threads already run in lockstep, so every write before
//                    it is visible after it: nothing left to do.
//
//===----------------------------------------------------------------------===//
#include "Executor.h"

#include <algorithm>

#include "argus/Interpreter/Interpreter.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace argus::interp::detail {
namespace {

std::string coordString(ArrayRef<int64_t> coords) {
  std::string s = "(";
  for (size_t i = 0; i < coords.size(); ++i)
    s += (i ? ", " : "") + std::to_string(coords[i]);
  return s + ")";
}

std::string threadSuffix(Executor &ex, ValueRange inputs, unsigned t) {
  if (ex.lanesFor(inputs) == 1)
    return "";
  return " in thread " + std::to_string(t);
}

/// Visits every element of a global tile at `offsets` (row-major over
/// `tileShape`): fn(tileIndex, coords, inBounds, elementOffsetInElements).
void forEachGlobalElement(const TensorArg &tensor, ArrayRef<int64_t> offsets,
                          ArrayRef<int64_t> tileShape,
                          llvm::function_ref<void(int64_t, ArrayRef<int64_t>, bool, int64_t)> fn) {
  size_t rank = tileShape.size();
  int64_t total = 1;
  for (int64_t d : tileShape)
    total *= d;
  llvm::SmallVector<int64_t, 4> idx(rank, 0), coords(rank);
  for (int64_t i = 0; i < total; ++i) {
    bool inBounds = true;
    int64_t elementOffset = 0;
    for (size_t d = 0; d < rank; ++d) {
      int64_t c;
      if (__builtin_add_overflow(offsets[d], idx[d], &c)) {
        inBounds = false;
        c = offsets[d];
      }
      coords[d] = c;
      if (c < 0 || c >= tensor.desc.shape[d])
        inBounds = false;
      else
        elementOffset += c * tensor.desc.stride[d];
    }
    fn(i, coords, inBounds, elementOffset);
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
      if (++idx[d] < tileShape[d])
        break;
      idx[d] = 0;
    }
  }
}

void *elementAddress(const TensorArg &tensor, int64_t elementOffset) {
  return static_cast<char *>(tensor.desc.data) +
         elementOffset * static_cast<int64_t>(tensor.elem.storageBytes());
}

/// For an `unmasked` access: fails when an element of the tile at `offsets`
/// lies outside `tensor`, naming the element and the bounds.
LogicalResult checkUnmasked(Executor &ex, Operation *op, llvm::StringRef access,
                            const TensorArg &tensor, ArrayRef<int64_t> offsets,
                            ArrayRef<int64_t> shape, const std::string &where) {
  llvm::SmallVector<int64_t, 4> first;
  bool outside = false;
  forEachGlobalElement(tensor, offsets, shape,
                       [&](int64_t, ArrayRef<int64_t> coords, bool inBounds, int64_t) {
                         if (inBounds || outside)
                           return;
                         outside = true;
                         first.assign(coords.begin(), coords.end());
                       });
  if (!outside)
    return success();
  std::string bounds;
  for (size_t d = 0; d < shape.size(); ++d)
    bounds += (d ? " x [0, " : "[0, ") + std::to_string(tensor.desc.shape[d]) + ")";
  return ex.fail(op, "unmasked " + access.str() + " element " + coordString(first) + " of tensor " +
                         tensor.name + ", outside its bounds " + bounds + " (tile at " +
                         coordString(offsets) + " of shape " + coordString(shape) +
                         "; the op promised every element in bounds)" + where);
}

/// Tells the observer about a buffer access by lane `t` of `op`.
void observeBufferAccess(Executor &ex, Operation *op, unsigned t, bool write,
                         ArrayRef<int64_t> slot) {
  if (!ex.observer)
    return;
  ex.forThreadsOfLane(op->getOperands(), t, [&](unsigned thread) {
    ex.observer->onBufferAccess(op, ex.context(thread), write, /*asyncCompletion=*/false, slot);
  });
}

/// Where element `i` of the slot at logical index `base` lives: through the
/// access's view when it has one, else through the buffer's own layout.
/// Fails (instead of a wild access) when a view leaves the storage.
FailureOr<int64_t> slotElement(Executor &ex, Operation *op, const Buffer &buffer, int64_t base,
                               const std::vector<int64_t> *view, int64_t i) {
  if (!view)
    return buffer.physical(base + i);
  int64_t p = base + (*view)[i];
  if (p < 0 || p >= static_cast<int64_t>(buffer.storage.size())) {
    (void)ex.fail(op, "the view maps slot element " + std::to_string(i) + " to offset " +
                          std::to_string((*view)[i]) + ", outside the " + buffer.description);
    return failure();
  }
  return p;
}

/// Reads the masked global tile at `offsets` (out-of-bounds elements read
/// `padding`). Fails when an in-bounds element must be read from a tensor
/// given without data.
LogicalResult readGlobalTile(Executor &ex, Operation *op, const TensorArg &tensor,
                             ArrayRef<int64_t> offsets, ArrayRef<int64_t> shape, Elem padding,
                             std::vector<Elem> &out) {
  out.assign([&] {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }(), padding);
  bool missingData = false;
  llvm::SmallVector<int64_t, 4> firstMissing;
  forEachGlobalElement(tensor, offsets, shape,
                       [&](int64_t i, ArrayRef<int64_t> coords, bool inBounds, int64_t off) {
                         if (!inBounds)
                           return;
                         if (!tensor.desc.data) {
                           if (!missingData)
                             firstMissing.assign(coords.begin(), coords.end());
                           missingData = true;
                           return;
                         }
                         out[i] = readHostElem(tensor.elem, elementAddress(tensor, off));
                       });
  if (missingData)
    return ex.fail(op, "tensor " + tensor.name + " was given without data, but element " +
                           coordString(firstMissing) + " is read");
  return success();
}

/// Offsets (or indices) of `values` in lane `t`.
llvm::SmallVector<int64_t, 4> indicesAt(Executor &ex, ValueRange values, unsigned t) {
  llvm::SmallVector<int64_t, 4> out;
  for (Value v : values)
    out.push_back(ex.scalar(v, t).i());
  return out;
}

/// The logical row-major index of the first element of the slot selected by
/// `indices` (leading dimensions). Fails when an index is out of range.
FailureOr<int64_t> slotBase(Executor &ex, Operation *op, const Buffer &buffer,
                            ArrayRef<int64_t> indices, const std::string &where) {
  ArrayRef<int64_t> shape = buffer.type.getShape();
  int64_t base = 0;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (indices[d] < 0 || indices[d] >= shape[d]) {
      (void)ex.fail(op, "buffer access out of bounds: expected index " + std::to_string(d) +
                            " in [0, " + std::to_string(shape[d]) + "), got " +
                            std::to_string(indices[d]) + " (" + buffer.description + ")" +
                            where);
      return failure();
    }
    base += indices[d] * buffer.rowStrides[d];
  }
  return base;
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

LogicalResult evalLoad(Executor &ex, LoadOp op) {
  ArrayRef<int64_t> shape = op.getType().getShape();
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    const TensorArg &tensor = ex.tensor(op.getTensor(), t);
    Elem padding = elemFromDouble(tensor.elem, op.getPadding().convertToDouble());
    auto tile = std::make_shared<Tile>(shape);
    llvm::SmallVector<int64_t, 4> offsets = indicesAt(ex, op.getOffsets(), t);
    if (op.getUnmasked() && failed(checkUnmasked(ex, op, "load reads", tensor, offsets, shape,
                                                 threadSuffix(ex, op->getOperands(), t))))
      return failure();
    if (failed(readGlobalTile(ex, op, tensor, offsets, shape, padding, tile->elems)))
      return failure();
    return Lane(TileRef(std::move(tile)));
  });
}

LogicalResult evalRead(Executor &ex, ReadOp op) {
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    const TensorArg &tensor = ex.tensor(op.getTensor(), t);
    llvm::SmallVector<int64_t, 4> indices = indicesAt(ex, op.getIndices(), t);
    llvm::SmallVector<int64_t, 4> one(indices.size(), 1);
    if (failed(checkUnmasked(ex, op, "read of", tensor, indices, one, threadSuffix(ex, op->getOperands(), t))))
      return failure();
    std::vector<Elem> element;
    if (failed(readGlobalTile(ex, op, tensor, indices, one, elemFromDouble(tensor.elem, 0.0), element)))
      return failure();
    return Lane(element.front());
  });
}

LogicalResult evalSegment(Executor &ex, SegmentOp op) {
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    const TensorArg &tensor = ex.tensor(op.getTensor(), t), &offsets = ex.tensor(op.getOffsets(), t);
    const int64_t key = ex.scalar(op.getKey(), t).i(), rows = tensor.desc.shape[0];
    int64_t start = 0, end = 0;
    if (key >= 0 && key + 1 < offsets.desc.shape[0]) {
      std::vector<Elem> bounds;
      const int64_t first[1] = {key}, two[1] = {2};
      if (failed(readGlobalTile(ex, op, offsets, first, two, elemFromDouble(offsets.elem, 0.0), bounds)))
        return failure();
      start = std::clamp<int64_t>(bounds[0].i(), 0, rows);
      end = std::clamp<int64_t>(bounds[1].i(), start, rows);
      if (Value limit = op.getLimit())
        end = std::min(end, start + std::max<int64_t>(ex.scalar(limit, t).i(), 0));
    }
    TensorArg &view = ex.segments.emplace_back(tensor);
    view.type = op.getType();
    view.desc.data = start == end ? tensor.desc.data : elementAddress(tensor, start * tensor.desc.stride[0]);
    view.desc.shape[0] = end - start;
    view.name = "segment " + std::to_string(key) + " (rows " + std::to_string(start) + " to " + std::to_string(end) +
                ") of " + tensor.name;
    return Lane(static_cast<const TensorArg *>(&view));
  });
}

LogicalResult evalStore(Executor &ex, StoreOp op) {
  ArrayRef<int64_t> shape = op.getValue().getType().getShape();
  return ex.forEachLane(op->getOperands(), [&](unsigned t) -> LogicalResult {
    const TensorArg &tensor = ex.tensor(op.getTensor(), t);
    const Tile &tile = ex.tile(op.getValue(), t);
    llvm::SmallVector<int64_t, 4> offsets = indicesAt(ex, op.getOffsets(), t);
    if (ex.observer)
      ex.forThreadsOfLane(op->getOperands(), t, [&](unsigned thread) {
        ex.observer->onStore(op, ex.context(thread), offsets, shape);
      });
    if (op.getUnmasked() && failed(checkUnmasked(ex, op, "store writes", tensor, offsets, shape,
                                                 threadSuffix(ex, op->getOperands(), t))))
      return failure();
    llvm::SmallVector<int64_t, 4> firstMissing;
    forEachGlobalElement(tensor, offsets, shape,
                         [&](int64_t i, ArrayRef<int64_t> coords, bool inBounds, int64_t off) {
                           if (!inBounds)
                             return;
                           if (!tensor.desc.data) {
                             if (firstMissing.empty())
                               firstMissing.assign(coords.begin(), coords.end());
                             return;
                           }
                           writeHostElem(tensor.elem, elementAddress(tensor, off), tile.elems[i]);
                         });
    if (!firstMissing.empty())
      return ex.fail(op, "tensor " + tensor.name + " was given without data, but element " +
                             coordString(firstMissing) + " is written");
    return success();
  });
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

LogicalResult evalAlloc(Executor &ex, AllocOp op) {
  BufferType type = op.getType();
  bool shared = type.getSpace() == MemorySpace::shared;
  std::string description = std::string(shared ? "shared" : "local") + " buffer allocated at " +
                            formatLocation(op.getLoc());
  RtValue value;
  int64_t count = shared ? 1 : ex.numThreads;
  for (int64_t t = 0; t < count; ++t) {
    std::string error;
    std::unique_ptr<Buffer> buffer = createBuffer(type, description, error);
    if (!buffer)
      return ex.fail(op, error);
    value.lanes.push_back(buffer.get());
    ex.buffers.push_back(std::move(buffer));
  }
  ex.set(op.getResult(), std::move(value));
  return success();
}

LogicalResult evalCopy(Executor &ex, CopyOp op) {
  BufferType dstType = op.getDst().getType();
  ArrayRef<int64_t> shape = dstType.getShape().drop_front(op.getDstIndices().size());
  PendingCopy copy;
  copy.op = op;
  LogicalResult result = ex.forEachLane(op->getOperands(), [&](unsigned t) -> LogicalResult {
    const TensorArg &tensor = ex.tensor(op.getSrc(), t);
    Buffer *buffer = ex.buffer(op.getDst(), t);
    llvm::SmallVector<int64_t, 4> slot = indicesAt(ex, op.getDstIndices(), t);
    std::string where = threadSuffix(ex, op->getOperands(), t);
    FailureOr<int64_t> base = slotBase(ex, op, *buffer, slot, where);
    if (failed(base))
      return failure();
    observeBufferAccess(ex, op, t, /*write=*/true, slot);
    if (ex.observer && op.getAsync())
      ex.forThreadsOfLane(op->getOperands(), t,
                          [&](unsigned thread) { copy.slots.emplace_back(thread, slot); });
    llvm::SmallVector<int64_t, 4> offsets = indicesAt(ex, op.getSrcOffsets(), t);
    if (op.getUnmasked() &&
        failed(checkUnmasked(ex, op, "copy reads", tensor, offsets, shape, where)))
      return failure();
    std::vector<Elem> values;
    if (failed(readGlobalTile(ex, op, tensor, offsets, shape, elemFromDouble(tensor.elem, 0.0),
                              values)))
      return failure();
    for (size_t i = 0; i < values.size(); ++i)
      copy.writes.push_back({buffer, buffer->physical(*base + static_cast<int64_t>(i)), values[i]});
    return success();
  });
  if (failed(result))
    return failure();
  if (op.getAsync()) {
    ex.pendingCopies.push_back(std::move(copy));
  } else {
    for (const PendingCopy::Write &w : copy.writes)
      w.buffer->storage[w.physical] = w.value;
  }
  return success();
}

LogicalResult evalWait(Executor &ex, WaitOp op) {
  auto keep = static_cast<size_t>(op.getPending());
  while (ex.pendingCopies.size() > keep) {
    const PendingCopy &copy = ex.pendingCopies.front();
    for (const PendingCopy::Write &w : copy.writes)
      w.buffer->storage[w.physical] = w.value;
    if (ex.observer)
      for (const auto &[thread, slot] : copy.slots)
        ex.observer->onBufferAccess(copy.op, ex.context(thread), /*write=*/true,
                                    /*asyncCompletion=*/true, slot);
    ex.pendingCopies.pop_front();
  }
  return success();
}

LogicalResult evalBufferLoad(Executor &ex, BufferLoadOp op) {
  ArrayRef<int64_t> shape = op.getType().getShape();
  const std::vector<int64_t> *view =
      op.getViewAttr() ? &ex.viewOffsets(op, op.getViewAttr(), op.getType().getNumElements())
                       : nullptr;
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    Buffer *buffer = ex.buffer(op.getBuffer(), t);
    llvm::SmallVector<int64_t, 4> slot = indicesAt(ex, op.getIndices(), t);
    FailureOr<int64_t> base =
        slotBase(ex, op, *buffer, slot, threadSuffix(ex, op->getOperands(), t));
    if (failed(base))
      return failure();
    observeBufferAccess(ex, op, t, /*write=*/false, slot);
    auto tile = std::make_shared<Tile>(shape);
    for (int64_t i = 0; i < tile->numElements(); ++i) {
      FailureOr<int64_t> p = slotElement(ex, op, *buffer, *base, view, i);
      if (failed(p))
        return failure();
      tile->elems[i] = buffer->storage[*p];
    }
    if (ex.observer) {
      std::vector<double> values;
      for (const Elem &e : tile->elems)
        values.push_back(elemToDouble(buffer->elem, e));
      ex.forThreadsOfLane(op->getOperands(), t, [&](unsigned thread) {
        ex.observer->onBufferLoad(op, ex.context(thread), slot, values);
      });
    }
    return Lane(TileRef(std::move(tile)));
  });
}

LogicalResult evalBufferStore(Executor &ex, BufferStoreOp op) {
  const std::vector<int64_t> *view =
      op.getViewAttr()
          ? &ex.viewOffsets(op, op.getViewAttr(), op.getValue().getType().getNumElements())
          : nullptr;
  return ex.forEachLane(op->getOperands(), [&](unsigned t) -> LogicalResult {
    Buffer *buffer = ex.buffer(op.getBuffer(), t);
    llvm::SmallVector<int64_t, 4> slot = indicesAt(ex, op.getIndices(), t);
    FailureOr<int64_t> base =
        slotBase(ex, op, *buffer, slot, threadSuffix(ex, op->getOperands(), t));
    if (failed(base))
      return failure();
    observeBufferAccess(ex, op, t, /*write=*/true, slot);
    const Tile &tile = ex.tile(op.getValue(), t);
    for (int64_t i = 0; i < tile.numElements(); ++i) {
      FailureOr<int64_t> p = slotElement(ex, op, *buffer, *base, view, i);
      if (failed(p))
        return failure();
      buffer->storage[*p] = tile.elems[i];
    }
    return success();
  });
}

} // namespace

std::optional<LogicalResult> evalMemoryOp(Executor &ex, Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case([&](LoadOp o) { return evalLoad(ex, o); })
      .Case([&](ReadOp o) { return evalRead(ex, o); })
      .Case([&](StoreOp o) { return evalStore(ex, o); })
      .Case([&](SegmentOp o) { return evalSegment(ex, o); })
      .Case([&](AllocOp o) { return evalAlloc(ex, o); })
      .Case([&](CopyOp o) { return evalCopy(ex, o); })
      .Case([&](WaitOp o) { return evalWait(ex, o); })
      .Case([&](BufferLoadOp o) { return evalBufferLoad(ex, o); })
      .Case([&](BufferStoreOp o) { return evalBufferStore(ex, o); })
      .Case([&](BarrierOp) { return success(); })
      .Case([&](PrefetchOp) { return success(); }) // a hint: no effect on values
      .Case<PriorityOp, ScheduleGroupOp>([&](Operation *) { return success(); }) // scheduling hints
      .Default([](Operation *) { return std::nullopt; });
}

} // namespace argus::interp::detail
