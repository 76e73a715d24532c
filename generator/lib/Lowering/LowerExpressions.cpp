//===- LowerExpressions.cpp - names, operators, constant folding ----------===//
//
// Constants fold at compile time with Python's semantics (// floors, %
// follows the divisor's sign, / gives a float). Run-time scalars become
// `arith` ops; tiles become `argus.binary`/`cmp`/`unary` with numpy
// broadcasting. A constant meeting a run-time value takes that value's type.
//
//===----------------------------------------------------------------------===//
#include "Lowerer.h"

#include <cmath>

using namespace mlir;

namespace argus::lowering {

std::string describe(const Sem &v) {
  auto typeText = [](Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << t;
    return s;
  };
  switch (v.kind) {
  case Sem::None: return "None";
  case Sem::Int: return "the constant " + std::to_string(v.i);
  case Sem::Float: return "a float constant";
  case Sem::Bool: return v.b ? "True" : "False";
  case Sem::String: return "a string";
  case Sem::Dtype: return "the dtype " + typeText(v.dtype);
  case Sem::Tuple: return "a tuple of " + std::to_string(v.elems.size());
  case Sem::Scalar: return "a run-time " + typeText(v.value.getType()) + " scalar";
  case Sem::Tile: return "a tile " + typeText(v.value.getType());
  case Sem::Tensor: return "the tensor '" + v.s + "'";
  case Sem::TensorTile: return "a tensor tile (use load(...) to read it)";
  case Sem::Buffer: return "a buffer";
  case Sem::BufferSlot: return "a buffer slot (use .load() to read it)";
  case Sem::Layout: return "a layout";
  case Sem::Lambda: return "a lambda";
  case Sem::Builtin: return "the builtin '" + v.s + "'";
  }
  return "a value";
}

//===----------------------------------------------------------------------===//
// Constants and conversions
//===----------------------------------------------------------------------===//

Value Lowerer::indexConst(int64_t v, dsl::SourceLoc l) {
  return arith::ConstantIndexOp::create(builder, loc(l), v);
}

Value Lowerer::floatConst(double v, Type type, dsl::SourceLoc l) {
  return arith::ConstantOp::create(builder, loc(l), type, builder.getFloatAttr(type, v));
}

Value Lowerer::intConst(int64_t v, Type type, dsl::SourceLoc l) {
  if (type.isIndex())
    return indexConst(v, l);
  unsigned width = type.getIntOrFloatBitWidth();
  bool fits = width >= 64 || (width == 1 ? (v == 0 || v == 1)
                                         : v >= -(int64_t(1) << (width - 1)) && v < (int64_t(1) << (width - 1)));
  if (!fits) {
    std::string t;
    llvm::raw_string_ostream os(t);
    os << type;
    fail(l, "the constant " + std::to_string(v) + " does not fit in " + t);
  }
  return arith::ConstantOp::create(builder, loc(l), type, builder.getIntegerAttr(type, v));
}

int64_t Lowerer::toConstInt(const Sem &v, dsl::SourceLoc l, const std::string &what) {
  if (v.kind == Sem::Int) return v.i;
  if (v.kind == Sem::Bool) return v.b;
  fail(l, "expected a compile-time integer for " + what + ", got " + describe(v));
}

double Lowerer::toConstFloat(const Sem &v, dsl::SourceLoc l, const std::string &what) {
  if (v.kind == Sem::Float) return v.f;
  if (v.kind == Sem::Int) return static_cast<double>(v.i);
  if (v.kind == Sem::Bool) return v.b;
  fail(l, "expected a compile-time number for " + what + ", got " + describe(v));
}

bool Lowerer::constTruth(const Sem &v, dsl::SourceLoc l) {
  switch (v.kind) {
  case Sem::Bool: return v.b;
  case Sem::Int: return v.i != 0;
  case Sem::Float: return v.f != 0;
  default: fail(l, "expected a compile-time condition, got " + describe(v));
  }
}

std::vector<int64_t> Lowerer::toShape(const Sem &v, dsl::SourceLoc l, const std::string &what) {
  std::vector<int64_t> shape;
  if (v.kind == Sem::Int) {
    shape.push_back(v.i);
  } else if (v.kind == Sem::Tuple) {
    for (const Sem &e : v.elems)
      shape.push_back(toConstInt(e, l, what));
  } else {
    fail(l, "expected a compile-time shape (a tuple of integers) for " + what + ", got " + describe(v));
  }
  if (shape.empty())
    fail(l, what + " must have at least one dimension");
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d <= 0)
      fail(l, what + " dimensions must be positive, got " + std::to_string(d));
    if (__builtin_mul_overflow(elements, d, &elements) || elements > kMaxTileElements)
      fail(l, what + " holds more than " + std::to_string(kMaxTileElements) + " elements");
  }
  return shape;
}

