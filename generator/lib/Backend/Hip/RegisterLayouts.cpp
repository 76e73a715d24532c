//===- RegisterLayouts.cpp - choosing each tile's lane layout -------------===//
#include "RegisterLayouts.h"

#include "../Cpp/CppSyntax.h"

#include "argus/Dialect/Argus.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace argus::codegen::hip {

std::string RegLayout::spell() const {
  auto n = [](int64_t v) { return std::to_string(v); };
  switch (kind) {
  case Kind::Striped: return "ak::Striped<" + n(rows) + ", " + n(cols) + ", " + n(run) + ">";
  case Kind::MfmaAcc: return "ak::MfmaAcc<" + n(rows) + ", " + n(cols) + ", " + n(block) + ">";
  case Kind::MfmaOperand: return "ak::MfmaOperand<" + n(rows) + ", " + n(cols) + ", " + n(block) + ">";
  case Kind::Broadcast:
    return "ak::Broadcast<" + base->spell() + ", " + (keepRows ? "true" : "false") + ", " +
           (keepCols ? "true" : "false") + ">";
  }
  return "";
}

int64_t RegLayout::perLane() const {
  switch (kind) {
  case Kind::Striped: {
    int64_t runs = (rows * cols / run + 63) / 64;
    return runs * run;
  }
  case Kind::MfmaAcc:
  case Kind::MfmaOperand: return rows * cols / 64;
  case Kind::Broadcast: return base->perLane();
  }
  return 0;
}

std::pair<int64_t, int64_t> tileRowsCols(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return {1, 1};
  int64_t rows = 1;
  for (int64_t d : shape.drop_back())
    rows *= d;
  return {rows, shape.back()};
}

namespace {

using LayoutPtr = std::shared_ptr<const RegLayout>;

std::string opMessage(Operation *op, const Twine &message) {
  std::string where = locString(op->getLoc());
  return (where.empty() ? "" : where + ": ") + message.str();
}

/// Union-find over tile values, with a layout per class root.
class Classes {
public:
  Value root(Value v) {
    auto it = parent.find(v);
    if (it == parent.end() || it->second == v)
      return v;
    Value r = root(it->second);
    parent[v] = r;
    return r;
  }
  bool join(Value a, Value b, Operation *op, std::string &error) {
    Value ra = root(a), rb = root(b);
    if (ra == rb)
      return true;
    LayoutPtr la = layout.lookup(ra), lb = layout.lookup(rb);
    if (la && lb && !(*la == *lb)) {
      error = opMessage(op, "a tile is needed in two register layouts, " + la->spell() + " and " +
                                lb->spell() + "; the HIP backend does not convert between them yet");
      return false;
    }
    parent[rb] = ra;
    if (!la && lb)
      layout[ra] = lb;
    return true;
  }
  bool fix(Value v, LayoutPtr l, Operation *op, std::string &error) {
    Value r = root(v);
    if (LayoutPtr have = layout.lookup(r)) {
      if (*have == *l)
        return true;
      error = opMessage(op, "a tile is needed in two register layouts, " + have->spell() + " and " +
                                l->spell() + "; the HIP backend does not convert between them yet");
      return false;
    }
    layout[r] = std::move(l);
    return true;
  }
  LayoutPtr of(Value v) { return layout.lookup(root(v)); }

private:
  llvm::DenseMap<Value, Value> parent;
  llvm::DenseMap<Value, LayoutPtr> layout;
};

/// An operand broadcast into an elementwise op's result.
struct BroadcastUse {
  Value operand, result;
  bool keepRows, keepCols;
  Operation *op;
};

LayoutPtr mfma(RegLayout::Kind kind, TileType t, int64_t block) {
  auto [rows, cols] = tileRowsCols(t.getShape());
  auto l = std::make_shared<RegLayout>();
  l->kind = kind;
  l->block = block;
  l->rows = rows;
  l->cols = cols;
  return l;
}

/// The MFMA block an mma runs on: 32 (v_mfma_f32_32x32x8) where its shapes
/// are whole 32 x 32 blocks and 8 k, else 16 (16x16x16), else 0.
int64_t mfmaBlock(MmaOp m) {
  ArrayRef<int64_t> a = m.getA().getType().getShape(), b = m.getB().getType().getShape();
  if (a.size() != 2 || b.size() != 2)
    return 0;
  if (a[0] % 32 == 0 && b[0] % 32 == 0 && a[1] % 8 == 0)
    return 32;
  if (a[0] % 16 == 0 && b[0] % 16 == 0 && a[1] % 16 == 0)
    return 16;
  return 0;
}

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

/// Striped in 16-byte runs (narrower when the row is not a multiple).
LayoutPtr striped(TileType t) {
  auto [rows, cols] = tileRowsCols(t.getShape());
  int64_t bytes = std::max<int64_t>(1, t.getElementType().getIntOrFloatBitWidth() / 8);
  int64_t run = std::max<int64_t>(1, 16 / bytes);
  while (run > 1 && cols % run != 0)
    run /= 2;
  auto l = std::make_shared<RegLayout>();
  l->rows = rows;
  l->cols = cols;
  l->run = run;
  return l;
}

} // namespace

const RegLayout &RegisterLayouts::of(Value tile) const {
  static const RegLayout none;
  auto it = layouts.find(tile);
  return it == layouts.end() ? none : *it->second;
}

