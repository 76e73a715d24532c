//===- RegisterLayouts.cpp - choosing each tile's lane layout -------------===//
#include "RegisterLayouts.h"

#include "../Cpp/CppSyntax.h"

#include "argus/Dialect/Argus.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace argus::codegen::lanes {

static int64_t roundUp(int64_t x, int64_t multiple) { return (x + multiple - 1) / multiple * multiple; }

std::string RegLayout::spell() const {
  auto n = [](int64_t v) { return std::to_string(v); };
  const bool mfma = family == MmaFamily::Mfma;
  switch (kind) {
  case Kind::Striped: return "ak::Striped<" + n(rows) + ", " + n(cols) + ", " + n(run) + ">";
  case Kind::MmaAcc:
    if (family == MmaFamily::Wgmma)
      return "ak::WgmmaAcc<" + n(rows) + ", " + n(cols) + ">";
    return mfma ? "ak::MfmaAcc<" + n(rows) + ", " + n(cols) + ", " + n(block) + ">"
                : "ak::MmaAcc<" + n(rows) + ", " + n(cols) + ">";
  case Kind::SharedOperand: return "in shared memory, " + n(rows) + " x " + n(cols);
  case Kind::MmaOperand:
    return std::string(mfma ? "ak::MfmaOperand<" : "ak::MmaOperand<") + n(rows) + ", " + n(cols) + ", " + n(block) +
           (mfma && run != 4 ? ", " + n(run) : "") + ">";
  case Kind::Broadcast:
    return "ak::Broadcast<" + base->spell() + ", " + (keepRows ? "true" : "false") + ", " +
           (keepCols ? "true" : "false") + ">";
  case Kind::Transposed: return "ak::Transposed<" + base->spell() + ">";
  }
  return "";
}

int64_t RegLayout::perLane() const {
  const bool mfma = family == MmaFamily::Mfma;
  switch (kind) {
  case Kind::Striped: {
    int64_t runs = (rows * cols / run + lanes - 1) / lanes;
    return runs * run;
  }
  case Kind::MmaAcc: // rows and columns padded to whole blocks (wgmma's are whole: wgmmaOperands)
    return mfma ? roundUp(rows, block) * roundUp(cols, block) / lanes : roundUp(rows, 16) * roundUp(cols, 8) / lanes;
  case Kind::SharedOperand: return 0;
  case Kind::MmaOperand: // rows to whole blocks, k to whole steps (MFMA: run·64 / block; mma.sync: 16)
    return roundUp(rows, block) * roundUp(cols, mfma ? run * 64 / block : 16) / lanes;
  case Kind::Broadcast:
  case Kind::Transposed: return base->perLane();
  }
  return 0;
}

bool RegLayout::rowsReducible() const {
  switch (kind) {
  case Kind::MmaAcc:
  case Kind::MmaOperand: return true;
  case Kind::SharedOperand: return false;
  case Kind::Striped: { // the kRowLanes of ak::Striped
    int64_t runsPerRow = cols / run;
    return lanes % runsPerRow == 0 || runsPerRow % lanes == 0;
  }
  case Kind::Broadcast:  // copies of one element would count more than once
  case Kind::Transposed: return false;
  }
  return false;
}

