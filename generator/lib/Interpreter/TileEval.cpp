//===- TileEval.cpp - ids, shapes and tile computation --------------------===//
//
// Semantics of the argus ops that compute values without touching memory:
// program / thread ids, tensor dims, and the tile ops (full, iota, mma,
// binary, unary, cmp, select, reduce, cast, transpose, reshape). Every
// element is computed in double and rounded to the result's element type;
// mma and reduce-sum accumulate in double and round once. Elementwise ops
// broadcast like numpy, a scalar operand being a rank-0 tile.
//
//===----------------------------------------------------------------------===//
#include "Executor.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace argus::interp::detail {
namespace {

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

/// An operand of an elementwise op seen through the result's shape: element
/// `i` of the result reads data[sum(idx[d] * strides[d])].
struct BroadcastView {
  const Elem *data = nullptr;
  llvm::SmallVector<int64_t, 4> strides;
};

/// Lane `t` of an elementwise operand (a tile, or a scalar as a rank-0 tile).
/// `scalarSlot` keeps a scalar alive while the view points at it.
BroadcastView viewOf(Executor &ex, Value v, unsigned t, ArrayRef<int64_t> resultShape,
                     Elem &scalarSlot) {
  BroadcastView view;
  view.strides.assign(resultShape.size(), 0);
  if (!isa<TileType>(v.getType())) {
    scalarSlot = ex.scalar(v, t);
    view.data = &scalarSlot;
    return view;
  }
  const Tile &tile = ex.tile(v, t);
  view.data = tile.elems.data();
  size_t offset = resultShape.size() - tile.shape.size();
  int64_t stride = 1;
  for (int d = static_cast<int>(tile.shape.size()) - 1; d >= 0; --d) {
    if (tile.shape[d] != 1)
      view.strides[offset + d] = stride;
    stride *= tile.shape[d];
  }
  return view;
}

/// Calls fn(outIndex, offsets) for every element of `shape`, row-major, with
/// offsets[j] the element of views[j] it reads.
void forEachBroadcast(ArrayRef<int64_t> shape, ArrayRef<BroadcastView> views,
                      llvm::function_ref<void(int64_t, ArrayRef<int64_t>)> fn) {
  int64_t total = 1;
  for (int64_t d : shape)
    total *= d;
  llvm::SmallVector<int64_t, 4> idx(shape.size(), 0);
  llvm::SmallVector<int64_t, 3> offsets(views.size(), 0);
  for (int64_t i = 0; i < total; ++i) {
    fn(i, offsets);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      ++idx[d];
      for (size_t j = 0; j < views.size(); ++j)
        offsets[j] += views[j].strides[d];
      if (idx[d] < shape[d])
        break;
      for (size_t j = 0; j < views.size(); ++j)
        offsets[j] -= views[j].strides[d] * shape[d];
      idx[d] = 0;
    }
  }
}

FailureOr<ElemType> resultElem(Executor &ex, Operation *op, Type type) {
  std::optional<ElemType> et = elemTypeOf(type);
  if (!et) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "unsupported element type in " << type;
    (void)ex.fail(op, s);
    return failure();
  }
  return *et;
}

Lane makeTile(Tile &&tile) { return Lane(TileRef(std::make_shared<const Tile>(std::move(tile)))); }

//===----------------------------------------------------------------------===//
// Ids and shapes
//===----------------------------------------------------------------------===//

LogicalResult setUniform(Executor &ex, Value result, int64_t v) {
  ex.set(result, RtValue{{Lane(Elem::ofInt(v))}});
  return success();
}

LogicalResult noIdsInGrid(Executor &ex, Operation *op) {
  return ex.fail(op, "'" + op->getName().getStringRef() +
                         "' has no meaning in a grid function (it runs before any program "
                         "instance exists)");
}

LogicalResult evalThreadId(Executor &ex, ThreadIdOp op) {
  if (ex.gridFunction)
    return noIdsInGrid(ex, op);
  RtValue value;
  for (int64_t t = 0; t < ex.numThreads; ++t)
    value.lanes.push_back(Elem::ofInt(t));
  ex.set(op.getResult(), std::move(value));
  return success();
}

//===----------------------------------------------------------------------===//
// Tile construction and mma
//===----------------------------------------------------------------------===//

LogicalResult evalFull(Executor &ex, FullOp op) {
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    Tile tile(op.getType().getShape());
    std::fill(tile.elems.begin(), tile.elems.end(), ex.scalar(op.getValue(), t));
    return makeTile(std::move(tile));
  });
}

