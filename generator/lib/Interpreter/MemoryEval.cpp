//===- MemoryEval.cpp - global tensors, buffers, async copies, barriers ---===//
//
// Semantics of the argus ops that touch memory:
//
//   load / store     masked global access: an element whose coordinate is < 0
//                    or >= the tensor's dim reads `padding` / is not written.
//   alloc            `shared`: one buffer per program instance; `local`: one
//                    per thread. Fresh buffers hold poison.
//   copy             global tile -> buffer slot, out-of-bounds elements zero.
//                    The source is read at issue. A sync copy writes at once;
//                    an async one is queued and writes at the `wait` that
//                    leaves at most N younger copies in flight.
//   wait N           completes the oldest pending copies until <= N remain.
//   buffer_load/store  slot access; a slot index outside the buffer is an
//                    error (never a wild read).
//   barrier          threads already run in lockstep, so every write before
//                    it is visible after it: nothing left to do.
//
//===----------------------------------------------------------------------===//
#include "Executor.h"

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
    if (failed(readGlobalTile(ex, op, tensor, indicesAt(ex, op.getOffsets(), t), shape, padding,
                              tile->elems)))
      return failure();
    return Lane(TileRef(std::move(tile)));
  });
}

LogicalResult evalStore(Executor &ex, StoreOp op) {
  ArrayRef<int64_t> shape = op.getValue().getType().getShape();
  return ex.forEachLane(op->getOperands(), [&](unsigned t) -> LogicalResult {
    const TensorArg &tensor = ex.tensor(op.getTensor(), t);
    const Tile &tile = ex.tile(op.getValue(), t);
    llvm::SmallVector<int64_t, 4> firstMissing;
    forEachGlobalElement(tensor, indicesAt(ex, op.getOffsets(), t), shape,
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
  LogicalResult result = ex.forEachLane(op->getOperands(), [&](unsigned t) -> LogicalResult {
    const TensorArg &tensor = ex.tensor(op.getSrc(), t);
    Buffer *buffer = ex.buffer(op.getDst(), t);
    FailureOr<int64_t> base = slotBase(ex, op, *buffer, indicesAt(ex, op.getDstIndices(), t),
                                       threadSuffix(ex, op->getOperands(), t));
    if (failed(base))
      return failure();
    std::vector<Elem> values;
    if (failed(readGlobalTile(ex, op, tensor, indicesAt(ex, op.getSrcOffsets(), t), shape,
                              elemFromDouble(tensor.elem, 0.0), values)))
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
    for (const PendingCopy::Write &w : ex.pendingCopies.front().writes)
      w.buffer->storage[w.physical] = w.value;
    ex.pendingCopies.pop_front();
  }
  return success();
}

LogicalResult evalBufferLoad(Executor &ex, BufferLoadOp op) {
  ArrayRef<int64_t> shape = op.getType().getShape();
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    Buffer *buffer = ex.buffer(op.getBuffer(), t);
    FailureOr<int64_t> base = slotBase(ex, op, *buffer, indicesAt(ex, op.getIndices(), t),
                                       threadSuffix(ex, op->getOperands(), t));
    if (failed(base))
      return failure();
    auto tile = std::make_shared<Tile>(shape);
    for (int64_t i = 0; i < tile->numElements(); ++i)
      tile->elems[i] = buffer->storage[buffer->physical(*base + i)];
    return Lane(TileRef(std::move(tile)));
  });
}

LogicalResult evalBufferStore(Executor &ex, BufferStoreOp op) {
  return ex.forEachLane(op->getOperands(), [&](unsigned t) -> LogicalResult {
    Buffer *buffer = ex.buffer(op.getBuffer(), t);
    FailureOr<int64_t> base = slotBase(ex, op, *buffer, indicesAt(ex, op.getIndices(), t),
                                       threadSuffix(ex, op->getOperands(), t));
    if (failed(base))
      return failure();
    const Tile &tile = ex.tile(op.getValue(), t);
    for (int64_t i = 0; i < tile.numElements(); ++i)
      buffer->storage[buffer->physical(*base + i)] = tile.elems[i];
    return success();
  });
}

} // namespace

std::optional<LogicalResult> evalMemoryOp(Executor &ex, Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case([&](LoadOp o) { return evalLoad(ex, o); })
      .Case([&](StoreOp o) { return evalStore(ex, o); })
      .Case([&](AllocOp o) { return evalAlloc(ex, o); })
      .Case([&](CopyOp o) { return evalCopy(ex, o); })
      .Case([&](WaitOp o) { return evalWait(ex, o); })
      .Case([&](BufferLoadOp o) { return evalBufferLoad(ex, o); })
      .Case([&](BufferStoreOp o) { return evalBufferStore(ex, o); })
      .Case([&](BarrierOp) { return success(); })
      .Default([](Operation *) { return std::nullopt; });
}

} // namespace argus::interp::detail