Value Lowerer::toIndex(const Sem &v, dsl::SourceLoc l) {
  if (v.kind == Sem::Int || v.kind == Sem::Bool)
    return indexConst(v.kind == Sem::Int ? v.i : v.b, l);
  if (v.kind == Sem::Scalar) {
    Type t = v.value.getType();
    if (t.isIndex())
      return v.value;
    if (t.isInteger(1)) // booleans count as 0 / 1, not 0 / -1
      return arith::IndexCastUIOp::create(builder, loc(l), builder.getIndexType(), v.value);
    if (isa<IntegerType>(t))
      return arith::IndexCastOp::create(builder, loc(l), builder.getIndexType(), v.value);
  }
  fail(l, "expected an integer index, got " + describe(v));
}

std::vector<Value> Lowerer::toIndexList(const Sem &v, dsl::SourceLoc l) {
  std::vector<Value> out;
  if (v.kind == Sem::Tuple)
    for (const Sem &e : v.elems)
      out.push_back(toIndex(e, l));
  else
    out.push_back(toIndex(v, l));
  return out;
}

Type Lowerer::toDtype(const Sem &v, dsl::SourceLoc l) {
  if (v.kind != Sem::Dtype)
    fail(l, "expected a dtype (f32, f16, bf16, fp8, i32, ...), got " + describe(v));
  return v.dtype;
}

/// Converts a constant or run-time scalar to a scalar of `type`.
Value Lowerer::toScalarOf(const Sem &v, Type type, dsl::SourceLoc l) {
  if (v.kind == Sem::Int || v.kind == Sem::Bool) {
    int64_t i = v.kind == Sem::Int ? v.i : v.b;
    return isa<FloatType>(type) ? floatConst(static_cast<double>(i), type, l) : intConst(i, type, l);
  }
  if (v.kind == Sem::Float) {
    if (!isa<FloatType>(type))
      fail(l, "cannot use a float constant where an integer is expected");
    return floatConst(v.f, type, l);
  }
  if (v.kind != Sem::Scalar)
    fail(l, "expected a scalar, got " + describe(v));
  Type from = v.value.getType();
  if (from == type)
    return v.value;
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(type);
  if (fromF && toF)
    return fromF.getWidth() > toF.getWidth()
               ? Value(arith::TruncFOp::create(builder, loc(l), type, v.value))
               : Value(arith::ExtFOp::create(builder, loc(l), type, v.value));
  bool boolean = from.isInteger(1); // booleans widen to 0 / 1, not 0 / -1
  if ((from.isIndex() && isa<IntegerType>(type)) || (isa<IntegerType>(from) && type.isIndex()))
    return boolean ? Value(arith::IndexCastUIOp::create(builder, loc(l), type, v.value))
                   : Value(arith::IndexCastOp::create(builder, loc(l), type, v.value));
  if (isa<IntegerType>(from) && isa<IntegerType>(type)) {
    if (from.getIntOrFloatBitWidth() > type.getIntOrFloatBitWidth())
      return arith::TruncIOp::create(builder, loc(l), type, v.value);
    return boolean ? Value(arith::ExtUIOp::create(builder, loc(l), type, v.value))
                   : Value(arith::ExtSIOp::create(builder, loc(l), type, v.value));
  }
  std::string a, b;
  llvm::raw_string_ostream sa(a), sb(b);
  sa << from;
  sb << type;
  fail(l, "cannot mix a " + a + " scalar with " + b + " values; convert explicitly with float(...) or int(...)");
}