LogicalResult evalIota(Executor &ex, IotaOp op) {
  ArrayRef<int64_t> shape = op.getType().getShape();
  int64_t dim = op.getDim();
  int64_t inner = 1;
  for (size_t d = dim + 1; d < shape.size(); ++d)
    inner *= shape[d];
  Tile tile(shape);
  for (int64_t i = 0; i < tile.numElements(); ++i)
    tile.elems[i] = Elem::ofInt(wrapInt(32, (i / inner) % shape[dim]));
  ex.set(op.getResult(), RtValue{{makeTile(std::move(tile))}});
  return success();
}

LogicalResult evalMma(Executor &ex, MmaOp op) {
  FailureOr<ElemType> in = resultElem(ex, op, op.getA().getType());
  if (failed(in))
    return failure();
  int64_t m = op.getA().getType().getShape()[0], k = op.getA().getType().getShape()[1];
  int64_t n = op.getB().getType().getShape()[0];
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    const Tile &a = ex.tile(op.getA(), t), &b = ex.tile(op.getB(), t);
    const Tile &acc = ex.tile(op.getAcc(), t);
    std::vector<double> ad(m * k), bd(n * k);
    for (int64_t i = 0; i < m * k; ++i)
      ad[i] = elemToDouble(*in, a.elems[i]);
    for (int64_t i = 0; i < n * k; ++i)
      bd[i] = elemToDouble(*in, b.elems[i]);
    Tile out(acc.shape);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        const double *ar = &ad[i * k], *br = &bd[j * k];
        for (int64_t kk = 0; kk < k; ++kk)
          sum += ar[kk] * br[kk];
        out.elems[i * n + j] =
            Elem::ofFloat(roundFloat(ElemKind::F32, sum + acc.elems[i * n + j].f()));
      }
    return makeTile(std::move(out));
  });
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

double maxPropagatingNaN(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  return a > b ? a : b;
}
double minPropagatingNaN(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  return a < b ? a : b;
}

/// Integer power with wrap-around; negative exponents truncate toward zero.
int64_t intPow(int64_t base, int64_t exp, unsigned width) {
  if (exp < 0)
    return base == 1 ? 1 : base == -1 ? ((exp & 1) ? -1 : 1) : 0;
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exp); e; e >>= 1, b *= b)
    if (e & 1)
      result *= b;
  return wrapInt(width, static_cast<int64_t>(result));
}

FailureOr<Elem> binaryElem(Executor &ex, Operation *op, BinaryKind kind, ElemType type, Elem a,
                           Elem b) {
  if (type.isFloat()) {
    double x = a.f(), y = b.f(), r = 0;
    switch (kind) {
    case BinaryKind::add: r = x + y; break;
    case BinaryKind::sub: r = x - y; break;
    case BinaryKind::mul: r = x * y; break;
    case BinaryKind::div: r = x / y; break;
    case BinaryKind::max: r = maxPropagatingNaN(x, y); break;
    case BinaryKind::min: r = minPropagatingNaN(x, y); break;
    case BinaryKind::pow: r = std::pow(x, y); break;
    }
    return Elem::ofFloat(roundFloat(type.kind, r));
  }
  int64_t x = a.i(), y = b.i(), r = 0;
  switch (kind) {
  case BinaryKind::add: r = static_cast<int64_t>(uint64_t(x) + uint64_t(y)); break;
  case BinaryKind::sub: r = static_cast<int64_t>(uint64_t(x) - uint64_t(y)); break;
  case BinaryKind::mul: r = static_cast<int64_t>(uint64_t(x) * uint64_t(y)); break;
  case BinaryKind::div: // the dialect's definition: x / 0 is 0, MIN / -1 wraps
    r = y == 0 ? 0 : (x == std::numeric_limits<int64_t>::min() && y == -1) ? x : x / y;
    break;
  case BinaryKind::max: r = std::max(x, y); break;
  case BinaryKind::min: r = std::min(x, y); break;
  case BinaryKind::pow: r = intPow(x, y, type.width); break;
  }
  return Elem::ofInt(wrapInt(type.width, r));
}

LogicalResult evalBinary(Executor &ex, BinaryOp op) {
  FailureOr<ElemType> type = resultElem(ex, op, op.getType());
  if (failed(type))
    return failure();
  ArrayRef<int64_t> shape = op.getType().getShape();
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    Elem ls, rs;
    BroadcastView views[2] = {viewOf(ex, op.getLhs(), t, shape, ls),
                              viewOf(ex, op.getRhs(), t, shape, rs)};
    Tile out(shape);
    bool ok = true;
    forEachBroadcast(shape, views, [&](int64_t i, ArrayRef<int64_t> off) {
      if (!ok)
        return;
      FailureOr<Elem> r = binaryElem(ex, op, op.getKind(), *type, views[0].data[off[0]],
                                     views[1].data[off[1]]);
      if (failed(r))
        ok = false;
      else
        out.elems[i] = *r;
    });
    if (!ok)
      return failure();
    return makeTile(std::move(out));
  });
}