bool RegLayout::readByElement() const {
  switch (kind) {
  case Kind::Striped: return run == 1 || cols % run != 0; // forEachRun's kRunByRun
  case Kind::MmaAcc: return family == MmaFamily::Mfma;    // ak::MfmaAcc's kRun is 1
  case Kind::Transposed: return true;
  case Kind::Broadcast: return !keepCols || base->readByElement();
  case Kind::MmaOperand:
  case Kind::SharedOperand: return false;
  }
  return false;
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

/// Union-find over tile values, with a layout per class root: values that
/// must share registers (loop carries, elementwise chains) are one class.
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
  /// Merges the classes of a and b; false (nothing merged) when both have
  /// layouts and they differ.
  bool join(Value a, Value b) {
    Value ra = root(a), rb = root(b);
    if (ra == rb)
      return true;
    LayoutPtr la = layout.lookup(ra), lb = layout.lookup(rb);
    if (la && lb && !(*la == *lb))
      return false;
    parent[rb] = ra;
    if (!la && lb)
      layout[ra] = lb;
    return true;
  }
  /// Gives v's class layout l; false when it has another already.
  bool fix(Value v, LayoutPtr l) {
    Value r = root(v);
    if (LayoutPtr have = layout.lookup(r))
      return *have == *l;
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
  unsigned index; // the operand's number
  bool keepRows, keepCols;
  Operation *op;
};

/// A layout of `kind` over rows x cols for a group of `lanes` and mma
/// `family`, its other fields at their defaults.
std::shared_ptr<RegLayout> makeLayout(int64_t lanes, MmaFamily family, RegLayout::Kind kind, int64_t rows,
                                      int64_t cols) {
  auto l = std::make_shared<RegLayout>();
  l->kind = kind;
  l->rows = rows;
  l->cols = cols;
  l->lanes = lanes;
  l->family = family;
  return l;
}

/// The k values an MFMA operand lane holds per step: 8 bytes, four 16-bit
/// elements or eight fp8 ones.
int64_t mfmaRun(Type element) { return element.getIntOrFloatBitWidth() == 8 ? 8 : 4; }

LayoutPtr mmaLayout(const LaneTarget &target, RegLayout::Kind kind, TileType t, int64_t block) {
  auto [rows, cols] = tileRowsCols(t.getShape());
  auto l = makeLayout(target.lanes, target.mma, kind, rows, cols);
  l->block = block;
  if (kind == RegLayout::Kind::MmaOperand && target.mma == MmaFamily::Mfma)
    l->run = mfmaRun(t.getElementType());
  return l;
}

/// The MFMA block an mma of rank-2 tiles runs on: 32 (v_mfma_f32_32x32x8,
/// or 32x32x16 on fp8) where its shapes are whole 32 x 32 blocks and steps of
/// k, else 16 (16x16x16, 16x16x32), padded to whole blocks and steps where
/// they are not (a 4-row decode tile fills 4 of 16 rows).
int64_t mfmaBlock(MmaOp m) {
  ArrayRef<int64_t> a = m.getA().getType().getShape(), b = m.getB().getType().getShape();
  if (a[0] % 32 == 0 && b[0] % 32 == 0 && a[1] % (2 * mfmaRun(m.getA().getType().getElementType())) == 0)
    return 32;
  return 16;
}

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

/// Striped in 16-byte runs (narrower when the row is not a multiple).
LayoutPtr striped(const LaneTarget &target, TileType t) {
  auto [rows, cols] = tileRowsCols(t.getShape());
  int64_t bytes = std::max<int64_t>(1, t.getElementType().getIntOrFloatBitWidth() / 8);
  int64_t run = std::max<int64_t>(1, 16 / bytes);
  while (run > 1 && cols % run != 0)
    run /= 2;
  auto l = makeLayout(target.lanes, target.mma, RegLayout::Kind::Striped, rows, cols);
  l->run = run;
  return l;
}

/// `base` with rows kept or pinned, columns kept or pinned, over rows x cols.
LayoutPtr broadcastOf(LayoutPtr base, bool keepRows, bool keepCols, int64_t rows, int64_t cols) {
  auto l = makeLayout(base->lanes, base->family, RegLayout::Kind::Broadcast, rows, cols);
  l->base = std::move(base);
  l->keepRows = keepRows;
  l->keepCols = keepCols;
  return l;
}

LayoutPtr transposedOf(LayoutPtr base) {
  if (base->kind == RegLayout::Kind::Transposed)
    return base->base;
  auto l = makeLayout(base->lanes, base->family, RegLayout::Kind::Transposed, base->cols, base->rows);
  l->base = std::move(base);
  return l;
}

int64_t storageBytes(Type element) {
  return element.isInteger(1) ? 1 : std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
}

} // namespace

