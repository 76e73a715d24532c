//===- Executor.cpp - kernel walk, control flow and loop summaries ------===//

#include "Executor.h"

#include "argus/Interpreter/Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace argus::verify::detail {

using namespace mlir;

//===----------------------------------------------------------------------===//
// Helpers for op semantics
//===----------------------------------------------------------------------===//

const SymValue &Executor::get(Value v) {
  auto it = values.find(v);
  if (it == values.end()) {
    static const SymValue opaque;
    return opaque;
  }
  return it->second;
}

z3::expr Executor::intOf(Value v) {
  const SymValue &s = get(v);
  if (s.kind == SymValue::Kind::Int)
    return *s.term;
  unsigned bits = v.getType().isIndex() ? kIndexBits : v.getType().getIntOrFloatBitWidth();
  if (s.kind == SymValue::Kind::Bool)
    return z3::ite(*s.term, ctx.bv(1, bits), ctx.bv(0, bits));
  z3::expr fresh = ctx.choice("unknown value", bits, position());
  set(v, SymValue{SymValue::Kind::Int, fresh, std::nullopt, {}, -1});
  return fresh;
}

std::optional<z3::expr> Executor::boolOf(Value v) {
  const SymValue &s = get(v);
  if (s.kind == SymValue::Kind::Bool)
    return *s.term;
  if (s.kind == SymValue::Kind::Int)
    return *s.term != ctx.bv(0, s.term->get_sort().bv_size());
  return std::nullopt;
}

EventContext Executor::here(Operation *op) { return {op, guard, loops, *counters}; }

