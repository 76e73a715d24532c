//===- LowerBuiltins.cpp - builtin functions, methods and tags ------------===//
//
// The DSL's vocabulary: ids, tile construction, global and buffer memory,
// mma, elementwise math, reductions, layouts, and the tag annotations. Each
// builtin checks its arguments and says what it expected.
//
//===----------------------------------------------------------------------===//
#include "Lowerer.h"

#include <cmath>

using namespace mlir;

namespace argus::lowering {

namespace {

/// Argument access with uniform messages.
struct ArgReader {
  Lowerer &L;
  CallArgs &args;
  const std::string &fn;

  void expectCount(size_t lo, size_t hi) {
    size_t n = args.positional.size();
    if (n < lo || n > hi)
      fail(args.loc, fn + "() takes " +
                         (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                         " positional argument" + (hi == 1 ? "" : "s") + ", got " + std::to_string(n));
  }
  void allowKeywords(std::initializer_list<const char *> names) {
    for (auto &[k, _] : args.keywords) {
      bool ok = false;
      for (const char *n : names) ok |= k == n;
      if (!ok)
        fail(args.keywordNameLocs[k], fn + "() got an unexpected keyword argument '" + k + "'");
    }
  }
  /// Positional `i`, or keyword `name`, or the default.
  std::optional<Sem> get(size_t i, const char *name) {
    if (i < args.positional.size()) {
      if (name && args.keywords.count(name))
        fail(args.keywordLocs[name], fn + "() got '" + name + "' both by position and by name");
      return args.positional[i];
    }
    if (name) {
      auto it = args.keywords.find(name);
      if (it != args.keywords.end()) return it->second;
    }
    return std::nullopt;
  }
  Sem need(size_t i, const char *name) {
    std::optional<Sem> v = get(i, name);
    if (!v)
      fail(args.loc, fn + "() is missing its argument '" + std::string(name ? name : "?") + "'");
    return *v;
  }
  dsl::SourceLoc locOf(size_t i, const char *name) {
    if (i < args.positionalLocs.size()) return args.positionalLocs[i];
    if (name && args.keywordLocs.count(name)) return args.keywordLocs[name];
    return args.loc;
  }
  /// `masked=` of a global access: a compile-time bool, True by default.
  bool masked() {
    auto it = args.keywords.find("masked");
    if (it == args.keywords.end())
      return true;
    if (it->second.kind != Sem::Bool)
      fail(args.keywordLocs["masked"], "masked= expects a compile-time bool (True or False), got " +
                                            describe(it->second));
    return it->second.b;
  }
  /// `layout=` of a buffer slot access: the view attribute, or null.
  Attribute view() {
    auto it = args.keywords.find("layout");
    if (it == args.keywords.end() || it->second.kind == Sem::None)
      return {};
    if (it->second.kind != Sem::Layout)
      fail(args.keywordLocs["layout"], "layout= expects layout(...) or swizzle(...), got " +
                                            describe(it->second));
    return it->second.attr;
  }
  /// Rejects keyword `name` when present: `why` says where it belongs.
  void reject(const char *name, const std::string &why) {
    if (args.keywords.count(name))
      fail(args.keywordNameLocs[name], fn + "(): " + why);
  }
  Sem tile(size_t i, const char *name) {
    Sem v = need(i, name);
    if (v.kind != Sem::Tile)
      fail(locOf(i, name), fn + "() expects a tile for '" + std::string(name ? name : "?") + "', got " + describe(v));
    return v;
  }
};

TileType tileType(Value v) { return cast<TileType>(v.getType()); }

std::optional<UnaryKind> unaryKind(const std::string &name) {
  static const std::map<std::string, UnaryKind> kinds = {
      {"exp", UnaryKind::exp},     {"exp2", UnaryKind::exp2},       {"log", UnaryKind::log},
      {"sqrt", UnaryKind::sqrt},   {"rsqrt", UnaryKind::rsqrt},     {"tanh", UnaryKind::tanh},
      {"sigmoid", UnaryKind::sigmoid}, {"silu", UnaryKind::silu},   {"abs", UnaryKind::abs},
      {"recip", UnaryKind::recip}};
  auto it = kinds.find(name);
  if (it == kinds.end()) return std::nullopt;
  return it->second;
}

double foldUnary(UnaryKind k, double x) {
  switch (k) {
  case UnaryKind::neg: return -x;
  case UnaryKind::abs: return std::fabs(x);
  case UnaryKind::exp: return std::exp(x);
  case UnaryKind::exp2: return std::exp2(x);
  case UnaryKind::log: return std::log(x);
  case UnaryKind::sqrt: return std::sqrt(x);
  case UnaryKind::rsqrt: return 1 / std::sqrt(x);
  case UnaryKind::tanh: return std::tanh(x);
  case UnaryKind::sigmoid: return 1 / (1 + std::exp(-x));
  case UnaryKind::silu: return x / (1 + std::exp(-x));
  case UnaryKind::recip: return 1 / x;
  }
  return x;
}

Attribute intTupleAttr(Lowerer &L, const Sem &v, dsl::SourceLoc at) {
  if (v.kind == Sem::Tuple) {
    SmallVector<Attribute> elems;
    for (const Sem &e : v.elems)
      elems.push_back(intTupleAttr(L, e, at));
    return L.builder.getArrayAttr(elems);
  }
  return L.builder.getI64IntegerAttr(L.toConstInt(v, at, "a layout"));
}

} // namespace

//===----------------------------------------------------------------------===//
// Attribute access, subscripts, calls
//===----------------------------------------------------------------------===//

Sem Lowerer::evalAttribute(const dsl::AttributeExpr &expr) {
  Sem v = eval(*expr.value);
  const std::string &a = expr.attr;
  auto method = [&](const std::string &name) {
    Sem m = Sem::builtin(name);
    m.boundArgs.push_back(v);
    return m;
  };
  switch (v.kind) {
  case Sem::Tensor: {
    if (a == "tile") return method("tensor.tile");
    if (a == "segment") return method("tensor.segment");
    auto type = cast<GlobalTensorType>(v.value.getType());
    if (a == "dtype") { Sem d; d.kind = Sem::Dtype; d.dtype = type.getElementType(); return d; }
    if (a == "shape") {
      Sem t;
      t.kind = Sem::Tuple;
      for (int64_t i = 0; i < type.getRank(); ++i) {
        if (!type.isDynamicDim(i)) t.elems.push_back(Sem::ofInt(type.getShape()[i]));
        else t.elems.push_back(Sem::ofValue(Sem::Scalar, DimOp::create(builder, loc(expr.loc), v.value, i)));
      }
      return t;
    }
    break;
  }
  case Sem::TensorTile:
  case Sem::BufferSlot:
    if (a == "load" || a == "store") return method(a);
    break;
  case Sem::Tile: {
    if (a == "T") {
      CallArgs args;
      args.loc = expr.loc;
      args.positional = {v};
      args.positionalLocs = {expr.loc};
      return callBuiltin("transpose", args);
    }
    if (a == "to") return method("cast");
    TileType type = tileType(v.value);
    if (a == "dtype") { Sem d; d.kind = Sem::Dtype; d.dtype = type.getElementType(); return d; }
    if (a == "shape") {
      Sem t;
      t.kind = Sem::Tuple;
      for (int64_t d : type.getShape()) t.elems.push_back(Sem::ofInt(d));
      return t;
    }
    break;
  }
  default:
    break;
  }
  fail(expr.attrLoc, describe(v) + " has no attribute '" + a + "'");
}

Sem Lowerer::evalSubscript(const dsl::SubscriptExpr &expr) {
  Sem v = eval(*expr.value);
  Sem index = eval(*expr.index);
  if (v.kind == Sem::Buffer) {
    Sem slot;
    slot.kind = Sem::BufferSlot;
    slot.value = v.value;
    slot.indices = toIndexList(index, expr.index->loc);
    auto type = cast<BufferType>(v.value.getType());
    if (slot.indices.size() >= static_cast<size_t>(type.getRank()))
      fail(expr.index->loc, "a buffer slot needs fewer indices than the buffer's rank (" +
                                std::to_string(type.getRank()) + "), got " + std::to_string(slot.indices.size()));
    return slot;
  }
  if (v.kind == Sem::Tuple) {
    int64_t i = toConstInt(index, expr.index->loc, "a tuple index");
    int64_t n = v.elems.size();
    if (i < -n || i >= n)
      fail(expr.index->loc, "tuple index " + std::to_string(i) + " out of range for " + std::to_string(n) + " elements");
    return v.elems[i < 0 ? i + n : i];
  }
  if (v.kind == Sem::Tensor) {
    // One element as a scalar (indirection: block tables, offsets).
    auto type = cast<GlobalTensorType>(v.value.getType());
    std::vector<Value> indices = toIndexList(index, expr.index->loc);
    if (indices.size() != static_cast<size_t>(type.getRank()))
      fail(expr.index->loc, "reading one element of " + v.s + " takes " + std::to_string(type.getRank()) +
                                (type.getRank() == 1 ? " index" : " indices") + ", got " +
                                std::to_string(indices.size()) + " (tiles: " + v.s + ".tile(coords, shape))");
    return Sem::ofValue(Sem::Scalar, ReadOp::create(builder, loc(expr.loc), type.getElementType(), v.value, indices));
  }
  fail(expr.loc, describe(v) + " cannot be indexed");
}

Sem Lowerer::evalCall(const dsl::CallExpr &expr) {
  Sem callee = eval(*expr.callee);
  if (callee.kind != Sem::Builtin)
    fail(expr.callee->loc, describe(callee) + " is not callable");
  CallArgs args;
  args.loc = expr.loc;
  for (const Sem &b : callee.boundArgs) {
    args.positional.push_back(b);
    args.positionalLocs.push_back(expr.callee->loc);
  }
  for (const dsl::ExprPtr &a : expr.args) {
    args.positional.push_back(eval(*a));
    args.positionalLocs.push_back(a->loc);
  }
  for (const dsl::Keyword &kw : expr.keywords) {
    if (args.keywords.count(kw.name))
      fail(kw.loc, "keyword argument '" + kw.name + "' repeated");
    args.keywords[kw.name] = eval(*kw.value);
    args.keywordLocs[kw.name] = kw.value->loc;
    args.keywordNameLocs[kw.name] = kw.loc;
  }
  return callBuiltin(callee.s, args);
}

//===----------------------------------------------------------------------===//
// Builtins
//===----------------------------------------------------------------------===//

Sem Lowerer::callBuiltin(const std::string &name, CallArgs &args) {
  static const std::set<std::string> perInstance = {
      "pid", "program_id", "num_programs", "tid", "thread_id", "num_threads", "load", "prefetch", "store",
      "shared", "local", "copy", "copy_async", "wait", "barrier", "mma", "tag", "assert_tag", "reset_tags",
      "priority", "schedule_group"};
  if (inGridExpression && perInstance.count(name))
    fail(args.loc, name + "() cannot be used in grid=(...): the grid is computed before any program instance runs");
  ArgReader r{*this, args, name};
  Location at = loc(args.loc);
  Sem none;

  // --- integer helpers
  if (name == "cdiv") {
    r.expectCount(2, 2);
    r.allowKeywords({});
    Sem a = args.positional[0], b = args.positional[1];
    if (a.isConst() && b.isConst()) {
      int64_t x = toConstInt(a, args.loc, "cdiv"), y = toConstInt(b, args.loc, "cdiv");
      if (y == 0) fail(args.loc, "cdiv by zero");
      if (x == INT64_MIN && y == -1) fail(args.loc, "integer overflow in constant");
      return Sem::ofInt(x / y + ((x % y != 0) && ((x < 0) == (y < 0))));
    }
    return Sem::ofValue(Sem::Scalar, arith::CeilDivSIOp::create(builder, at, toIndex(a, args.loc),
                                                                toIndex(b, args.loc)));
  }
  if (name == "min" || name == "max" || name == "minimum" || name == "maximum") {
    r.expectCount(2, 2);
    r.allowKeywords({});
    bool isMax = name == "max" || name == "maximum";
    Sem a = args.positional[0], b = args.positional[1];
    if (a.isConst() && b.isConst()) {
      if (a.kind == Sem::Float || b.kind == Sem::Float) {
        double x = toConstFloat(a, args.loc, name), y = toConstFloat(b, args.loc, name);
        return Sem::ofFloat(isMax ? std::max(x, y) : std::min(x, y));
      }
      int64_t x = toConstInt(a, args.loc, name), y = toConstInt(b, args.loc, name);
      return Sem::ofInt(isMax ? std::max(x, y) : std::min(x, y));
    }
    if (a.kind == Sem::Tile || b.kind == Sem::Tile) {
      Elementwise e = elementwiseOperands({a, b}, args.loc);
      return Sem::ofValue(Sem::Tile, BinaryOp::create(builder, at, TileType::get(&ctx, e.shape, e.element),
                                                      isMax ? BinaryKind::max : BinaryKind::min, e.values[0],
                                                      e.values[1]));
    }
    Type type = (a.kind == Sem::Scalar ? a : b).value.getType();
    Value x = toScalarOf(a, type, args.loc), y = toScalarOf(b, type, args.loc);
    if (isa<FloatType>(type))
      return Sem::ofValue(Sem::Scalar, isMax ? Value(arith::MaximumFOp::create(builder, at, x, y))
                                             : Value(arith::MinimumFOp::create(builder, at, x, y)));
    return Sem::ofValue(Sem::Scalar, isMax ? Value(arith::MaxSIOp::create(builder, at, x, y))
                                           : Value(arith::MinSIOp::create(builder, at, x, y)));
  }
  if (name == "float" || name == "int") {
    r.expectCount(1, 1);
    r.allowKeywords({});
    Sem v = args.positional[0];
    if (v.isConst()) {
      if (name == "float") return Sem::ofFloat(toConstFloat(v, args.loc, name));
      if (v.kind == Sem::Float && !(std::fabs(v.f) < 9.2e18))
        fail(args.loc, "int() of a float outside the range of a 64-bit integer");
      return Sem::ofInt(v.kind == Sem::Float ? int64_t(v.f) : toConstInt(v, args.loc, name));
    }
    if (v.kind != Sem::Scalar) fail(args.loc, name + "() converts scalars; use cast(...) for tiles");
    Type t = v.value.getType();
    if (name == "float") {
      if (isa<FloatType>(t)) return Sem::ofValue(Sem::Scalar, toScalarOf(v, builder.getF32Type(), args.loc));
      Value i64 = toScalarOf(v, builder.getI64Type(), args.loc);
      return Sem::ofValue(Sem::Scalar, arith::SIToFPOp::create(builder, at, builder.getF32Type(), i64));
    }
    if (isa<FloatType>(t))
      return Sem::ofValue(Sem::Scalar, arith::IndexCastOp::create(
                                           builder, at, builder.getIndexType(),
                                           arith::FPToSIOp::create(builder, at, builder.getI64Type(), v.value)));
    return Sem::ofValue(Sem::Scalar, toIndex(v, args.loc));
  }

  // --- ids
  if (name == "pid" || name == "program_id" || name == "num_programs") {
    r.expectCount(0, 1);
    r.allowKeywords({"axis"});
    std::optional<Sem> axis = r.get(0, "axis");
    int64_t ax = axis ? toConstInt(*axis, r.locOf(0, "axis"), "the grid axis") : 0;
    if (ax < 0 || ax > 2) fail(r.locOf(0, "axis"), "grid axis must be 0, 1 or 2, got " + std::to_string(ax));
    if (name == "num_programs")
      return Sem::ofValue(Sem::Scalar, NumProgramsOp::create(builder, at, ax));
    return Sem::ofValue(Sem::Scalar, ProgramIdOp::create(builder, at, ax));
  }
  if (name == "tid" || name == "thread_id" || name == "num_threads") {
    r.expectCount(0, 0);
    r.allowKeywords({});
    if (name == "num_threads") return Sem::ofValue(Sem::Scalar, NumThreadsOp::create(builder, at));
    return Sem::ofValue(Sem::Scalar, ThreadIdOp::create(builder, at));
  }

  // --- tile construction
  if (name == "zeros" || name == "full") {
    bool isFull = name == "full";
    r.expectCount(1, isFull ? 3 : 2);
    r.allowKeywords(isFull ? std::initializer_list<const char *>{"shape", "value", "dtype"}
                           : std::initializer_list<const char *>{"shape", "dtype"});
    std::vector<int64_t> shape = toShape(r.need(0, "shape"), r.locOf(0, "shape"), "the tile shape");
    std::optional<Sem> dt = r.get(isFull ? 2 : 1, "dtype");
    Type element = dt ? toDtype(*dt, r.locOf(isFull ? 2 : 1, "dtype")) : builder.getF32Type();
    Sem value = isFull ? r.need(1, "value") : Sem::ofInt(0);
    Value scalar = toScalarOf(value, element, r.locOf(1, "value"));
    return Sem::ofValue(Sem::Tile, FullOp::create(builder, at, TileType::get(&ctx, shape, element), scalar));
  }
  if (name == "iota") {
    r.expectCount(1, 2);
    r.allowKeywords({"shape", "dim"});
    std::vector<int64_t> shape = toShape(r.need(0, "shape"), r.locOf(0, "shape"), "the tile shape");
    std::optional<Sem> dim = r.get(1, "dim");
    int64_t d = dim ? toConstInt(*dim, r.locOf(1, "dim"), "iota's dim") : int64_t(shape.size()) - 1;
    if (d < 0 || d >= int64_t(shape.size())) fail(r.locOf(1, "dim"), "iota dim out of range");
    return Sem::ofValue(Sem::Tile, IotaOp::create(builder, at, TileType::get(&ctx, shape, builder.getI32Type()), d));
  }

  // --- global tensors
  if (name == "tensor.tile") {
    r.expectCount(3, 3);
    r.allowKeywords({});
    Sem tensor = args.positional[0];
    auto type = cast<GlobalTensorType>(tensor.value.getType());
    std::vector<Value> coords = toIndexList(args.positional[1], args.positionalLocs[1]);
    std::vector<int64_t> shape = toShape(args.positional[2], args.positionalLocs[2], "the tile shape");
    if (coords.size() != static_cast<size_t>(type.getRank()) || shape.size() != coords.size())
      fail(args.loc, "tensor '" + tensor.s + "' has rank " + std::to_string(type.getRank()) +
                         "; tile() needs that many coordinates and sizes, got " + std::to_string(coords.size()) +
                         " and " + std::to_string(shape.size()));
    Sem t;
    t.kind = Sem::TensorTile;
    t.value = tensor.value;
    t.s = tensor.s;
    t.shape = shape;
    for (size_t i = 0; i < coords.size(); ++i) // element offset = tile coordinate * tile size
      t.indices.push_back(arith::MulIOp::create(builder, at, coords[i], indexConst(shape[i], args.loc)));
    return t;
  }
  if (name == "tensor.segment") {
    r.expectCount(3, 4);
    r.allowKeywords({});
    Sem tensor = args.positional[0], offsets = args.positional[1];
    if (offsets.kind != Sem::Tensor)
      fail(args.positionalLocs[1], "segment() takes the cumulative lengths as a tensor argument (cu_seqlens), got " +
                                       describe(offsets));
    auto type = cast<GlobalTensorType>(tensor.value.getType());
    auto offsetsType = cast<GlobalTensorType>(offsets.value.getType());
    if (offsetsType.getRank() != 1 || !offsetsType.getElementType().isSignlessInteger())
      fail(args.positionalLocs[1], "segment() needs cumulative lengths of rank 1 and an integer type; '" + offsets.s +
                                       "' is not");
    SmallVector<int64_t> shape(type.getShape());
    shape[0] = ShapedType::kDynamic;
    Value key = toIndex(args.positional[2], args.positionalLocs[2]);
    Value limit = args.positional.size() > 3 ? toIndex(args.positional[3], args.positionalLocs[3]) : Value();
    Sem t = Sem::ofValue(Sem::Tensor, SegmentOp::create(builder, at, GlobalTensorType::get(&ctx, shape,
                                                                                            type.getElementType()),
                                                        tensor.value, offsets.value, key, limit));
    t.s = tensor.s + ".segment";
    return t;
  }
  if (name == "load") {
    r.expectCount(1, 1);
    r.allowKeywords({"padding", "masked", "layout"});
    Sem src = args.positional[0];
    if (src.kind == Sem::TensorTile) {
      r.reject("layout", "layout= views a buffer slot (buf[i].load(layout=...)), not a tensor tile");
      auto type = cast<GlobalTensorType>(src.value.getType());
      auto tile = TileType::get(&ctx, src.shape, type.getElementType());
      bool masked = r.masked();
      double padding = 0.0;
      if (std::optional<Sem> p = r.get(99, "padding")) {
        if (!masked)
          fail(args.keywordNameLocs["padding"],
               "padding= has no meaning with masked=False: an unmasked load reads no element out of bounds");
        padding = toConstFloat(*p, r.locOf(99, "padding"), "padding");
      }
      auto op = LoadOp::create(builder, at, tile, src.value, src.indices, APFloat(padding), !masked);
      return Sem::ofValue(Sem::Tile, op);
    }
    if (src.kind == Sem::BufferSlot) {
      if (args.keywords.count("padding")) fail(args.keywordLocs["padding"], "buffer loads take no padding");
      r.reject("masked", "buffer slots are never masked; masked= applies to tensor tiles");
      auto type = cast<BufferType>(src.value.getType());
      auto tile = TileType::get(&ctx, type.getShape().drop_front(src.indices.size()), type.getElementType());
      return Sem::ofValue(Sem::Tile, BufferLoadOp::create(builder, at, tile, src.value, src.indices, r.view()));
    }
    fail(args.positionalLocs[0], "load() reads a tensor tile (A.tile(...)) or a buffer slot (buf[i]), got " +
                                     describe(src));
  }
  if (name == "prefetch") {
    r.expectCount(1, 2);
    r.allowKeywords({"level"});
    Sem src = args.positional[0];
    if (src.kind == Sem::Tensor && args.positional.size() == 2) {
      // prefetch(A, (i, j)): all of A[i, j, ...], whatever its run-time sizes.
      auto type = cast<GlobalTensorType>(src.value.getType());
      std::vector<Value> lead = toIndexList(args.positional[1], args.positionalLocs[1]);
      if (lead.empty() || lead.size() > static_cast<size_t>(type.getRank()))
        fail(args.positionalLocs[1], "prefetch(A, coords) takes 1 to " + std::to_string(type.getRank()) +
                                         " leading coordinates of '" + src.s + "', got " +
                                         std::to_string(lead.size()));
      src.kind = Sem::TensorTile;
      src.indices = lead;
      src.shape.assign(lead.size(), 1);
      for (int64_t d = int64_t(lead.size()); d < type.getRank(); ++d) {
        src.indices.push_back(indexConst(0, args.loc));
        src.shape.push_back(ShapedType::kDynamic);
      }
    } else if (src.kind != Sem::TensorTile || args.positional.size() != 1) {
      fail(args.positionalLocs[0], "prefetch() takes a tensor tile (A.tile(...)) or a tensor and leading "
                                   "coordinates (A, (i,)), got " + describe(src));
    }
    std::optional<Sem> level = r.get(2, "level");
    int64_t cacheLevel = level ? toConstInt(*level, r.locOf(2, "level"), "the cache level") : 1;
    if (cacheLevel < 1 || cacheLevel > 3)
      fail(r.locOf(2, "level"), "prefetch() level must be 1, 2 or 3 (a cache level), got " + std::to_string(cacheLevel));
    PrefetchOp::create(builder, at, src.value, src.indices, builder.getDenseI64ArrayAttr(src.shape),
                       builder.getI64IntegerAttr(cacheLevel));
    return Sem{};
  }
  if (name == "store") {
    r.expectCount(2, 2);
    r.allowKeywords({"masked", "layout"});
    Sem dst = args.positional[0];
    Sem value = r.tile(1, "value");
    TileType vt = tileType(value.value);
    if (dst.kind == Sem::TensorTile) {
      auto type = cast<GlobalTensorType>(dst.value.getType());
      if (ArrayRef<int64_t>(dst.shape) != vt.getShape())
        fail(args.loc, "store() of a tile whose shape differs from the destination tile's");
      if (vt.getElementType() != type.getElementType())
        fail(args.loc, "store() of a tile whose element type differs from tensor '" + dst.s + "'s; use cast(...)");
      r.reject("layout", "layout= views a buffer slot (buf[i].store(t, layout=...)), not a tensor tile");
      StoreOp::create(builder, at, value.value, dst.value, dst.indices, !r.masked());
      return none;
    }
    if (dst.kind == Sem::BufferSlot) {
      r.reject("masked", "buffer slots are never masked; masked= applies to tensor tiles");
      BufferStoreOp::create(builder, at, value.value, dst.value, dst.indices, r.view());
      return none;
    }
    fail(args.positionalLocs[0], "store() writes a tensor tile (A.tile(...)) or a buffer slot (buf[i]), got " +
                                     describe(dst));
  }

  // --- buffers
  if (name == "shared" || name == "local") {
    r.expectCount(2, 3);
    r.allowKeywords({"shape", "dtype", "layout"});
    std::vector<int64_t> shape = toShape(r.need(0, "shape"), r.locOf(0, "shape"), "the buffer shape");
    Type element = toDtype(r.need(1, "dtype"), r.locOf(1, "dtype"));
    Attribute layout;
    if (std::optional<Sem> l = r.get(2, "layout"); l && l->kind != Sem::None) {
      if (l->kind != Sem::Layout) fail(r.locOf(2, "layout"), "layout= expects layout(...) or swizzle(...)");
      layout = l->attr;
    }
    auto type = BufferType::getChecked([&] { return emitError(at); }, &ctx, ArrayRef<int64_t>(shape), element,
                                       name == "shared" ? MemorySpace::shared : MemorySpace::local, layout);
    if (!type) fail(args.loc, "invalid buffer");
    return Sem::ofValue(Sem::Buffer, AllocOp::create(builder, at, type));
  }
  if (name == "copy" || name == "copy_async") {
    r.expectCount(2, 2);
    r.allowKeywords({"masked"});
    Sem src = args.positional[0], dst = args.positional[1];
    if (src.kind != Sem::TensorTile)
      fail(args.positionalLocs[0], name + "() copies from a tensor tile (A.tile(...)), got " + describe(src));
    if (dst.kind != Sem::BufferSlot && dst.kind != Sem::Buffer)
      fail(args.positionalLocs[1], name + "() copies into a buffer slot (buf[i]), got " + describe(dst));
    auto bt = cast<BufferType>(dst.value.getType());
    ArrayRef<int64_t> slot = bt.getShape().drop_front(dst.indices.size());
    if (slot != ArrayRef<int64_t>(src.shape))
      fail(args.loc, name + "(): the tile's shape differs from the buffer slot's");
    auto op = CopyOp::create(builder, at, src.value, src.indices, dst.value, dst.indices,
                             /*async=*/name == "copy_async", /*unmasked=*/!r.masked());
    return none;
  }
  if (name == "wait") {
    r.expectCount(0, 1);
    r.allowKeywords({"pending"});
    std::optional<Sem> p = r.get(0, "pending");
    int64_t n = p ? toConstInt(*p, r.locOf(0, "pending"), "wait's pending count") : 0;
    if (n < 0) fail(r.locOf(0, "pending"), "wait() needs a pending count >= 0");
    WaitOp::create(builder, at, n);
    return none;
  }
  if (name == "barrier") {
    r.expectCount(0, 0);
    r.allowKeywords({});
    BarrierOp::create(builder, at);
    return none;
  }
  if (name == "priority") { // scheduling hints: see ArgusOps.td
    r.expectCount(1, 1);
    r.allowKeywords({});
    int64_t level = toConstInt(args.positional[0], args.positionalLocs[0], "priority()'s level");
    if (level < 0 || level > 3)
      fail(args.positionalLocs[0], "priority() takes a level from 0 (the default) to 3, got " + std::to_string(level));
    PriorityOp::create(builder, at, level);
    return none;
  }
  if (name == "schedule_group") {
    r.expectCount(2, 2);
    r.allowKeywords({});
    const Sem &kind = args.positional[0];
    if (kind.kind != Sem::String || ScheduleGroupOp::maskOf(kind.s) == 0)
      fail(args.positionalLocs[0], "schedule_group() takes a kind: \"mfma\", \"valu\", \"salu\", \"vmem_read\", "
                                   "\"vmem_write\", \"ds_read\" or \"ds_write\", got " + describe(kind));
    int64_t count = toConstInt(args.positional[1], args.positionalLocs[1], "schedule_group()'s count");
    if (count < 1 || count > 64)
      fail(args.positionalLocs[1], "schedule_group() takes a count from 1 to 64, got " + std::to_string(count));
    ScheduleGroupOp::create(builder, at, kind.s, count);
    return none;
  }

  // --- compute
  if (name == "mma") {
    r.expectCount(3, 3);
    r.allowKeywords({});
    Sem a = r.tile(0, "a"), b = r.tile(1, "b"), acc = r.tile(2, "acc");
    TileType at_ = tileType(a.value), bt = tileType(b.value), ct = tileType(acc.value);
    if (at_.getRank() != 2 || bt.getRank() != 2 || ct.getRank() != 2)
      fail(args.loc, "mma() takes rank-2 tiles");
    if (at_.getShape()[1] != bt.getShape()[1])
      fail(args.loc, "mma(a, b, acc): a is M x K and b is N x K, but their K differ (" +
                         std::to_string(at_.getShape()[1]) + " and " + std::to_string(bt.getShape()[1]) + ")");
    if (ct.getShape()[0] != at_.getShape()[0] || ct.getShape()[1] != bt.getShape()[0])
      fail(args.loc, "mma(a, b, acc): acc must be " + std::to_string(at_.getShape()[0]) + " x " +
                         std::to_string(bt.getShape()[0]));
    if (!ct.getElementType().isF32())
      fail(args.positionalLocs[2], "mma() accumulates in f32; make acc with zeros(..., f32)");
    if (at_.getElementType() != bt.getElementType())
      fail(args.loc, "mma() operands must have one element type");
    return Sem::ofValue(Sem::Tile, MmaOp::create(builder, at, a.value, b.value, acc.value));
  }
  if (std::optional<UnaryKind> k = unaryKind(name)) {
    r.expectCount(1, 1);
    r.allowKeywords({});
    Sem v = args.positional[0];
    if (v.isConst()) return Sem::ofFloat(foldUnary(*k, toConstFloat(v, args.loc, name)));
    if (v.kind != Sem::Tile) fail(args.positionalLocs[0], name + "() applies to tiles, got " + describe(v));
    if (!isa<FloatType>(tileType(v.value).getElementType()) && *k != UnaryKind::abs)
      fail(args.positionalLocs[0], name + "() needs a floating-point tile");
    return Sem::ofValue(Sem::Tile, UnaryOp::create(builder, at, *k, v.value));
  }
  if (name == "reduce_sum" || name == "reduce_max" || name == "reduce_min") {
    r.expectCount(1, 2);
    r.allowKeywords({"axis"});
    Sem v = r.tile(0, "x");
    TileType t = tileType(v.value);
    std::optional<Sem> axisArg = r.get(1, "axis");
    int64_t axis = axisArg ? toConstInt(*axisArg, r.locOf(1, "axis"), "the reduction axis") : t.getRank() - 1;
    if (axis < 0) axis += t.getRank();
    if (axis < 0 || axis >= t.getRank()) fail(r.locOf(1, "axis"), "reduction axis out of range");
    SmallVector<int64_t> shape(t.getShape());
    shape[axis] = 1;
    ReduceKind kind = name == "reduce_sum" ? ReduceKind::sum : name == "reduce_max" ? ReduceKind::max : ReduceKind::min;
    return Sem::ofValue(Sem::Tile, ReduceOp::create(builder, at, TileType::get(&ctx, shape, t.getElementType()),
                                                    kind, v.value, axis));
  }
  if (name == "cast") {
    r.expectCount(2, 2);
    r.allowKeywords({});
    Sem v = r.tile(0, "x");
    Type element = toDtype(args.positional[1], args.positionalLocs[1]);
    TileType t = tileType(v.value);
    if (t.getElementType() == element) return v;
    return Sem::ofValue(Sem::Tile, CastOp::create(builder, at, TileType::get(&ctx, t.getShape(), element), v.value));
  }
  if (name == "transpose") {
    r.expectCount(1, 1);
    r.allowKeywords({});
    Sem v = r.tile(0, "x");
    TileType t = tileType(v.value);
    if (t.getRank() != 2) fail(args.loc, "transpose() needs a rank-2 tile");
    return Sem::ofValue(Sem::Tile, TransposeOp::create(
                                       builder, at, TileType::get(&ctx, {t.getShape()[1], t.getShape()[0]}, t.getElementType()),
                                       v.value));
  }
  if (name == "reshape") {
    r.expectCount(2, 2);
    r.allowKeywords({});
    Sem v = r.tile(0, "x");
    TileType t = tileType(v.value);
    std::vector<int64_t> shape = toShape(args.positional[1], args.positionalLocs[1], "the new shape");
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    if (n != t.getNumElements())
      fail(args.loc, "reshape() cannot turn " + std::to_string(t.getNumElements()) + " elements into " + std::to_string(n));
    return Sem::ofValue(Sem::Tile, ReshapeOp::create(builder, at, TileType::get(&ctx, shape, t.getElementType()), v.value));
  }
  if (name == "where") {
    r.expectCount(3, 3);
    r.allowKeywords({});
    Sem c = r.tile(0, "condition"), a = args.positional[1], b = args.positional[2];
    if (!tileType(c.value).getElementType().isInteger(1))
      fail(args.positionalLocs[0], "where() needs a boolean tile (from a comparison) as condition");
    // The element type comes from a tile operand, else a run-time scalar, else
    // the constants themselves (f32 when any is a float, else i32).
    Type element;
    if (a.kind != Sem::Tile && b.kind != Sem::Tile) {
      if (a.kind == Sem::Scalar) element = a.value.getType();
      else if (b.kind == Sem::Scalar) element = b.value.getType();
      else element = (a.kind == Sem::Float || b.kind == Sem::Float) ? Type(builder.getF32Type()) : Type(builder.getI32Type());
    }
    Elementwise e = elementwiseOperands({a, b}, args.loc, element);
    SmallVector<int64_t> s2;
    if (!broadcastShapes(tileType(c.value).getShape(), e.shape, s2))
      fail(args.loc, "where(): shapes do not broadcast");
    Value x = e.values[0], y = e.values[1];
    element = e.element;
    return Sem::ofValue(Sem::Tile, SelectOp::create(builder, at, TileType::get(&ctx, s2, element), c.value, x, y));
  }
  if (name == "layout") {
    r.expectCount(2, 2);
    r.allowKeywords({});
    Sem l;
    l.kind = Sem::Layout;
    l.attr = LayoutAttr::getChecked([&] { return emitError(at); }, &ctx,
                                    intTupleAttr(*this, args.positional[0], args.positionalLocs[0]),
                                    intTupleAttr(*this, args.positional[1], args.positionalLocs[1]));
    if (!l.attr) fail(args.loc, "invalid layout");
    return l;
  }
  if (name == "swizzle") {
    r.expectCount(3, 3);
    r.allowKeywords({});
    int64_t v[3];
    for (int i = 0; i < 3; ++i) v[i] = toConstInt(args.positional[i], args.positionalLocs[i], "swizzle()");
    Sem l;
    l.kind = Sem::Layout;
    l.attr = SwizzleAttr::getChecked([&] { return emitError(at); }, &ctx, v[0], v[1], v[2]);
    if (!l.attr) fail(args.loc, "invalid swizzle");
    return l;
  }

  // --- tags
  if (name == "tag") { lowerTag(args); return none; }
  if (name == "assert_tag") { lowerAssertTag(args); return none; }
  if (name == "reset_tags") {
    r.expectCount(1, 1);
    r.allowKeywords({});
    if (args.positional[0].kind != Sem::Buffer) fail(args.positionalLocs[0], "reset_tags() takes a buffer");
    ResetTagsOp::create(builder, at, args.positional[0].value);
    return none;
  }
  if (name == "range" || name == "pipeline")
    fail(args.loc, name + "() is only allowed as the iterable of a for loop");
  fail(args.loc, "unknown builtin '" + name + "'");
}

} // namespace argus::lowering
