//===- Executor.cpp - lockstep walk of a kernel body, control flow --------===//
//
// Runs one op at a time for all threads of a program instance. Values that
// every thread holds alike are kept (and computed) once; an op whose inputs
// differ between threads runs once per thread. scf.for bounds must agree in
// all threads. A divergent scf.if (one thread in the then-branch, another in
// the else-branch) is run thread after thread, each alone through its branch,
// provided the branch holds no barrier, async copy or wait: those order
// threads against each other, and a meaning the backends might not share is
// refused rather than given.
//
//===----------------------------------------------------------------------===//
#include "Executor.h"

#include "argus/Interpreter/Interpreter.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace argus::interp::detail {

std::optional<ElemType> elemTypeOf(Type type) {
  if (auto tile = dyn_cast<TileType>(type))
    return ElemType::get(tile.getElementType());
  return ElemType::get(type);
}

void Executor::resetInstance() {
  env.clear();
  pendingCopies.clear();
  buffers.clear();
  segments.clear();
}

//===----------------------------------------------------------------------===//
// Values and lanes
//===----------------------------------------------------------------------===//

const RtValue &Executor::get(Value v) const {
  auto it = env.find(v);
  assert(it != env.end() && "value used before it was defined (the IR is not verified?)");
  return it->second;
}

Elem Executor::scalar(Value v, unsigned thread) const {
  const Elem *e = std::get_if<Elem>(&get(v).at(thread));
  assert(e && "expected a scalar lane");
  return *e;
}

const Tile &Executor::tile(Value v, unsigned thread) const {
  const TileRef *t = std::get_if<TileRef>(&get(v).at(thread));
  assert(t && *t && "expected a tile lane");
  return **t;
}

Buffer *Executor::buffer(Value v, unsigned thread) const {
  Buffer *const *b = std::get_if<Buffer *>(&get(v).at(thread));
  assert(b && *b && "expected a buffer lane");
  return *b;
}

const TensorArg &Executor::tensor(Value v, unsigned thread) const {
  const TensorArg *const *t = std::get_if<const TensorArg *>(&get(v).at(thread));
  assert(t && *t && "expected a tensor lane");
  return **t;
}

unsigned Executor::lanesFor(ValueRange inputs) const {
  for (Value v : inputs)
    if (!get(v).isUniform())
      return static_cast<unsigned>(numThreads);
  return 1;
}

/// The lanes an op reading `inputs` is evaluated for: 0 .. lanesFor - 1, or
/// only the thread running alone through a divergent branch.
static std::pair<unsigned, unsigned> laneRange(const Executor &ex, ValueRange inputs) {
  unsigned n = ex.lanesFor(inputs);
  if (n != 1 && ex.soleThread)
    return {*ex.soleThread, *ex.soleThread + 1};
  return {0, n};
}

LogicalResult Executor::define(Value result, ValueRange inputs,
                               llvm::function_ref<FailureOr<Lane>(unsigned)> fn) {
  auto [begin, end] = laneRange(*this, inputs);
  RtValue value;
  value.lanes.reserve(end - begin);
  for (unsigned t = begin; t < end; ++t) {
    FailureOr<Lane> lane = fn(t);
    if (failed(lane))
      return failure();
    value.lanes.push_back(std::move(*lane));
  }
  set(result, std::move(value));
  return success();
}