bool wgmmaOperands(func::FuncOp kernel, int64_t threads) {
  static constexpr int64_t kWgmmaN[] = {16, 32, 64, 96, 128, 160, 192, 256}; // argus_sm90_wgmma.inc
  bool any = false, ok = threads >= 1 && threads <= 8;
  // An operand read in place: a whole slot of a 128-byte-swizzled shared
  // buffer of 64-element rows, read by mmas only.
  auto inPlace = [](Value v) {
    auto load = v.getDefiningOp<BufferLoadOp>();
    if (!load || load.getViewAttr() || !load.getBuffer().getDefiningOp<AllocOp>())
      return false;
    auto type = cast<BufferType>(load.getBuffer().getType());
    auto swizzle = dyn_cast_or_null<SwizzleAttr>(type.getLayout());
    if (type.getSpace() != MemorySpace::shared || !swizzle || swizzle.getBits() != 3 || swizzle.getBase() != 3 ||
        swizzle.getShift() != 3)
      return false;
    return llvm::all_of(v.getUses(), [](OpOperand &use) {
      return isa<MmaOp>(use.getOwner()) && use.getOperandNumber() < 2;
    });
  };
  kernel.walk([&](Operation *op) {
    if (isa<ReduceOp>(op))
      ok = false;
    auto m = dyn_cast<MmaOp>(op);
    if (!m)
      return;
    any = true;
    ArrayRef<int64_t> a = m.getA().getType().getShape(), b = m.getB().getType().getShape();
    Type e = m.getA().getType().getElementType();
    ok = ok && a.size() == 2 && b.size() == 2 && a[0] % 64 == 0 && a[1] == 64 && b[1] == 64 &&
         (e.isBF16() || e.isF16()) && m.getB().getType().getElementType() == e &&
         m.getAcc().getType().getElementType().isF32() && llvm::is_contained(kWgmmaN, b[0]) &&
         inPlace(m.getA()) && inPlace(m.getB());
  });
  return ok && any;
}

const RegLayout &RegisterLayouts::of(Value tile) const {
  static const RegLayout none;
  auto it = layouts.find(tile);
  return it == layouts.end() ? none : *it->second;
}

const RegLayout *RegisterLayouts::conversion(Operation *op, unsigned index) const {
  auto it = conversions.find({op, index});
  return it == conversions.end() ? nullptr : it->second.get();
}

const RegLayout &RegisterLayouts::reducedIn(Operation *reduce) const { return *reduced.lookup(reduce); }