Elem unaryElem(UnaryKind kind, ElemType type, Elem a) {
  if (!type.isFloat()) { // the verifier allows only neg and abs here
    int64_t x = a.i();
    int64_t r = kind == UnaryKind::neg ? static_cast<int64_t>(0 - uint64_t(x))
                                       : (x < 0 ? static_cast<int64_t>(0 - uint64_t(x)) : x);
    return Elem::ofInt(wrapInt(type.width, r));
  }
  double x = a.f(), r = 0;
  switch (kind) {
  case UnaryKind::neg: r = -x; break;
  case UnaryKind::abs: r = std::fabs(x); break;
  case UnaryKind::exp: r = std::exp(x); break;
  case UnaryKind::exp2: r = std::exp2(x); break;
  case UnaryKind::log: r = std::log(x); break;
  case UnaryKind::sqrt: r = std::sqrt(x); break;
  case UnaryKind::rsqrt: r = 1.0 / std::sqrt(x); break;
  case UnaryKind::tanh: r = std::tanh(x); break;
  case UnaryKind::sigmoid: r = 1.0 / (1.0 + std::exp(-x)); break;
  case UnaryKind::silu: r = x / (1.0 + std::exp(-x)); break;
  case UnaryKind::recip: r = 1.0 / x; break;
  }
  return Elem::ofFloat(roundFloat(type.kind, r));
}

LogicalResult evalUnary(Executor &ex, UnaryOp op) {
  FailureOr<ElemType> type = resultElem(ex, op, op.getType());
  if (failed(type))
    return failure();
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    const Tile &in = ex.tile(op.getOperand(), t);
    Tile out(in.shape);
    for (int64_t i = 0; i < in.numElements(); ++i)
      out.elems[i] = unaryElem(op.getKind(), *type, in.elems[i]);
    return makeTile(std::move(out));
  });
}

template <typename T> static bool compareValues(CmpPredicate p, T x, T y) {
  switch (p) {
  case CmpPredicate::eq: return x == y;
  case CmpPredicate::ne: return x != y;
  case CmpPredicate::lt: return x < y;
  case CmpPredicate::le: return x <= y;
  case CmpPredicate::gt: return x > y;
  case CmpPredicate::ge: return x >= y;
  }
  return false;
}

bool compareElem(CmpPredicate p, ElemType type, Elem a, Elem b) {
  // Floats compare ordered: NaN compares unequal to everything.
  return type.isFloat() ? compareValues(p, a.f(), b.f()) : compareValues(p, a.i(), b.i());
}

LogicalResult evalCmp(Executor &ex, CmpOp op) {
  FailureOr<ElemType> type = resultElem(ex, op, op.getLhs().getType());
  if (failed(type))
    return failure();
  ArrayRef<int64_t> shape = op.getType().getShape();
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    Elem ls, rs;
    BroadcastView views[2] = {viewOf(ex, op.getLhs(), t, shape, ls),
                              viewOf(ex, op.getRhs(), t, shape, rs)};
    Tile out(shape);
    forEachBroadcast(shape, views, [&](int64_t i, ArrayRef<int64_t> off) {
      bool r = compareElem(op.getPredicate(), *type, views[0].data[off[0]], views[1].data[off[1]]);
      out.elems[i] = Elem::ofInt(r ? -1 : 0);
    });
    return makeTile(std::move(out));
  });
}

LogicalResult evalSelect(Executor &ex, SelectOp op) {
  ArrayRef<int64_t> shape = op.getType().getShape();
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    Elem cs, ts, fs;
    BroadcastView views[3] = {viewOf(ex, op.getCondition(), t, shape, cs),
                              viewOf(ex, op.getTrueValue(), t, shape, ts),
                              viewOf(ex, op.getFalseValue(), t, shape, fs)};
    Tile out(shape);
    forEachBroadcast(shape, views, [&](int64_t i, ArrayRef<int64_t> off) {
      out.elems[i] = views[0].data[off[0]].i() != 0 ? views[1].data[off[1]] : views[2].data[off[2]];
    });
    return makeTile(std::move(out));
  });
}

//===----------------------------------------------------------------------===//
// Reductions and data movement
//===----------------------------------------------------------------------===//