std::vector<z3::expr> Executor::position(const std::vector<z3::expr> &extra) const {
  std::vector<z3::expr> out;
  for (const LoopFrame &l : loops)
    out.push_back(l.iv);
  if (exec.thread)
    out.push_back(*exec.thread);
  out.insert(out.end(), exec.programIds.begin(), exec.programIds.end());
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

z3::expr Executor::elementRead(Value tensor, int ref, const std::vector<z3::expr> &indices, unsigned bits) {
  if (!unwrittenTensors.contains(tensor))
    return ctx.choice("tensor element", bits, position(indices));
  auto it = elementsOf.find(ref);
  if (it == elementsOf.end()) {
    z3::sort_vector domain(ctx.z3);
    for (const z3::expr &i : indices)
      domain.push_back(i.get_sort());
    const std::string name = "element of " + exec.tensors[ref].name;
    it = elementsOf.emplace(ref, ctx.z3.function(name.c_str(), domain, ctx.z3.bv_sort(bits))).first;
  }
  z3::expr_vector args(ctx.z3);
  for (const z3::expr &i : indices)
    args.push_back(i);
  return it->second(args);
}

void Executor::problem(Operation *op, const std::string &what) {
  if (mode == Mode::Real)
    exec.problems.emplace_back(op, what);
}

std::vector<z3::expr> Executor::freshCoords(size_t rank) {
  std::vector<z3::expr> coords;
  for (size_t d = 0; d < rank; ++d)
    coords.push_back(ctx.fresh("e" + std::to_string(d), kIndexBits, VarRole::Element, true));
  return coords;
}

TileTag Executor::freshTile(const std::vector<int64_t> &shape, const TagExpr &body) {
  return TileTag{freshCoords(shape.size()), body};
}

void Executor::recordWrite(int buffer, SlotWrite w) {
  HistoryItem item;
  item.kind = HistoryItem::Kind::Write;
  item.write = std::move(w);
  memory[buffer].push_back(std::move(item));
}

//===----------------------------------------------------------------------===//
// Arguments and grid
//===----------------------------------------------------------------------===//

void Executor::bindArguments(func::FuncOp kernel) {
  auto names = kernel->getAttrOfType<ArrayAttr>(kernel_attr::kArgNames);
  auto argName = [&](unsigned i) {
    if (names && i < names.size())
      if (auto s = dyn_cast<StringAttr>(names[i]))
        return s.getValue().str();
    return "arg" + std::to_string(i);
  };
  // Symbolic sizes: one variable per symbol, shared by all its uses.
  std::map<std::pair<int64_t, int64_t>, z3::expr> symbolOf;
  if (auto symbols = kernel->getAttrOfType<DictionaryAttr>(kernel_attr::kSymbols)) {
    for (NamedAttribute sym : symbols) {
      z3::expr var = ctx.fresh(sym.getName().str(), kIndexBits, VarRole::Size, false);
      for (Attribute use : cast<ArrayAttr>(sym.getValue())) {
        auto pair = cast<ArrayAttr>(use);
        symbolOf.emplace(std::make_pair(cast<IntegerAttr>(pair[0]).getInt(),
                                        cast<IntegerAttr>(pair[1]).getInt()),
                         var);
      }
    }
  }
  for (BlockArgument arg : kernel.getArguments()) {
    unsigned i = arg.getArgNumber();
    Type type = arg.getType();
    if (auto tensor = dyn_cast<GlobalTensorType>(type)) {
      TensorInfo info{argName(i), {}, std::nullopt};
      for (int64_t d = 0; d < tensor.getRank(); ++d) {
        int64_t size = tensor.getShape()[d];
        auto sym = symbolOf.find({i, d});
        if (size != ShapedType::kDynamic) {
          info.dims.push_back(ctx.index(size));
        } else if (sym != symbolOf.end()) {
          info.dims.push_back(sym->second);
        } else {
          info.dims.push_back(
              ctx.fresh(info.name + ".dim" + std::to_string(d), kIndexBits, VarRole::Size, false));
        }
      }
      for (const z3::expr &dim : info.dims)
        if (!dim.is_numeral())
          exec.launchConstraints.push_back(dim >= ctx.index(1) &&
                                           dim <= ctx.index(options.maxSize));
      set(arg, SymValue{SymValue::Kind::Tensor, std::nullopt, std::nullopt, {},
                        static_cast<int>(exec.tensors.size())});
      exec.tensors.push_back(std::move(info));
    } else if (type.isIntOrIndex()) {
      unsigned bits = type.isIndex() ? kIndexBits : type.getIntOrFloatBitWidth();
      z3::expr var = bits == 1 ? ctx.fresh(argName(i), 0, VarRole::Scalar, false)
                               : ctx.fresh(argName(i), bits, VarRole::Scalar, false);
      set(arg, SymValue{bits == 1 ? SymValue::Kind::Bool : SymValue::Kind::Int, var,
                        std::nullopt, {}, -1});
    }
    // Float scalars stay opaque.
  }
}

void Executor::evaluateGrid(func::FuncOp kernel) {
  auto gridName = kernel->getAttrOfType<FlatSymbolRefAttr>(kernel_attr::kGrid);
  auto module = kernel->getParentOfType<ModuleOp>();
  func::FuncOp grid = gridName && module ? module.lookupSymbol<func::FuncOp>(gridName) : nullptr;
  std::vector<z3::expr> sizes;
  if (!grid || grid.getNumArguments() != kernel.getNumArguments()) {
    problem(kernel, "kernel has no grid function with its arguments");
    for (int a = 0; a < 3; ++a)
      sizes.push_back(ctx.index(1));
  } else {
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
      if (values.count(kernel.getArgument(i)))
        set(grid.getArgument(i), get(kernel.getArgument(i)));
    std::vector<SymValue> out = runBlock(grid.getBody().front());
    for (int a = 0; a < 3; ++a)
      sizes.push_back(a < static_cast<int>(out.size()) && out[a].kind == SymValue::Kind::Int
                          ? *out[a].term
                          : ctx.index(1));
  }
  for (int a = 0; a < 3; ++a) {
    z3::expr pid = ctx.fresh("pid" + std::to_string(a), kIndexBits, VarRole::ProgramId, true);
    exec.programIds.push_back(pid);
    exec.instanceConstraints.push_back(pid >= ctx.index(0) && pid < sizes[a]);
  }
  gridSizes = sizes;
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

std::vector<SymValue> Executor::runBlock(Block &block) {
  for (Operation &op : block.without_terminator())
    runOp(&op);
  std::vector<SymValue> out;
  for (Value v : block.getTerminator()->getOperands())
    out.push_back(get(v));
  return out;
}

void Executor::runOp(Operation *op) {
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    std::vector<SymValue> results = runFor(forOp);
    for (auto [r, v] : llvm::zip(forOp.getResults(), results))
      set(r, v);
    return;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    std::vector<SymValue> results = runIf(ifOp);
    for (auto [r, v] : llvm::zip(ifOp.getResults(), results))
      set(r, v);
    return;
  }
  if (execArith(*this, op) || execArgus(*this, op))
    return;
  problem(op, "the verifier does not model '" + op->getName().getStringRef().str() + "'");
  for (Value r : op->getResults())
    set(r, SymValue{});
}

/// ite(c, a, b) of two symbolic values of one SSA type.
static SymValue mergeValues(Executor &ex, const z3::expr &c, const SymValue &a, const SymValue &b) {
  if (a.kind != b.kind)
    return SymValue{};
  SymValue out = a;
  switch (a.kind) {
  case SymValue::Kind::Int:
  case SymValue::Kind::Bool:
    out.term = z3::ite(c, *a.term, *b.term);
    return out;
  case SymValue::Kind::Tile: {
    std::vector<z3::expr> coords = ex.freshCoords(a.shape.size());
    out.tile = TileTag{coords, iteTag(c, a.tile->at(coords), b.tile->at(coords))};
    out.elements.reset();
    if (a.elements && b.elements)
      out.elements = TileTerm{coords, z3::ite(c, a.elements->at(coords), b.elements->at(coords))};
    return out;
  }
  case SymValue::Kind::Buffer:
  case SymValue::Kind::Tensor:
    return a.ref == b.ref ? a : SymValue{};
  case SymValue::Kind::Opaque:
    return a;
  }
  return a;
}

static Counters mergeCounters(const z3::expr &c, const Counters &a, const Counters &b) {
  return {z3::ite(c, a.epoch, b.epoch), z3::ite(c, a.issued, b.issued),
          z3::ite(c, a.done, b.done), z3::ite(c, a.doneAtBarrier, b.doneAtBarrier)};
}

std::vector<SymValue> Executor::runIf(scf::IfOp op) {
  std::optional<z3::expr> cond = boolOf(op.getCondition());
  z3::expr c = cond ? *cond : ctx.choice("condition", 0, position());
  z3::expr outer = guard;
  Counters before = *counters;

  guard = outer && c;
  std::vector<SymValue> thenValues = runBlock(op.getThenRegion().front());
  Counters afterThen = *counters;

  std::vector<SymValue> elseValues;
  counters = before;
  guard = outer && !c;
  if (!op.getElseRegion().empty())
    elseValues = runBlock(op.getElseRegion().front());
  Counters afterElse = *counters;

  guard = outer;
  counters = mergeCounters(c, afterThen, afterElse);
  std::vector<SymValue> out;
  for (size_t i = 0; i < thenValues.size() && i < elseValues.size(); ++i)
    out.push_back(mergeValues(*this, c, thenValues[i], elseValues[i]));
  return out;
}

} // namespace argus::verify::detail