bool RegisterLayouts::assign(func::FuncOp kernel, std::string &error) {
  Classes classes;
  SmallVector<Value> tiles;
  SmallVector<BroadcastUse> broadcasts;
  SmallVector<ReduceOp> reduces;
  SmallVector<TransposeOp> transposes;
  auto isTile = [](Value v) { return isa<TileType>(v.getType()); };

  // Operand `index` of `op` is read in layout `want`: its class takes it if
  // it has none yet, else the use converts.
  auto demand = [&](Operation *op, unsigned index, LayoutPtr want) {
    Value v = op->getOperand(index);
    if (!classes.fix(v, want))
      conversions[{op, index}] = want;
  };
  // Operand `index` shares `r`'s registers: one class, else a conversion to
  // r's layout at this use.
  auto share = [&](Operation *op, unsigned index, Value r) {
    Value v = op->getOperand(index);
    if (!classes.join(v, r))
      conversions[{op, index}] = classes.of(r);
  };
  // Elementwise operand `index` of result `r`: the same layout, or broadcast.
  auto elementwise = [&](Operation *op, unsigned index, Value r) -> bool {
    Value v = op->getOperand(index);
    if (!isTile(v))
      return true; // a scalar operand: the same value in every lane
    auto vt = cast<TileType>(v.getType()), rt = cast<TileType>(r.getType());
    if (tileRowsCols(vt.getShape()) == tileRowsCols(rt.getShape())) {
      share(op, index, r);
      return true;
    }
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
      error = opMessage(op, target.backend + " broadcasts over all leading dimensions or none, not part of them");
      return false;
    }
    broadcasts.push_back({v, r, index, leadingEqual, keepCols, op});
    return true;
  };
  auto allElementwise = [&](Operation *op) {
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      if (!elementwise(op, i, op->getResult(0)))
        return false;
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
               if (m.getA().getType().getRank() != 2 || m.getB().getType().getRank() != 2) {
                 error = opMessage(op, target.backend + " lowers mma on rank-2 tiles; got " +
                                           typeString(m.getA().getType()) + " and " + typeString(m.getB().getType()));
                 return false;
               }
               using K = RegLayout::Kind;
               if (target.mma == MmaFamily::Wgmma) { // operands read in place (wgmmaOperands)
                 demand(op, 0, mmaLayout(target, K::SharedOperand, m.getA().getType(), 64));
                 demand(op, 1, mmaLayout(target, K::SharedOperand, m.getB().getType(), 64));
                 LayoutPtr acc = mmaLayout(target, K::MmaAcc, m.getAcc().getType(), 64);
                 demand(op, 2, acc);
                 classes.fix(m.getResult(), acc);
                 return true;
               }
               // CDNA: one MFMA block for the product; mma.sync: A's rows in 16s, B's in 8s.
               const bool mfma = target.mma == MmaFamily::Mfma;
               int64_t block = mfma ? mfmaBlock(m) : 16;
               LayoutPtr acc = mmaLayout(target, K::MmaAcc, m.getAcc().getType(), block);
               demand(op, 0, mmaLayout(target, K::MmaOperand, m.getA().getType(), block));
               demand(op, 1, mmaLayout(target, K::MmaOperand, m.getB().getType(), mfma ? block : 8));
               demand(op, 2, acc);
               classes.fix(m.getResult(), acc); // fresh: the result is defined here
               return true;
             })
             .Case([&](scf::ForOp f) {
               // The body's yield and the results join the carried value; the
               // init converts once, before the loop, where it differs.
               auto yield = cast<scf::YieldOp>(f.getBody()->getTerminator());
               for (auto [i, arg] : llvm::enumerate(f.getRegionIterArgs())) {
                 if (!isTile(arg))
                   continue;
                 share(yield, unsigned(i), arg);
                 classes.join(f.getResult(i), arg);
                 share(op, f.getNumControlOperands() + unsigned(i), arg);
               }
               return true;
             })
             .Case([&](scf::IfOp f) {
               for (auto [i, r] : llvm::enumerate(f.getResults()))
                 if (isTile(r)) {
                   share(f.thenYield(), unsigned(i), r);
                   share(f.elseYield(), unsigned(i), r);
                 }
               return true;
             })
             .Case<BinaryOp, CmpOp, SelectOp>([&](Operation *) { return allElementwise(op); })
             .Case<UnaryOp, CastOp>([&](Operation *) {
               share(op, 0, op->getResult(0));
               return true;
             })
             .Case([&](ReshapeOp r) {
               if (tileRowsCols(r.getOperand().getType().getShape()) != tileRowsCols(r.getResult().getType().getShape())) {
                 error = opMessage(op, target.backend + " reshapes only without changing the row length "
                                       "(adding or dropping leading dimensions of size 1)");
                 return false;
               }
               share(op, 0, r.getResult());
               return true;
             })
             .Case([&](ReduceOp r) {
               auto t = r.getOperand().getType();
               if (r.getAxis() != t.getRank() - 1) {
                 error = opMessage(op, target.backend + " reduces along the last dimension only (lanes combine "
                                       "a row's columns); this reduce is along dimension " +
                                       std::to_string(r.getAxis()) + " of " + typeString(t));
                 return false;
               }
               if (!t.getElementType().isF32()) {
                 error = opMessage(op, target.backend + " reduces f32 tiles only; got " + typeString(t));
                 return false;
               }
               reduces.push_back(r);
               return true;
             })
             .Case([&](TransposeOp t) {
               transposes.push_back(t);
               return true;
             })
             .Default([](Operation *) { return true; });
  });
  if (!ok)
    return false;

  // Layouts that follow another value's: a broadcast operand its result's, a
  // reduce's result its operand's, a transpose's either side from the other.
  // Classes nobody constrains get the striped default, in program order,
  // until every class has a layout.
  llvm::DenseSet<Operation *> settled;
  llvm::SmallPtrSet<const BroadcastUse *, 16> settledBroadcasts;
  bool changed = false;
  auto propagate = [&]() -> bool {
    for (const BroadcastUse &b : broadcasts) {
      LayoutPtr result = classes.of(b.result);
      if (!result || settledBroadcasts.contains(&b))
        continue;
      auto [rows, cols] = tileRowsCols(cast<TileType>(b.operand.getType()).getShape());
      demand(b.op, b.index, broadcastOf(result, b.keepRows, b.keepCols, rows, cols));
      settledBroadcasts.insert(&b);
      changed = true;
    }
    for (ReduceOp r : reduces) {
      if (settled.contains(r))
        continue;
      LayoutPtr in = classes.of(r.getOperand());
      auto [rows, cols] = tileRowsCols(r.getOperand().getType().getShape());
      if (!in) { // the result's layout may name the operand's
        LayoutPtr out = classes.of(r.getResult());
        if (out && out->kind == RegLayout::Kind::Broadcast && out->keepRows && !out->keepCols &&
            out->base->rows == rows && out->base->cols == cols && out->base->rowsReducible()) {
          classes.fix(r.getOperand(), out->base);
          changed = true;
        }
        continue;
      }
      if (!in->rowsReducible()) {
        LayoutPtr s = striped(target, r.getOperand().getType());
        if (!s->rowsReducible()) {
          error = opMessage(r, target.backend + " cannot reduce the rows of " + typeString(r.getOperand().getType()) +
                                   ": its lanes would not split every row alike (" + std::to_string(cols) +
                                   " columns)");
          return false;
        }
        conversions[{r, 0}] = s;
        in = s;
      }
      LayoutPtr computed = broadcastOf(in, true, false, rows, 1);
      reduced[r] = computed;
      classes.fix(r.getResult(), computed); // else the emitter converts the result
      settled.insert(r);
      changed = true;
    }
    for (TransposeOp t : transposes) {
      if (settled.contains(t))
        continue;
      if (LayoutPtr out = classes.of(t.getResult())) {
        demand(t, 0, transposedOf(out));
      } else if (LayoutPtr in = classes.of(t.getOperand())) {
        classes.fix(t.getResult(), transposedOf(in));
      } else {
        continue;
      }
      settled.insert(t);
      changed = true;
    }
    return true;
  };
  for (;;) {
    do {
      changed = false;
      if (!propagate())
        return false;
    } while (changed);
    auto unassigned = llvm::find_if(tiles, [&](Value v) { return !classes.of(v); });
    if (unassigned == tiles.end())
      break;
    classes.fix(*unassigned, striped(target, cast<TileType>(unassigned->getType())));
  }
  for (Value v : tiles)
    layouts[v] = classes.of(v);

  // A lane group's shared scratch holds its largest converted tile.
  auto convertedBytes = [&](Type type) {
    auto t = cast<TileType>(type);
    auto [rows, cols] = tileRowsCols(t.getShape());
    return rows * cols * storageBytes(t.getElementType());
  };
  for (auto &[use, layout] : conversions)
    scratchBytes = std::max(scratchBytes, convertedBytes(use.first->getOperand(use.second).getType()));
  for (ReduceOp r : reduces)
    if (!(*reduced[r] == *layouts[r.getResult()]))
      scratchBytes = std::max(scratchBytes, convertedBytes(r.getResult().getType()));
  return true;
}

} // namespace argus::codegen::lanes