LogicalResult evalReduce(Executor &ex, ReduceOp op) {
  FailureOr<ElemType> type = resultElem(ex, op, op.getType());
  if (failed(type))
    return failure();
  ArrayRef<int64_t> shape = op.getOperand().getType().getShape();
  int64_t axis = op.getAxis(), outer = 1, inner = 1, n = shape[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  ReduceKind kind = op.getKind();
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    const Tile &in = ex.tile(op.getOperand(), t);
    Tile out(op.getType().getShape());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const Elem *first = &in.elems[o * n * inner + i];
        if (type->isFloat()) {
          double acc = first[0].f();
          for (int64_t r = 1; r < n; ++r) {
            double x = first[r * inner].f();
            acc = kind == ReduceKind::sum   ? acc + x
                  : kind == ReduceKind::max ? maxPropagatingNaN(acc, x)
                                            : minPropagatingNaN(acc, x);
          }
          out.elems[o * inner + i] = Elem::ofFloat(roundFloat(type->kind, acc));
        } else {
          int64_t acc = first[0].i();
          for (int64_t r = 1; r < n; ++r) {
            int64_t x = first[r * inner].i();
            acc = kind == ReduceKind::sum   ? static_cast<int64_t>(uint64_t(acc) + uint64_t(x))
                  : kind == ReduceKind::max ? std::max(acc, x)
                                            : std::min(acc, x);
          }
          out.elems[o * inner + i] = Elem::ofInt(wrapInt(type->width, acc));
        }
      }
    return makeTile(std::move(out));
  });
}

LogicalResult evalCast(Executor &ex, CastOp op) {
  FailureOr<ElemType> from = resultElem(ex, op, op.getOperand().getType());
  if (failed(from))
    return failure();
  FailureOr<ElemType> to = resultElem(ex, op, op.getType());
  if (failed(to))
    return failure();
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    const Tile &in = ex.tile(op.getOperand(), t);
    Tile out(in.shape);
    for (int64_t i = 0; i < in.numElements(); ++i)
      out.elems[i] = convertElem(*from, *to, in.elems[i]);
    return makeTile(std::move(out));
  });
}

LogicalResult evalTranspose(Executor &ex, TransposeOp op) {
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    const Tile &in = ex.tile(op.getOperand(), t);
    int64_t rows = in.shape[0], cols = in.shape[1];
    Tile out(op.getType().getShape());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        out.elems[c * rows + r] = in.elems[r * cols + c];
    return makeTile(std::move(out));
  });
}

LogicalResult evalReshape(Executor &ex, ReshapeOp op) {
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    Tile out(op.getType().getShape());
    out.elems = ex.tile(op.getOperand(), t).elems;
    return makeTile(std::move(out));
  });
}

} // namespace

std::optional<LogicalResult> evalTileOp(Executor &ex, Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case([&](DimOp d) {
        return ex.define(d.getResult(), d->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
          return Lane(Elem::ofInt(ex.tensor(d.getTensor(), t).desc.shape[d.getDim()]));
        });
      })
      .Case([&](ProgramIdOp p) {
        return ex.gridFunction ? noIdsInGrid(ex, p)
                               : setUniform(ex, p.getResult(), ex.programId[p.getAxis()]);
      })
      .Case([&](NumProgramsOp p) {
        return ex.gridFunction ? noIdsInGrid(ex, p)
                               : setUniform(ex, p.getResult(), ex.grid[p.getAxis()]);
      })
      .Case([&](ThreadIdOp t) { return evalThreadId(ex, t); })
      .Case([&](NumThreadsOp n) { return setUniform(ex, n.getResult(), ex.numThreads); })
      .Case([&](FullOp o) { return evalFull(ex, o); })
      .Case([&](IotaOp o) { return evalIota(ex, o); })
      .Case([&](MmaOp o) { return evalMma(ex, o); })
      .Case([&](BinaryOp o) { return evalBinary(ex, o); })
      .Case([&](UnaryOp o) { return evalUnary(ex, o); })
      .Case([&](CmpOp o) { return evalCmp(ex, o); })
      .Case([&](SelectOp o) { return evalSelect(ex, o); })
      .Case([&](ReduceOp o) { return evalReduce(ex, o); })
      .Case([&](CastOp o) { return evalCast(ex, o); })
      .Case([&](TransposeOp o) { return evalTranspose(ex, o); })
      .Case([&](ReshapeOp o) { return evalReshape(ex, o); })
      .Default([](Operation *) { return std::nullopt; });
}

} // namespace argus::interp::detail