bool RegisterLayouts::assign(func::FuncOp kernel, std::string &error) {
  Classes classes;
  SmallVector<Value> tiles;
  SmallVector<BroadcastUse> broadcasts;
  auto isTile = [](Value v) { return isa<TileType>(v.getType()); };

  // Elementwise operand `v` of result `r`: the same layout, or broadcast.
  auto elementwise = [&](Value v, Value r, Operation *op) -> bool {
    if (!isTile(v))
      return true; // a scalar operand: the same value in every lane
    auto vt = cast<TileType>(v.getType()), rt = cast<TileType>(r.getType());
    if (tileRowsCols(vt.getShape()) == tileRowsCols(rt.getShape()))
      return classes.join(v, r, op, error);
    ArrayRef<int64_t> vs = vt.getShape(), rs = rt.getShape();
    SmallVector<int64_t> padded(rs.size() - std::min(rs.size(), vs.size()), 1);
    padded.append(vs.begin(), vs.end());
    bool keepCols = padded.back() == rs.back();
    bool leadingEqual = true, leadingOne = true;
    for (size_t d = 0; d + 1 < rs.size(); ++d) {
      leadingEqual = leadingEqual && padded[d] == rs[d];
      leadingOne = leadingOne && padded[d] == 1;
    }
    if (!leadingEqual && !leadingOne) {
      error = opMessage(op, "the HIP backend broadcasts over all leading dimensions or none, not part of them");
      return false;
    }
    broadcasts.push_back({v, r, leadingEqual, keepCols, op});
    return true;
  };

  bool ok = true;
  kernel.walk([&](Operation *op) {
    if (!ok)
      return;
    for (Value r : op->getResults())
      if (isTile(r))
        tiles.push_back(r);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Value a : block.getArguments())
          if (isTile(a))
            tiles.push_back(a);
    ok = llvm::TypeSwitch<Operation *, bool>(op)
             .Case([&](MmaOp m) {
               int64_t block = mfmaBlock(m);
               if (!block) {
                 error = opMessage(op, "the HIP backend lowers mma on rank-2 tiles of whole 32 x 32 blocks and 8 k, "
                                       "or 16 x 16 blocks and 16 k; got " + typeString(m.getA().getType()) + " and " +
                                       typeString(m.getB().getType()));
                 return false;
               }
               using K = RegLayout::Kind;
               return classes.fix(m.getA(), mfma(K::MfmaOperand, m.getA().getType(), block), op, error) &&
                      classes.fix(m.getB(), mfma(K::MfmaOperand, m.getB().getType(), block), op, error) &&
                      classes.fix(m.getAcc(), mfma(K::MfmaAcc, m.getAcc().getType(), block), op, error) &&
                      classes.join(m.getAcc(), m.getResult(), op, error);
             })
             .Case([&](scf::ForOp f) {
               auto yield = cast<scf::YieldOp>(f.getBody()->getTerminator());
               for (auto [i, arg] : llvm::enumerate(f.getRegionIterArgs()))
                 if (isTile(arg) && !(classes.join(arg, f.getInitArgs()[i], op, error) &&
                                      classes.join(arg, yield.getOperand(i), op, error) &&
                                      classes.join(arg, f.getResult(i), op, error)))
                   return false;
               return true;
             })
             .Case([&](scf::IfOp f) {
               for (auto [i, r] : llvm::enumerate(f.getResults()))
                 if (isTile(r) && !(classes.join(r, f.thenYield().getOperand(i), op, error) &&
                                    classes.join(r, f.elseYield().getOperand(i), op, error)))
                   return false;
               return true;
             })
             .Case<BinaryOp, CmpOp>([&](auto b) {
               return elementwise(b.getLhs(), b.getResult(), op) && elementwise(b.getRhs(), b.getResult(), op);
             })
             .Case([&](SelectOp s) {
               return elementwise(s.getCondition(), s.getResult(), op) &&
                      elementwise(s.getTrueValue(), s.getResult(), op) &&
                      elementwise(s.getFalseValue(), s.getResult(), op);
             })
             .Case<UnaryOp, CastOp>([&](auto u) { return classes.join(u.getOperand(), u.getResult(), op, error); })
             .Case([&](ReshapeOp r) {
               if (tileRowsCols(r.getOperand().getType().getShape()) != tileRowsCols(r.getResult().getType().getShape())) {
                 error = opMessage(op, "the HIP backend reshapes only without changing the row length "
                                       "(adding or dropping leading dimensions of size 1)");
                 return false;
               }
               return classes.join(r.getOperand(), r.getResult(), op, error);
             })
             .Case<TransposeOp, ReduceOp>([&](Operation *) {
               error = opMessage(op, "the HIP backend does not lower '" + op->getName().getStringRef() +
                                         "' yet (it needs a cross-lane layout conversion)");
               return false;
             })
             .Default([](Operation *) { return true; });
  });
  if (!ok)
    return false;

  // Broadcast operands follow their results; classes nobody constrains get
  // the striped default, in program order, until every class has a layout.
  for (;;) {
    bool changed = true;
    while (changed) {
      changed = false;
      for (const BroadcastUse &b : broadcasts) {
        LayoutPtr result = classes.of(b.result);
        if (!result)
          continue;
        auto want = std::make_shared<RegLayout>();
        want->kind = RegLayout::Kind::Broadcast;
        want->base = result;
        want->keepRows = b.keepRows;
        want->keepCols = b.keepCols;
        auto [rows, cols] = tileRowsCols(cast<TileType>(b.operand.getType()).getShape());
        want->rows = rows;
        want->cols = cols;
        LayoutPtr have = classes.of(b.operand);
        if (have && *have == *want)
          continue;
        if (!classes.fix(b.operand, want, b.op, error))
          return false;
        changed = true;
      }
    }
    auto unassigned = llvm::find_if(tiles, [&](Value v) { return !classes.of(v); });
    if (unassigned == tiles.end())
      break;
    if (!classes.fix(*unassigned, striped(cast<TileType>(unassigned->getType())), kernel, error))
      return false;
  }
  for (Value v : tiles)
    layouts[v] = classes.of(v);
  return true;
}

} // namespace argus::codegen::hip