LogicalResult Executor::forEachLane(ValueRange inputs,
                                    llvm::function_ref<LogicalResult(unsigned)> fn) {
  auto [begin, end] = laneRange(*this, inputs);
  for (unsigned t = begin; t < end; ++t)
    if (failed(fn(t)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Observation
//===----------------------------------------------------------------------===//

ObservedContext Executor::context(unsigned thread) const {
  ObservedContext ctx;
  ctx.programId = programId;
  ctx.thread = thread;
  ctx.scalarValue = [this, thread](Value v) -> std::optional<int64_t> {
    const RtValue *value = find(v);
    if (!value || !v.getType().isIntOrIndex() || value->lanes.empty())
      return std::nullopt;
    if (!value->isUniform() && thread >= value->lanes.size())
      return std::nullopt;
    const Elem *e = std::get_if<Elem>(&value->at(thread));
    if (!e)
      return std::nullopt;
    return e->i();
  };
  return ctx;
}

void Executor::forThreadsOfLane(ValueRange inputs, unsigned lane,
                                llvm::function_ref<void(unsigned)> fn) const {
  if (soleThread) {
    fn(*soleThread);
    return;
  }
  if (lanesFor(inputs) != 1) {
    fn(lane);
    return;
  }
  for (int64_t t = 0; t < numThreads; ++t)
    fn(static_cast<unsigned>(t));
}

const std::vector<int64_t> &Executor::viewOffsets(Operation *op, Attribute view, int64_t n) {
  auto it = viewTables.find(op);
  if (it != viewTables.end() && static_cast<int64_t>(it->second.size()) == n)
    return it->second;
  std::vector<int64_t> &table = viewTables[op];
  table.resize(n);
  for (int64_t i = 0; i < n; ++i)
    table[i] = applyLayout(view, i);
  return table;
}

void Executor::observeAssertTag(AssertTagOp op) {
  for (int64_t t = 0; t < numThreads; ++t) {
    auto thread = static_cast<unsigned>(t);
    if (soleThread && thread != *soleThread)
      continue;
    llvm::SmallVector<std::vector<double>, 4> values;
    llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 4> shapes;
    for (Value operand : op.getOperands()) {
      std::vector<double> &out = values.emplace_back();
      llvm::SmallVector<int64_t, 4> &shape = shapes.emplace_back();
      const RtValue *value = find(operand);
      std::optional<ElemType> type = elemTypeOf(operand.getType());
      if (!value || !type)
        continue;
      const Lane &lane = value->at(thread);
      if (const Elem *e = std::get_if<Elem>(&lane)) {
        out.push_back(elemToDouble(*type, *e));
      } else if (const TileRef *tile = std::get_if<TileRef>(&lane); tile && *tile) {
        shape.assign((*tile)->shape.begin(), (*tile)->shape.end());
        out.reserve((*tile)->elems.size());
        for (Elem e : (*tile)->elems)
          out.push_back(elemToDouble(*type, e));
      }
    }
    observer->onAssertTag(op, context(thread), values, shapes);
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

LogicalResult Executor::fail(Operation *op, const llvm::Twine &message) {
  error = formatLocation(op->getLoc()) + ": " + message.str();
  return failure();
}

FailureOr<Elem> Executor::uniformScalar(Operation *op, Value v, llvm::StringRef what) {
  if (soleThread)
    return scalar(v, *soleThread);
  const RtValue &value = get(v);
  Elem first = scalar(v, 0);
  for (unsigned t = 1; t < value.lanes.size(); ++t) {
    Elem other = scalar(v, t);
    if (other != first) {
      std::optional<ElemType> type = ElemType::get(v.getType());
      ElemType et = type ? *type : ElemType{};
      error = "divergent control flow at " + formatLocation(op->getLoc()) +
              " is not supported by the interpreter: " + what.str() + " is " +
              formatElem(et, first) + " in thread 0 but " + formatElem(et, other) +
              " in thread " + std::to_string(t);
      return failure();
    }
  }
  return first;
}

//===----------------------------------------------------------------------===//
// Walking blocks
//===----------------------------------------------------------------------===//

LogicalResult Executor::runBlock(Block &block, llvm::SmallVectorImpl<RtValue> &results) {
  results.clear();
  for (Operation &op : block) {
    if (isa<scf::YieldOp, func::ReturnOp>(op)) {
      for (Value v : op.getOperands())
        results.push_back(get(v));
      return success();
    }
    if (failed(execute(&op)))
      return failure();
  }
  return success();
}

LogicalResult Executor::execute(Operation *op) {
  // Tags are compile-time annotations: no run-time effect, regions skipped;
  // an observer is told the operands of each assertion.
  if (auto assertTag = dyn_cast<AssertTagOp>(op)) {
    if (observer)
      observeAssertTag(assertTag);
    return success();
  }
  if (isa<TagOp, ResetTagsOp, TagGetOp, argus::YieldOp>(op))
    return success();
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return runFor(forOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return runIf(ifOp);
  if (std::optional<LogicalResult> r = evalArithOp(*this, op))
    return *r;
  if (std::optional<LogicalResult> r = evalTileOp(*this, op))
    return *r;
  if (std::optional<LogicalResult> r = evalMemoryOp(*this, op))
    return *r;
  return fail(op, "the interpreter does not support '" + op->getName().getStringRef() + "'");
}

//===----------------------------------------------------------------------===//
// scf.for / scf.if
//===----------------------------------------------------------------------===//

LogicalResult Executor::runFor(scf::ForOp op) {
  std::optional<ElemType> ivType = ElemType::get(op.getInductionVar().getType());
  if (!ivType || ivType->isFloat())
    return fail(op, "expected an index or integer induction variable");
  FailureOr<Elem> lb = uniformScalar(op, op.getLowerBound(), "the lower bound");
  if (failed(lb))
    return failure();
  FailureOr<Elem> ub = uniformScalar(op, op.getUpperBound(), "the upper bound");
  if (failed(ub))
    return failure();
  FailureOr<Elem> step = uniformScalar(op, op.getStep(), "the step");
  if (failed(step))
    return failure();
  bool isUnsigned = op.getUnsignedCmp();
  unsigned width = ivType->width;
  auto less = [&](int64_t a, int64_t b) {
    return isUnsigned ? zextInt(width, a) < zextInt(width, b) : a < b;
  };
  if (isUnsigned ? zextInt(width, step->i()) == 0 : step->i() <= 0)
    return fail(op, "expected a positive scf.for step, got " + std::to_string(step->i()));

  llvm::SmallVector<RtValue> carried;
  for (Value init : op.getInitArgs())
    carried.push_back(get(init));
  Block &body = *op.getBody();
  llvm::SmallVector<RtValue> yielded;
  for (int64_t iv = lb->i(); less(iv, ub->i());) {
    set(op.getInductionVar(), RtValue{{Lane(Elem::ofInt(iv))}});
    for (auto [arg, value] : llvm::zip(op.getRegionIterArgs(), carried))
      set(arg, value);
    if (failed(runBlock(body, yielded)))
      return failure();
    carried.swap(yielded);
    // Stop instead of wrapping around when the next value does not fit.
    int64_t next;
    if (isUnsigned) {
      uint64_t u = zextInt(width, iv) + zextInt(width, step->i());
      if (u < zextInt(width, iv) || (width < 64 && u >> width))
        break;
      next = wrapInt(width, static_cast<int64_t>(u));
    } else {
      if (__builtin_add_overflow(iv, step->i(), &next) || wrapInt(width, next) != next)
        break;
    }
    iv = next;
  }
  for (auto [result, value] : llvm::zip(op.getResults(), carried))
    set(result, value);
  return success();
}

/// The first op in `region` that orders threads against each other (a
/// barrier, an async copy, a wait), or null.
static Operation *firstThreadOrderingOp(Region &region) {
  Operation *found = nullptr;
  region.walk([&](Operation *op) {
    auto copy = dyn_cast<CopyOp>(op);
    if (isa<BarrierOp, WaitOp>(op) || (copy && copy.getAsync())) {
      found = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

LogicalResult Executor::runIf(scf::IfOp op) {
  const RtValue &condition = get(op.getCondition());
  bool divergent = false;
  if (!soleThread)
    for (unsigned t = 1; t < condition.lanes.size(); ++t)
      divergent |= scalar(op.getCondition(), t) != scalar(op.getCondition(), 0);
  if (!divergent) {
    FailureOr<Elem> cond = uniformScalar(op, op.getCondition(), "the condition");
    if (failed(cond))
      return failure();
    Region &region = cond->i() != 0 ? op.getThenRegion() : op.getElseRegion();
    llvm::SmallVector<RtValue> yielded;
    if (!region.empty() && failed(runBlock(region.front(), yielded)))
      return failure();
    for (auto [result, value] : llvm::zip(op.getResults(), yielded))
      set(result, value);
    return success();
  }
  for (Region *region : {&op.getThenRegion(), &op.getElseRegion()})
    if (Operation *ordering = firstThreadOrderingOp(*region)) {
      (void)uniformScalar(op, op.getCondition(), "the condition");
      error += ", and its branch holds '" + ordering->getName().getStringRef().str() + "' at " +
               formatLocation(ordering->getLoc());
      return failure();
    }
  // Thread after thread, each alone through its branch; result lane t is
  // what thread t's branch yielded.
  llvm::SmallVector<RtValue> results(op.getNumResults());
  for (unsigned t = 0; t < static_cast<unsigned>(numThreads); ++t) {
    soleThread = t;
    Region &region = scalar(op.getCondition(), t).i() != 0 ? op.getThenRegion() : op.getElseRegion();
    llvm::SmallVector<RtValue> yielded;
    LogicalResult ran = region.empty() ? success() : runBlock(region.front(), yielded);
    soleThread.reset();
    if (failed(ran))
      return failure();
    for (auto [result, value] : llvm::zip(results, yielded))
      result.lanes.push_back(value.at(t));
  }
  for (auto [result, value] : llvm::zip(op.getResults(), results))
    set(result, std::move(value));
  return success();
}

} // namespace argus::interp::detail
