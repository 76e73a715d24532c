//===- ExecArgus.cpp - argus ops as tag transfer functions --------------===//
//
// Data movement keeps each element's tag (load, copy, slot store/load,
// cast, transpose, reshape, select); computation (mma, binary, unary,
// reduce, full, iota) gives untagged elements. Memory ops also record the
// events the checks need, and update the per-thread counters.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "argus/Interpreter/Interpreter.h"

#include "llvm/ADT/TypeSwitch.h"

namespace argus::verify::detail {

using namespace mlir;

namespace {

std::vector<int64_t> shapeOf(Type t) {
  if (auto tile = dyn_cast<TileType>(t))
    return std::vector<int64_t>(tile.getShape().begin(), tile.getShape().end());
  return {};
}

SymValue tileValue(std::vector<int64_t> shape, TileTag tag) {
  return SymValue{SymValue::Kind::Tile, std::nullopt, std::move(tag), std::move(shape), -1};
}

std::vector<z3::expr> ints(Executor &ex, ValueRange values) {
  std::vector<z3::expr> out;
  for (Value v : values)
    out.push_back(signExtendTo(ex.intOf(v), kIndexBits));
  return out;
}

/// The per-access view of a buffer_load / buffer_store, if it has one.
std::optional<PhysicalMap> viewOf(Executor &ex, Operation *op) {
  Attribute attr = op->getAttr("view");
  if (!attr)
    return std::nullopt;
  std::string error;
  PhysicalMap map = PhysicalMap::fromAttr(attr, error);
  if (!error.empty())
    ex.problem(op, error);
  return map;
}

/// The tag of a global tile at `offsets`: the tensor's tag function at
/// offsets + coordinates, or untagged.
TileTag globalTile(Executor &ex, int tensor, const std::vector<z3::expr> &offsets,
                   const std::vector<int64_t> &shape) {
  std::vector<z3::expr> coords = ex.freshCoords(shape.size());
  const std::optional<SegmentInfo> &segment = ex.exec.tensors[tensor].segment;
  // A segment's elements carry its base tensor's tags, at base rows.
  const std::optional<unsigned> origin = ex.exec.tensors[segment ? segment->base : tensor].tag;
  if (!origin)
    return TileTag{coords, ex.ctx.untagged()};
  const TagFunction *fn = &ex.exec.tagFunctions[*origin];
  z3::expr_vector from(ex.ctx.z3), to(ex.ctx.z3);
  for (size_t d = 0; d < fn->params.size() && d < coords.size(); ++d) {
    from.push_back(fn->params[d]);
    to.push_back(d == 0 && segment ? segment->start + offsets[d] + coords[d] : offsets[d] + coords[d]);
  }
  TagExpr body{ex.ctx.state(TagState::Tagged), ex.ctx.bv(*origin, 16), {}};
  for (unsigned f = 0; f < ex.ctx.numFields; ++f)
    body.fields.push_back(f < fn->fields.size() ? z3::expr(fn->fields[f]).substitute(from, to)
                                                : ex.ctx.index(0));
  return TileTag{coords, body};
}

/// A global access as the checks see it: through a segment, the segment's
/// key leads the offsets (a 1-wide coordinate).
GlobalAccessEvent globalAccess(Executor &ex, Operation *op, int tensor, bool write, bool unmasked,
                               std::vector<z3::expr> offsets, std::vector<int64_t> shape) {
  if (const std::optional<SegmentInfo> &segment = ex.exec.tensors[tensor].segment) {
    offsets.insert(offsets.begin(), segment->key);
    shape.insert(shape.begin(), 1);
  }
  return {ex.here(op), tensor, write, unmasked, std::move(offsets), std::move(shape)};
}

/// The tensor argus.segment `s` makes, one per op: its key must be the same
/// in every thread and step of the instance (the program ids' alone).
int segmentTensor(Executor &ex, SegmentOp s) {
  SymContext &ctx = ex.ctx;
  const int base = ex.get(s.getTensor()).ref, offsets = ex.get(s.getOffsets()).ref;
  z3::expr key = signExtendTo(ex.intOf(s.getKey()), kIndexBits);
  bool varies = ex.exec.thread && mentions(key, *ex.exec.thread);
  for (const LoopFrame &l : ex.loops)
    varies = varies || mentions(key, l.iv);
  if (varies)
    ex.problem(s, "a segment's key must be the same in every thread and loop step of the instance");
  auto known = ex.tensorOfSegment.find(s);
  if (known != ex.tensorOfSegment.end()) {
    if (!z3::eq(ex.exec.tensors[known->second].segment->key, key))
      ex.problem(s, "a segment's key must be the same at every execution of the op");
    return known->second;
  }
  const TensorInfo &of = ex.exec.tensors[base];
  std::optional<z3::expr> limit;
  if (Value l = s.getLimit()) {
    limit = signExtendTo(ex.intOf(l), kIndexBits);
    bool uniform = !(ex.exec.thread && mentions(*limit, *ex.exec.thread));
    for (const z3::expr &pid : ex.exec.programIds)
      uniform = uniform && !mentions(*limit, pid);
    if (!uniform)
      ex.problem(s, "a segment's limit must be the same in every program instance");
  }
  const std::string lengthKey = key.to_string() + (limit ? " limit " + limit->to_string() : "");
  auto [length, fresh] = ex.segmentLengths.try_emplace({offsets, lengthKey}, ctx.index(0));
  if (fresh) {
    length->second = ctx.fresh(ex.exec.tensors[offsets].name + ".segment_rows", kIndexBits, VarRole::Size, false);
    ex.exec.launchConstraints.push_back(length->second >= ctx.index(0) && length->second <= of.dims[0]);
    if (limit)
      ex.exec.launchConstraints.push_back(length->second <= z3::ite(*limit < ctx.index(0), ctx.index(0), *limit));
  }
  TensorInfo info{of.name, {ex.exec.tensors[offsets].dims[0] - ctx.index(1), length->second}, std::nullopt,
                  SegmentInfo{base, key, ctx.choice("segment start", kIndexBits, {key})}};
  info.dims.insert(info.dims.end(), of.dims.begin() + 1, of.dims.end());
  const int id = static_cast<int>(ex.exec.tensors.size());
  ex.tensorOfSegment[s] = id;
  ex.exec.tensors.push_back(std::move(info));
  return id;
}

/// The tile tag of an operand (scalars are untagged everywhere).
TileTag operandTile(Executor &ex, Value v, size_t rank) {
  const SymValue &s = ex.get(v);
  if (s.kind == SymValue::Kind::Tile && s.tile && s.shape.size() == rank)
    return *s.tile;
  return TileTag{ex.freshCoords(rank), ex.ctx.untagged()};
}


} // namespace

/// Runs a tag function's region on its parameters.
static void bindTagFunction(Executor &ex, TagOp op) {
  Block &body = op.getBody().front();
  auto target = ex.get(op.getTarget());
  std::vector<z3::expr> params;
  for (BlockArgument arg : body.getArguments()) {
    z3::expr p = ex.ctx.fresh("tag parameter", kIndexBits, VarRole::Element, true);
    params.push_back(p);
    ex.set(arg, SymValue{SymValue::Kind::Int, p, std::nullopt, {}, -1});
  }
  for (Operation &inner : body.without_terminator())
    if (!execArith(ex, &inner) && !execArgus(ex, &inner))
      ex.problem(&inner, "unsupported op in a tag function");
  std::vector<z3::expr> fields;
  for (Value v : body.getTerminator()->getOperands())
    fields.push_back(signExtendTo(ex.intOf(v), kIndexBits));

  std::vector<std::string> names;
  for (Attribute n : op.getNames())
    names.push_back(cast<StringAttr>(n).getValue().str());
  unsigned origin = ex.exec.tagFunctions.size();
  if (target.kind == SymValue::Kind::Tensor) {
    ex.exec.tagFunctions.push_back({ex.exec.tensors[target.ref].name, names, params, fields});
    ex.exec.tensors[target.ref].tag = origin;
    return;
  }
  if (target.kind == SymValue::Kind::Buffer) {
    ex.exec.tagFunctions.push_back({ex.exec.buffers[target.ref].name, names, params, fields});
    TagExpr tag{ex.ctx.state(TagState::Tagged), ex.ctx.bv(origin, 16), {}};
    for (unsigned f = 0; f < ex.ctx.numFields; ++f)
      tag.fields.push_back(f < fields.size() ? fields[f] : ex.ctx.index(0));
    SlotWrite w{op, ex.guard, {}, std::nullopt, TileTag{params, tag}};
    w.whole = true;
    ex.recordWrite(target.ref, std::move(w));
    return;
  }
  ex.problem(op, "tag target must be a tensor or a buffer");
}

std::pair<z3::expr, z3::expr> evaluateAssertion(Executor &ex, const AssertEvent &event,
                                                const std::vector<TagExpr> &tags) {
  SymContext &ctx = ex.ctx;
  auto op = cast<AssertTagOp>(event.at.op);
  for (const auto &[value, symbolic] : event.captured)
    ex.set(value, symbolic);
  Block &body = op.getBody().front();
  llvm::DenseMap<Value, size_t> tagArg;
  for (BlockArgument arg : body.getArguments())
    tagArg[arg] = arg.getArgNumber();
  const std::vector<TagFunction> &functions = ex.exec.tagFunctions;
  z3::expr missing = ctx.z3.bool_val(false);
  for (Operation &inner : body.without_terminator()) {
    auto get = dyn_cast<TagGetOp>(inner);
    if (!get) {
      if (!execArith(ex, &inner))
        ex.problem(&inner, "unsupported op in a tag assertion");
      continue;
    }
    const TagExpr &tag = tags[tagArg.lookup(get.getTag())];
    std::string field = get.getField().str();
    bool positional = !field.empty() && std::all_of(field.begin(), field.end(), ::isdigit);
    z3::expr value = ctx.index(0);
    z3::expr known = ctx.z3.bool_val(false);
    if (positional) {
      // Only tags whose function has that many fields have it.
      size_t p = std::stoul(field);
      for (unsigned o = 0; o < functions.size() && p < tag.fields.size(); ++o)
        if (p < functions[o].names.size())
          known = known || tag.origin == ctx.bv(o, 16);
      if (p < tag.fields.size())
        value = tag.fields[p];
    } else {
      for (unsigned o = 0; o < functions.size(); ++o) {
        const std::vector<std::string> &names = functions[o].names;
        auto it = std::find(names.begin(), names.end(), field);
        if (it == names.end())
          continue;
        z3::expr isO = tag.origin == ctx.bv(o, 16);
        value = z3::ite(isO, tag.fields[it - names.begin()], value);
        known = known || isO;
      }
    }
    missing = missing || (tag.state == ctx.state(TagState::Tagged) && !known);
    ex.set(get.getResult(), SymValue{SymValue::Kind::Int, value, std::nullopt, {}, -1});
  }
  Operation *yield = body.getTerminator();
  std::optional<z3::expr> holds =
      yield->getNumOperands() == 1 ? ex.boolOf(yield->getOperand(0)) : std::nullopt;
  if (!holds)
    ex.problem(op, "a tag assertion must yield one i1");
  return {holds ? *holds : ctx.z3.bool_val(false), missing};
}

bool execArgus(Executor &ex, Operation *op) {
  if (op->getDialect() == nullptr || op->getDialect()->getNamespace() != "argus")
    return false;
  SymContext &ctx = ex.ctx;
  Execution &exec = ex.exec;
  const bool real = ex.mode == Executor::Mode::Real;
  Counters &c = *ex.counters;

  TypeSwitch<Operation *>(op)
      .Case<DimOp>([&](DimOp d) {
        const SymValue &t = ex.get(d.getTensor());
        int64_t dim = static_cast<int64_t>(d.getDim());
        if (t.kind == SymValue::Kind::Tensor) {
          const TensorInfo &info = exec.tensors[t.ref];
          ex.set(d.getResult(), SymValue{SymValue::Kind::Int, info.dims[dim + (info.segment ? 1 : 0)],
                                         std::nullopt, {}, -1});
        }
      })
      .Case<SegmentOp>([&](SegmentOp s) {
        ex.set(s.getResult(), SymValue{SymValue::Kind::Tensor, std::nullopt, std::nullopt, {}, segmentTensor(ex, s)});
      })
      .Case<ProgramIdOp>([&](ProgramIdOp p) {
        ex.set(p.getResult(), SymValue{SymValue::Kind::Int,
                                       exec.programIds[static_cast<int64_t>(p.getAxis())],
                                       std::nullopt, {}, -1});
      })
      .Case<NumProgramsOp>([&](NumProgramsOp p) {
        ex.set(p.getResult(), SymValue{SymValue::Kind::Int,
                                       ex.gridSizes[static_cast<int64_t>(p.getAxis())],
                                       std::nullopt, {}, -1});
      })
      .Case<ThreadIdOp>([&](ThreadIdOp t) {
        ex.set(t.getResult(), SymValue{SymValue::Kind::Int, *exec.thread, std::nullopt, {}, -1});
      })
      .Case<NumThreadsOp>([&](NumThreadsOp t) {
        ex.set(t.getResult(),
               SymValue{SymValue::Kind::Int, ctx.index(exec.numThreads), std::nullopt, {}, -1});
      })
      .Case<LoadOp>([&](LoadOp l) {
        int tensor = ex.get(l.getTensor()).ref;
        std::vector<int64_t> shape = shapeOf(l.getType());
        std::vector<z3::expr> offsets = ints(ex, l.getOffsets());
        ex.set(l.getResult(), tileValue(shape, globalTile(ex, tensor, offsets, shape)));
        if (real)
          exec.globalAccesses.push_back(globalAccess(ex, op, tensor, false, op->hasAttr("unmasked"), offsets, shape));
      })
      .Case<PrefetchOp>([&](PrefetchOp) {}) // a hint: no effect on values or tags
      .Case<PriorityOp, ScheduleGroupOp>([&](Operation *) {}) // scheduling hints: likewise
      .Case<ReadOp>([&](ReadOp r) {
        // Caller data (a block table entry): an unknown of the element read
        // (Executor::elementRead); the read itself must be in bounds.
        std::vector<z3::expr> indices = ints(ex, r.getIndices());
        Type type = r.getType();
        if (type.isIntOrIndex()) {
          unsigned bits = type.isIndex() ? kIndexBits : type.getIntOrFloatBitWidth();
          z3::expr value = ex.elementRead(r.getTensor(), ex.get(r.getTensor()).ref, indices, bits);
          ex.set(r.getResult(), SymValue{SymValue::Kind::Int, value, std::nullopt, {}, -1});
        } else {
          ex.set(r.getResult(), SymValue{});
        }
        if (real)
          exec.globalAccesses.push_back(globalAccess(ex, op, ex.get(r.getTensor()).ref, false, /*unmasked=*/true,
                                                     indices, std::vector<int64_t>(indices.size(), 1)));
      })
      .Case<StoreOp>([&](StoreOp s) {
        if (real)
          exec.globalAccesses.push_back(globalAccess(ex, op, ex.get(s.getTensor()).ref, true, op->hasAttr("unmasked"),
                                                     ints(ex, s.getOffsets()), shapeOf(s.getValue().getType())));
      })
      .Case<AllocOp>([&](AllocOp a) {
        auto it = ex.bufferOfAlloc.find(op);
        int id;
        if (it != ex.bufferOfAlloc.end()) {
          id = it->second;
        } else {
          BufferType type = a.getType();
          BufferInfo info;
          info.alloc = op;
          std::string var = isa<NameLoc>(op->getLoc())
                                ? "'" + cast<NameLoc>(op->getLoc()).getName().str() + "' "
                                : std::string();
          bool shared = type.getSpace() == MemorySpace::shared;
          info.name = var + "(" + (shared ? "shared" : "local") + " buffer at " +
                      interp::formatLocation(op->getLoc()) + ")";
          info.shared = shared;
          info.shape.assign(type.getShape().begin(), type.getShape().end());
          std::string error;
          info.map = PhysicalMap::fromAttr(type.getLayout(), error);
          if (!error.empty())
            ex.problem(op, error);
          unsigned bits = type.getElementType().getIntOrFloatBitWidth();
          info.elementBytes = std::max(1u, bits / 8);
          id = exec.buffers.size();
          exec.buffers.push_back(std::move(info));
          ex.bufferOfAlloc[op] = id;
        }
        if (ex.memory.size() <= static_cast<size_t>(id))
          ex.memory.resize(id + 1);
        ex.set(a.getResult(), SymValue{SymValue::Kind::Buffer, std::nullopt, std::nullopt, {}, id});
      })
      .Case<CopyOp>([&](CopyOp cp) {
        int tensor = ex.get(cp.getSrc()).ref, buffer = ex.get(cp.getDst()).ref;
        std::vector<z3::expr> offsets = ints(ex, cp.getSrcOffsets());
        std::vector<z3::expr> slot = ints(ex, cp.getDstIndices());
        const BufferInfo &info = exec.buffers[buffer];
        std::vector<int64_t> shape(info.shape.begin() + slot.size(), info.shape.end());
        SlotWrite w{op, ex.guard, slot, std::nullopt, globalTile(ex, tensor, offsets, shape)};
        w.async = cp.getAsync();
        if (w.async)
          w.seq = c.issued;
        if (real) {
          exec.globalAccesses.push_back(globalAccess(ex, op, tensor, false, op->hasAttr("unmasked"), offsets, shape));
          exec.bufferAccesses.push_back(
              {ex.here(op), buffer, true, w.async, slot, shape, std::nullopt, w.seq});
        }
        ex.recordWrite(buffer, std::move(w));
        if (cp.getAsync())
          c.issued = c.issued + ctx.index(1);
      })
      .Case<WaitOp>([&](WaitOp w) {
        z3::expr reached = c.issued - ctx.index(static_cast<int64_t>(w.getPending()));
        c.done = smax(c.done, reached);
      })
      .Case<BarrierOp>([&](BarrierOp) {
        if (real)
          exec.barriers.push_back(ex.here(op));
        c.epoch = c.epoch + ctx.index(1);
        c.doneAtBarrier = c.done;
      })
      .Case<BufferLoadOp>([&](BufferLoadOp l) {
        int buffer = ex.get(l.getBuffer()).ref;
        std::vector<z3::expr> slot = ints(ex, l.getIndices());
        std::vector<int64_t> shape = shapeOf(l.getType());
        auto view = viewOf(ex, op);
        std::vector<z3::expr> coords = ex.freshCoords(shape.size());
        TagExpr body = ctx.unknown();
        if (exec.buffers[buffer].shared && exec.numThreads > kMaxWriterThreads)
          ex.problem(op, "reads of a shared buffer by more than " +
                             std::to_string(kMaxWriterThreads) +
                             " threads are not modelled (every write is expanded per writer thread)");
        if (real)
          body = ex.memoryModel->read(exec.buffers[buffer], ex.memory[buffer],
                                      ReadPoint{*exec.thread, c.done, c.doneAtBarrier, slot, view,
                                                coords, ex.position(coords)});
        TileTag tag{coords, body};
        ex.set(l.getResult(), tileValue(shape, tag));
        if (real) {
          exec.bufferAccesses.push_back(
              {ex.here(op), buffer, false, false, slot, shape, view, std::nullopt});
          exec.bufferReads.push_back({ex.here(op), buffer, slot, tag, shape});
        }
      })
      .Case<BufferStoreOp>([&](BufferStoreOp s) {
        int buffer = ex.get(s.getBuffer()).ref;
        std::vector<z3::expr> slot = ints(ex, s.getIndices());
        std::vector<int64_t> shape = shapeOf(s.getValue().getType());
        auto view = viewOf(ex, op);
        SlotWrite w{op, ex.guard, slot, view, operandTile(ex, s.getValue(), shape.size())};
        if (real)
          exec.bufferAccesses.push_back(
              {ex.here(op), buffer, true, false, slot, shape, view, std::nullopt});
        ex.recordWrite(buffer, std::move(w));
      })
      .Case<CastOp>([&](CastOp cst) {
        std::vector<int64_t> shape = shapeOf(cst.getType());
        SymValue out = tileValue(shape, operandTile(ex, cst.getOperand(), shape.size()));
        out.elements = elementValues(ex, op);
        ex.set(cst.getResult(), out);
      })
      .Case<TransposeOp>([&](TransposeOp t) {
        std::vector<int64_t> shape = shapeOf(t.getType());
        TileTag src = operandTile(ex, t.getOperand(), 2);
        std::vector<z3::expr> coords = ex.freshCoords(2);
        ex.set(t.getResult(), tileValue(shape, TileTag{coords, src.at({coords[1], coords[0]})}));
      })
      .Case<ReshapeOp>([&](ReshapeOp r) {
        std::vector<int64_t> shape = shapeOf(r.getType());
        std::vector<int64_t> srcShape = shapeOf(r.getOperand().getType());
        TileTag src = operandTile(ex, r.getOperand(), srcShape.size());
        std::vector<z3::expr> coords = ex.freshCoords(shape.size());
        z3::expr linear = ctx.index(0);
        for (size_t d = 0; d < shape.size(); ++d)
          linear = linear * ctx.index(shape[d]) + coords[d];
        std::vector<z3::expr> srcCoords(srcShape.size(), ctx.index(0));
        for (size_t d = srcShape.size(); d-- > 0;) {
          srcCoords[d] = z3::urem(linear, ctx.index(srcShape[d]));
          linear = z3::udiv(linear, ctx.index(srcShape[d]));
        }
        ex.set(r.getResult(), tileValue(shape, TileTag{coords, src.at(srcCoords)}));
      })
      .Case<SelectOp>([&](SelectOp s) {
        std::vector<int64_t> shape = shapeOf(s.getType());
        TileTag a = operandTile(ex, s.getTrueValue(), shape.size());
        TileTag b = operandTile(ex, s.getFalseValue(), shape.size());
        std::vector<z3::expr> coords = ex.freshCoords(shape.size());
        // The condition is data: either side may be chosen for any element. (A mask's condition is
        // known, but tags need no such precision: mask assertions read the mask itself.)
        z3::expr choice = ctx.choice("select", 0, ex.position(coords));
        SymValue out = tileValue(shape, TileTag{coords, iteTag(choice, a.at(coords), b.at(coords))});
        out.elements = elementValues(ex, op);
        ex.set(s.getResult(), out);
      })
      .Case<TagOp>([&](TagOp t) { bindTagFunction(ex, t); })
      .Case<AssertTagOp>([&](AssertTagOp a) {
        if (!real)
          return;
        AssertEvent event{ex.here(op), {}, {}};
        for (Value v : a.getOperands()) {
          const SymValue &s = ex.get(v);
          if (s.kind != SymValue::Kind::Tile) {
            ex.problem(op, "tag assertions take tiles");
            return;
          }
          event.operands.push_back(*s.tile);
          event.shapes.push_back(s.shape);
        }
        if (a.getMask()) {  // the last operand is the mask: its values, not its tags
          event.operands.pop_back();
          event.mask = ex.get(a.getOperands().back()).elements;
          if (!event.mask)
            ex.problem(op, "a mask assertion needs a mask computed from iotas, sizes and scalars (this one "
                           "depends on data, or on a value carried round a loop)");
        }
        // The kernel's values the region reads, as they are here (a loop's body may be run again later).
        a.getBody().walk([&](Operation *inner) {
          for (Value v : inner->getOperands())
            if (!a->isAncestor(v.getParentBlock()->getParentOp()))
              event.captured.emplace_back(v, ex.get(v));
        });
        exec.asserts.push_back(std::move(event));
      })
      .Case<ResetTagsOp>([&](ResetTagsOp r) {
        SlotWrite w{op, ex.guard, {}, std::nullopt, TileTag{{}, ctx.unwritten()}};
        w.reset = true;
        ex.recordWrite(ex.get(r.getBuffer()).ref, std::move(w));
      })
      .Default([&](Operation *) {
        // Computation: full, iota, mma, binary, unary, cmp, reduce.
        for (Value r : op->getResults()) {
          std::vector<int64_t> shape = shapeOf(r.getType());
          SymValue out = tileValue(shape, ex.freshTile(shape, ctx.untagged()));
          out.elements = elementValues(ex, op);
          ex.set(r, out);
        }
      });
  return true;
}

} // namespace argus::verify::detail