Value Lowerer::toI1(const Sem &v, dsl::SourceLoc l) {
  if (v.kind == Sem::Scalar) {
    Type t = v.value.getType();
    if (t.isInteger(1))
      return v.value;
    if (isa<IntegerType>(t) || t.isIndex())
      return arith::CmpIOp::create(builder, loc(l), arith::CmpIPredicate::ne, v.value,
                                   intConst(0, t, l));
    if (isa<FloatType>(t))
      return arith::CmpFOp::create(builder, loc(l), arith::CmpFPredicate::UNE, v.value,
                                   floatConst(0, t, l));
  }
  if (v.isConst())
    return intConst(constTruth(v, l), builder.getI1Type(), l);
  fail(l, "expected a condition, got " + describe(v));
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

Sem Lowerer::lookup(const std::string &name, dsl::SourceLoc l) {
  auto it = env.find(name);
  if (it != env.end())
    return it->second;
  if (name == "True" || name == "False")
    return Sem::ofBool(name == "True");
  if (Type t = dtypeFromName(ctx, name)) {
    Sem s;
    s.kind = Sem::Dtype;
    s.dtype = t;
    return s;
  }
  static const std::set<std::string> builtins = {
      "cdiv", "min", "max", "pid", "program_id", "num_programs", "tid", "thread_id", "num_threads",
      "zeros", "full", "iota", "load", "prefetch", "store", "shared", "local", "copy", "copy_async", "wait",
      "barrier", "mma", "exp", "exp2", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "silu", "abs",
      "recip", "reduce_sum", "reduce_max", "reduce_min", "cast", "transpose", "reshape", "where",
      "maximum", "minimum", "tag", "assert_tag", "reset_tags", "layout", "swizzle", "float", "int",
      "range", "pipeline", "priority", "schedule_group"};
  if (builtins.count(name))
    return Sem::builtin(name);
  fail(l, "unknown name '" + name + "'");
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Sem Lowerer::eval(const dsl::Expr &expr) {
  switch (expr.kind) {
  case dsl::ExprKind::Name: return lookup(expr.as<dsl::NameExpr>()->name, expr.loc);
  case dsl::ExprKind::Int: return Sem::ofInt(expr.as<dsl::IntExpr>()->value);
  case dsl::ExprKind::Float: return Sem::ofFloat(expr.as<dsl::FloatExpr>()->value);
  case dsl::ExprKind::Bool: return Sem::ofBool(expr.as<dsl::BoolExpr>()->value);
  case dsl::ExprKind::None: return Sem{};
  case dsl::ExprKind::String: {
    Sem s;
    s.kind = Sem::String;
    s.s = expr.as<dsl::StringExpr>()->value;
    return s;
  }
  case dsl::ExprKind::Tuple:
  case dsl::ExprKind::List: {
    Sem s;
    s.kind = Sem::Tuple;
    const auto &elements = expr.kind == dsl::ExprKind::Tuple ? expr.as<dsl::TupleExpr>()->elements
                                                             : expr.as<dsl::ListExpr>()->elements;
    for (const dsl::ExprPtr &e : elements)
      s.elems.push_back(eval(*e));
    return s;
  }
  case dsl::ExprKind::Call: return evalCall(*expr.as<dsl::CallExpr>());
  case dsl::ExprKind::Attribute: return evalAttribute(*expr.as<dsl::AttributeExpr>());
  case dsl::ExprKind::Subscript: return evalSubscript(*expr.as<dsl::SubscriptExpr>());
  case dsl::ExprKind::Unary: {
    auto *u = expr.as<dsl::UnaryExpr>();
    return evalUnary(u->op, eval(*u->operand), expr.loc);
  }
  case dsl::ExprKind::Binary: {
    auto *b = expr.as<dsl::BinaryExpr>();
    return evalBinary(b->op, eval(*b->lhs), eval(*b->rhs), expr.loc);
  }
  case dsl::ExprKind::Compare: {
    auto *c = expr.as<dsl::CompareExpr>();
    Sem left = eval(*c->first);
    Sem result;
    for (size_t i = 0; i < c->ops.size(); ++i) {
      Sem right = eval(*c->comparators[i]);
      Sem r = evalCompare(c->ops[i], left, right, expr.loc);
      result = i == 0 ? r : evalBinary(dsl::BinaryOp::BitAnd, result, r, expr.loc);
      left = right;
    }
    return result;
  }
  case dsl::ExprKind::BoolOp: {
    auto *b = expr.as<dsl::BoolOpExpr>();
    Sem acc = eval(*b->values[0]);
    for (size_t i = 1; i < b->values.size(); ++i) {
      if (acc.isConst()) { // short-circuit on constants, like Python
        bool t = constTruth(acc, expr.loc);
        if ((b->op == dsl::BoolOpKind::And && !t) || (b->op == dsl::BoolOpKind::Or && t))
          return Sem::ofBool(t);
        acc = eval(*b->values[i]);
        continue;
      }
      Sem next = eval(*b->values[i]);
      Value l = toI1(acc, expr.loc), r = toI1(next, expr.loc);
      acc = Sem::ofValue(Sem::Scalar,
                         b->op == dsl::BoolOpKind::And
                             ? Value(arith::AndIOp::create(builder, loc(expr.loc), l, r))
                             : Value(arith::OrIOp::create(builder, loc(expr.loc), l, r)));
    }
    return acc;
  }
  case dsl::ExprKind::IfElse: {
    auto *e = expr.as<dsl::IfElseExpr>();
    Sem c = eval(*e->condition);
    if (c.isConst())
      return eval(constTruth(c, expr.loc) ? *e->thenValue : *e->elseValue);
    if (c.kind == Sem::Dtype || c.kind == Sem::String)
      return eval(*e->thenValue);
    Sem t = eval(*e->thenValue), f = eval(*e->elseValue);
    if (t.kind == Sem::Scalar || f.kind == Sem::Scalar) {
      Type type = t.kind == Sem::Scalar ? t.value.getType() : f.value.getType();
      return Sem::ofValue(Sem::Scalar,
                          arith::SelectOp::create(builder, loc(expr.loc), toI1(c, expr.loc),
                                                  toScalarOf(t, type, expr.loc),
                                                  toScalarOf(f, type, expr.loc)));
    }
    fail(expr.loc, "a run-time conditional expression must choose between scalars; use where(...) for tiles");
  }
  case dsl::ExprKind::Lambda: {
    Sem s;
    s.kind = Sem::Lambda;
    s.lambda = expr.as<dsl::LambdaExpr>();
    return s;
  }
  }
  fail(expr.loc, "unsupported expression");
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

Lowerer::Elementwise Lowerer::elementwiseOperands(ArrayRef<Sem> operands, dsl::SourceLoc at, Type element) {
  Elementwise e;
  e.element = element;
  for (const Sem &s : operands)
    if (!e.element && s.kind == Sem::Tile)
      e.element = cast<TileType>(s.value.getType()).getElementType();
  if (!e.element)
    fail(at, "expected at least one tile operand");
  for (const Sem &s : operands) {
    if (s.kind != Sem::Tile) {
      e.values.push_back(toScalarOf(s, e.element, at));
      continue;
    }
    auto t = cast<TileType>(s.value.getType());
    if (t.getElementType() != e.element) {
      std::string a, b;
      llvm::raw_string_ostream sa(a), sb(b);
      sa << e.element;
      sb << t.getElementType();
      fail(at, "operands have different element types (" + a + " and " + b + "); use cast(...)");
    }
    SmallVector<int64_t> next;
    if (!broadcastShapes(e.shape, t.getShape(), next))
      fail(at, "tile shapes do not broadcast");
    e.shape = next;
    e.values.push_back(s.value);
  }
  return e;
}

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Python's semantics on two compile-time numbers.
static std::optional<Sem> foldBinary(dsl::BinaryOp op, const Sem &l, const Sem &r, dsl::SourceLoc at) {
  bool ints = (l.kind == Sem::Int || l.kind == Sem::Bool) && (r.kind == Sem::Int || r.kind == Sem::Bool);
  auto asInt = [](const Sem &s) { return s.kind == Sem::Int ? s.i : int64_t(s.b); };
  auto asFloat = [](const Sem &s) { return s.kind == Sem::Float ? s.f : double(s.kind == Sem::Int ? s.i : s.b); };
  using B = dsl::BinaryOp;
  if (ints) {
    int64_t a = asInt(l), b = asInt(r), out = 0;
    switch (op) {
    case B::Add: if (__builtin_add_overflow(a, b, &out)) fail(at, "integer overflow in constant"); return Sem::ofInt(out);
    case B::Sub: if (__builtin_sub_overflow(a, b, &out)) fail(at, "integer overflow in constant"); return Sem::ofInt(out);
    case B::Mul: if (__builtin_mul_overflow(a, b, &out)) fail(at, "integer overflow in constant"); return Sem::ofInt(out);
    case B::FloorDiv: case B::Mod:
      if (b == 0) fail(at, "division by zero in a constant expression");
      if (a == INT64_MIN && b == -1) fail(at, "integer overflow in constant");
      if (op == B::FloorDiv) return Sem::ofInt(floorDiv(a, b));
      return Sem::ofInt(a - floorDiv(a, b) * b);
    case B::Div:
      if (b == 0) fail(at, "division by zero in a constant expression");
      return Sem::ofFloat(double(a) / double(b));
    case B::Pow: {
      if (b < 0) return Sem::ofFloat(std::pow(double(a), double(b)));
      if (a == 0 || a == 1) return Sem::ofInt(b == 0 ? 1 : a);
      if (a == -1) return Sem::ofInt(b % 2 ? -1 : 1);
      int64_t p = 1; // |a| >= 2: overflows within 63 steps
      for (int64_t i = 0; i < b; ++i)
        if (__builtin_mul_overflow(p, a, &p)) fail(at, "integer overflow in constant");
      return Sem::ofInt(p);
    }
    case B::BitAnd: return l.kind == Sem::Bool && r.kind == Sem::Bool ? Sem::ofBool(a & b) : Sem::ofInt(a & b);
    case B::BitOr: return l.kind == Sem::Bool && r.kind == Sem::Bool ? Sem::ofBool(a | b) : Sem::ofInt(a | b);
    case B::BitXor: return Sem::ofInt(a ^ b);
    case B::LShift: {
      if (b < 0 || b > 62) fail(at, "shift count out of range");
      int64_t shifted;
      if (__builtin_mul_overflow(a, int64_t(1) << b, &shifted)) fail(at, "integer overflow in constant");
      return Sem::ofInt(shifted);
    }
    case B::RShift:
      if (b < 0 || b > 63) fail(at, "shift count out of range");
      return Sem::ofInt(a >> b);
    case B::MatMul: fail(at, "'@' needs tiles; use mma(a, b, acc)");
    }
  }
  double a = asFloat(l), b = asFloat(r);
  switch (op) {
  case B::Add: return Sem::ofFloat(a + b);
  case B::Sub: return Sem::ofFloat(a - b);
  case B::Mul: return Sem::ofFloat(a * b);
  case B::Div: if (b == 0) fail(at, "division by zero in a constant expression"); return Sem::ofFloat(a / b);
  case B::FloorDiv: if (b == 0) fail(at, "division by zero in a constant expression"); return Sem::ofFloat(std::floor(a / b));
  case B::Mod: if (b == 0) fail(at, "division by zero in a constant expression"); return Sem::ofFloat(a - std::floor(a / b) * b);
  case B::Pow: return Sem::ofFloat(std::pow(a, b));
  default: fail(at, std::string("operator '") + dsl::spelling(op) + "' needs integers");
  }
}

static std::optional<BinaryKind> tileBinaryKind(dsl::BinaryOp op) {
  switch (op) {
  case dsl::BinaryOp::Add: return BinaryKind::add;
  case dsl::BinaryOp::Sub: return BinaryKind::sub;
  case dsl::BinaryOp::Mul: return BinaryKind::mul;
  case dsl::BinaryOp::Div: return BinaryKind::div;
  case dsl::BinaryOp::Pow: return BinaryKind::pow;
  default: return std::nullopt;
  }
}

Sem Lowerer::evalBinary(dsl::BinaryOp op, Sem l, Sem r, dsl::SourceLoc at) {
  if (l.isConst() && r.isConst())
    return *foldBinary(op, l, r, at);
  if (op == dsl::BinaryOp::Add && l.kind == Sem::Tuple && r.kind == Sem::Tuple) {
    Sem s = l;
    s.elems.insert(s.elems.end(), r.elems.begin(), r.elems.end());
    return s;
  }

  // Tiles: argus.binary with broadcasting.
  if (l.kind == Sem::Tile || r.kind == Sem::Tile) {
    std::optional<BinaryKind> kind = tileBinaryKind(op);
    if (!kind)
      fail(at, std::string("operator '") + dsl::spelling(op) + "' is not defined on tiles");
    Elementwise e = elementwiseOperands({l, r}, at);
    auto type = TileType::get(&ctx, e.shape, e.element);
    return Sem::ofValue(Sem::Tile, BinaryOp::create(builder, loc(at), type, *kind, e.values[0], e.values[1]));
  }

  // Run-time scalars: arith.
  if (l.kind != Sem::Scalar && r.kind != Sem::Scalar)
    fail(at, std::string("operator '") + dsl::spelling(op) + "' cannot combine " + describe(l) +
                 " and " + describe(r));
  Type type = (l.kind == Sem::Scalar ? l : r).value.getType();
  if (l.kind == Sem::Scalar && r.kind == Sem::Scalar && l.value.getType() != r.value.getType()) {
    // index with a fixed-width integer: compute in index
    if (isa<IntegerType, IndexType>(l.value.getType()) && isa<IntegerType, IndexType>(r.value.getType()))
      type = builder.getIndexType();
  }
  // Booleans take part in arithmetic as the integers 0 and 1, as in Python.
  bool bitwise = op == dsl::BinaryOp::BitAnd || op == dsl::BinaryOp::BitOr || op == dsl::BinaryOp::BitXor;
  if (type.isInteger(1) && !(bitwise && l.kind == Sem::Scalar && r.kind == Sem::Scalar &&
                             l.value.getType() == r.value.getType()))
    type = builder.getIndexType();
  if (r.kind == Sem::Float && !isa<FloatType>(type))
    fail(at, "cannot combine an integer scalar with a float constant");
  Value a = toScalarOf(l, type, at), b = toScalarOf(r, type, at);
  Location lo = loc(at);
  using B = dsl::BinaryOp;
  if (isa<FloatType>(type)) {
    switch (op) {
    case B::Add: return Sem::ofValue(Sem::Scalar, arith::AddFOp::create(builder, lo, a, b));
    case B::Sub: return Sem::ofValue(Sem::Scalar, arith::SubFOp::create(builder, lo, a, b));
    case B::Mul: return Sem::ofValue(Sem::Scalar, arith::MulFOp::create(builder, lo, a, b));
    case B::Div: return Sem::ofValue(Sem::Scalar, arith::DivFOp::create(builder, lo, a, b));
    default: fail(at, std::string("operator '") + dsl::spelling(op) + "' is not defined on float scalars");
    }
  }
  switch (op) {
  case B::Add: return Sem::ofValue(Sem::Scalar, arith::AddIOp::create(builder, lo, a, b));
  case B::Sub: return Sem::ofValue(Sem::Scalar, arith::SubIOp::create(builder, lo, a, b));
  case B::Mul: return Sem::ofValue(Sem::Scalar, arith::MulIOp::create(builder, lo, a, b));
  case B::FloorDiv: return Sem::ofValue(Sem::Scalar, arith::FloorDivSIOp::create(builder, lo, a, b));
  case B::Mod: {
    // Python's %: the result has the divisor's sign.
    Value rem = arith::RemSIOp::create(builder, lo, a, b);
    Value zero = intConst(0, type, at);
    Value fix = arith::AndIOp::create(
        builder, lo, arith::CmpIOp::create(builder, lo, arith::CmpIPredicate::ne, rem, zero),
        arith::CmpIOp::create(builder, lo, arith::CmpIPredicate::ne,
                              arith::CmpIOp::create(builder, lo, arith::CmpIPredicate::slt, rem, zero),
                              arith::CmpIOp::create(builder, lo, arith::CmpIPredicate::slt, b, zero)));
    Value adjusted = arith::AddIOp::create(builder, lo, rem, b);
    return Sem::ofValue(Sem::Scalar, arith::SelectOp::create(builder, lo, fix, adjusted, rem));
  }
  case B::BitAnd: return Sem::ofValue(Sem::Scalar, arith::AndIOp::create(builder, lo, a, b));
  case B::BitOr: return Sem::ofValue(Sem::Scalar, arith::OrIOp::create(builder, lo, a, b));
  case B::BitXor: return Sem::ofValue(Sem::Scalar, arith::XOrIOp::create(builder, lo, a, b));
  case B::LShift: return Sem::ofValue(Sem::Scalar, arith::ShLIOp::create(builder, lo, a, b));
  case B::RShift: return Sem::ofValue(Sem::Scalar, arith::ShRSIOp::create(builder, lo, a, b));
  case B::Div: fail(at, "'/' on integers gives a float; use '//' for integer division");
  default: fail(at, std::string("operator '") + dsl::spelling(op) + "' is not defined on integer scalars");
  }
}

Sem Lowerer::evalCompare(dsl::CompareOp op, Sem l, Sem r, dsl::SourceLoc at) {
  using C = dsl::CompareOp;
  if (l.kind == Sem::Dtype && r.kind == Sem::Dtype) {
    if (op != C::Eq && op != C::Ne) fail(at, "dtypes compare only with == and !=");
    return Sem::ofBool((l.dtype == r.dtype) == (op == C::Eq));
  }
  if (l.isConst() && r.isConst()) {
    double a = toConstFloat(l, at, "a comparison"), b = toConstFloat(r, at, "a comparison");
    if (l.kind != Sem::Float && r.kind != Sem::Float) {
      int64_t x = toConstInt(l, at, "a comparison"), y = toConstInt(r, at, "a comparison");
      switch (op) {
      case C::Lt: return Sem::ofBool(x < y); case C::Le: return Sem::ofBool(x <= y);
      case C::Gt: return Sem::ofBool(x > y); case C::Ge: return Sem::ofBool(x >= y);
      case C::Eq: return Sem::ofBool(x == y); case C::Ne: return Sem::ofBool(x != y);
      }
    }
    switch (op) {
    case C::Lt: return Sem::ofBool(a < b); case C::Le: return Sem::ofBool(a <= b);
    case C::Gt: return Sem::ofBool(a > b); case C::Ge: return Sem::ofBool(a >= b);
    case C::Eq: return Sem::ofBool(a == b); case C::Ne: return Sem::ofBool(a != b);
    }
  }
  if (l.kind == Sem::Tile || r.kind == Sem::Tile) {
    static const CmpPredicate preds[] = {CmpPredicate::lt, CmpPredicate::le, CmpPredicate::gt,
                                         CmpPredicate::ge, CmpPredicate::eq, CmpPredicate::ne};
    Elementwise e = elementwiseOperands({l, r}, at);
    auto type = TileType::get(&ctx, e.shape, builder.getI1Type());
    return Sem::ofValue(Sem::Tile, CmpOp::create(builder, loc(at), type, preds[int(op)], e.values[0], e.values[1]));
  }
  if (l.kind != Sem::Scalar && r.kind != Sem::Scalar)
    fail(at, std::string("cannot compare ") + describe(l) + " with " + describe(r));
  Type type = (l.kind == Sem::Scalar ? l : r).value.getType();
  bool sameScalars = l.kind == Sem::Scalar && r.kind == Sem::Scalar && l.value.getType() == r.value.getType();
  if ((!sameScalars && !isa<FloatType>(type) && l.kind == Sem::Scalar && r.kind == Sem::Scalar) ||
      (type.isInteger(1) && !sameScalars))
    type = builder.getIndexType();
  Value a = toScalarOf(l, type, at), b = toScalarOf(r, type, at);
  if (isa<FloatType>(type)) {
    static const arith::CmpFPredicate fp[] = {arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
                                              arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE,
                                              arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE};
    return Sem::ofValue(Sem::Scalar, arith::CmpFOp::create(builder, loc(at), fp[int(op)], a, b));
  }
  static const arith::CmpIPredicate ip[] = {arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
                                            arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge,
                                            arith::CmpIPredicate::eq, arith::CmpIPredicate::ne};
  return Sem::ofValue(Sem::Scalar, arith::CmpIOp::create(builder, loc(at), ip[int(op)], a, b));
}

Sem Lowerer::evalUnary(dsl::UnaryOp op, Sem v, dsl::SourceLoc at) {
  switch (op) {
  case dsl::UnaryOp::Pos:
    return v;
  case dsl::UnaryOp::Not:
    if (v.isConst()) return Sem::ofBool(!constTruth(v, at));
    return Sem::ofValue(Sem::Scalar, arith::XOrIOp::create(builder, loc(at), toI1(v, at),
                                                           intConst(1, builder.getI1Type(), at)));
  case dsl::UnaryOp::Invert:
    if (v.kind == Sem::Int) return Sem::ofInt(~v.i);
    fail(at, "'~' applies to integer constants only");
  case dsl::UnaryOp::Neg:
    if (v.kind == Sem::Int) {
      if (v.i == INT64_MIN) fail(at, "integer overflow in constant");
      return Sem::ofInt(-v.i);
    }
    if (v.kind == Sem::Float) return Sem::ofFloat(-v.f);
    if (v.kind == Sem::Bool) return Sem::ofInt(-int64_t(v.b));
    if (v.kind == Sem::Tile)
      return Sem::ofValue(Sem::Tile, UnaryOp::create(builder, loc(at), UnaryKind::neg, v.value));
    if (v.kind == Sem::Scalar) {
      if (isa<FloatType>(v.value.getType()))
        return Sem::ofValue(Sem::Scalar, arith::NegFOp::create(builder, loc(at), v.value));
      return evalBinary(dsl::BinaryOp::Sub, Sem::ofInt(0), v, at);
    }
    fail(at, "cannot negate " + describe(v));
  }
  fail(at, "unsupported unary operator");
}

} // namespace argus::lowering