namespace argus::verify::detail {

void Executor::run(func::FuncOp kernel) {
  exec.kernel = kernel;
  if (auto threads = kernel->getAttrOfType<IntegerAttr>(kernel_attr::kThreads))
    exec.numThreads = std::max<int64_t>(1, threads.getInt());
  kernel.walk([&](TagOp op) {
    ctx.numFields = std::max<unsigned>(ctx.numFields, op.getNames().size());
  });
  memoryModel = std::make_unique<MemoryModel>(ctx, options.loopWindow, exec.numThreads);
  guard = ctx.z3.bool_val(true);
  counters = Counters{ctx.index(0), ctx.index(0), ctx.index(0), ctx.index(0)};
  exec.thread = ctx.fresh("thread", kIndexBits, VarRole::Thread, true);
  exec.instanceConstraints.push_back(*exec.thread >= ctx.index(0) &&
                                     *exec.thread < ctx.index(exec.numThreads));
  bindArguments(kernel);
  // Which arguments no store reaches: their elements hold still for the launch.
  llvm::DenseSet<Value> written;
  kernel.walk([&](StoreOp store) {
    Value t = store.getTensor();
    while (auto segment = t.getDefiningOp<SegmentOp>())
      t = segment.getTensor();
    written.insert(t);
  });
  for (BlockArgument a : kernel.getArguments())
    if (isa<GlobalTensorType>(a.getType()) && !written.contains(a))
      unwrittenTensors.insert(a);
  evaluateGrid(kernel);
  runBlock(kernel.getBody().front());
}

} // namespace argus::verify::detail
