//===- EmitRowFusion.cpp - elementwise runs as one pass over rows ---------===//
//
// One loop per elementwise op passes over the whole tile for each op, and a
// vector tile function (exp) needs its operand stored first: a softmax step
// made half a dozen passes over its score tile. A run of consecutive
// elementwise ops and last-axis reductions over one R x C f32 shape is
// emitted instead in phases: an op joins the first phase where its operands
// are ready, a reduction's result is ready in the next phase, and a lanes
// value read only in the run waits for the phase that reads it. Each phase
// is one loop over rows and, within a row, over registers of f32 lanes
// (ak::f32xN); its values stay in registers, and only those read after the
// run or in a later phase are stored (in place where the tile they replace
// is dead). Ops on R x 1 tiles (the row maxima, the running sums) stay
// ordinary loops between the phases: each row loop is independent of the
// next, which a per-row chain of scalar work was not (it ran slower than
// the unfused passes). The softmax step of attention_prefill.argus:
//
//   ak::row_results<ak::row_max<ak::f32xN>, 128> red_rows{rmax};
//   for (int64_t r = 0; r < 128; ++r) {          // phase 0
//     ak::row_max<VL> red;
//     for (int64_t c = 0; c < 64; c += VL::lanes) red.add(VL::load(s + r * 64 + c));
//     red_rows.put(r, red);                      // rmax[r], 16 rows at a time
//   }
//   ...m_new = maximum(m_i, rmax) and its guard: loops over 128 x 1...
//   ak::row_results<ak::row_sum<ak::f32xN>, 128> red_1_rows{rsum};
//   for (int64_t r = 0; r < 128; ++r) {          // phase 1
//     ak::row_sum<VL> red_1;
//     for (int64_t c = 0; c < 64; c += VL::lanes) {
//       const auto d_v = VL::sub(VL::load(s + r * 64 + c), VL::set1(m_use[r]));
//       const auto p_v = ak::exp_lanes<VL>(d_v);
//       VL::store_bf16(p_t + r * 64 + c, p_v);    // the bf16 operand of the next mma
//       red_1.add(p_v);
//     }
//     red_1_rows.put(r, red_1);
//   }
//
//===----------------------------------------------------------------------===//
#include "CpuEmitter.h"

#include "llvm/ADT/TypeSwitch.h"

#include <climits>

using namespace mlir;

namespace argus::codegen::cpu {
namespace {

/// What an op is in a row pipeline of R x C.
enum class Role {
  None,
  Lanes,     // R x C result, computed a register of columns at a time
  Reduction, // R x C -> R x 1 over the columns
  RowScalar, // R x 1 result from R x 1 tiles and scalars: an ordinary loop between phases
};

/// Columns per row must fill whole registers of the widest target (16 f32).
constexpr int64_t kLaneMultiple = 16;

std::optional<std::pair<int64_t, int64_t>> rowsCols(Type t) {
  auto tile = dyn_cast<TileType>(t);
  if (!tile || tile.getRank() != 2)
    return std::nullopt;
  return std::make_pair(tile.getShape()[0], tile.getShape()[1]);
}

Type elementOf(Value v) {
  Type t = v.getType();
  if (auto tile = dyn_cast<TileType>(t))
    return tile.getElementType();
  return t;
}

/// `v` may feed a lanes op: an f32 scalar, or an f32 R x C or R x 1 tile
/// (i1 as the condition of a select, `condition`).
bool isLanesOperand(Value v, int64_t rows, int64_t cols, bool condition = false) {
  Type elem = elementOf(v);
  if (!(condition ? elem.isInteger(1) : elem.isF32()))
    return false;
  if (!isa<TileType>(v.getType()))
    return true;
  auto rc = rowsCols(v.getType());
  return rc && rc->first == rows && (rc->second == cols || rc->second == 1);
}

/// `v` may feed a row-scalar op: a scalar or an R x 1 tile, f32 or i1.
bool isRowScalarOperand(Value v, int64_t rows) {
  Type elem = elementOf(v);
  if (!elem.isF32() && !elem.isInteger(1))
    return false;
  if (!isa<TileType>(v.getType()))
    return true;
  auto rc = rowsCols(v.getType());
  return rc && rc->first == rows && rc->second == 1;
}

bool hasLanesForm(UnaryKind k) {
  return k == UnaryKind::exp || k == UnaryKind::silu || k == UnaryKind::sigmoid;
}

/// The role of `op` in a pipeline of `rows` x `cols` (0 x 0: the first op
/// fixes them; it must be a lanes op or a reduction).
Role roleOf(Operation *op, int64_t &rows, int64_t &cols) {
  if (op->getNumResults() != 1)
    return Role::None;
  auto rc = rowsCols(op->getResult(0).getType());
  if (!rc)
    return Role::None;
  if (auto r = dyn_cast<ReduceOp>(op)) {
    auto in = rowsCols(r.getOperand().getType());
    if (r.getAxis() != 1 || !in || !r.getOperand().getType().getElementType().isF32() ||
        in->second % kLaneMultiple != 0 || (rows && (in->first != rows || in->second != cols)))
      return Role::None;
    rows = in->first, cols = in->second;
    return Role::Reduction;
  }
  bool lanesShape = rc->second > 1 && rc->second % kLaneMultiple == 0 && (!rows || *rc == std::make_pair(rows, cols));
  if (lanesShape) {
    int64_t r = rc->first, c = rc->second;
    bool ok = llvm::TypeSwitch<Operation *, bool>(op)
                  .Case([&](BinaryOp b) {
                    return b.getKind() != BinaryKind::pow && b.getType().getElementType().isF32() &&
                           isLanesOperand(b.getLhs(), r, c) && isLanesOperand(b.getRhs(), r, c);
                  })
                  .Case([&](UnaryOp u) {
                    return hasLanesForm(u.getKind()) && u.getType().getElementType().isF32();
                  })
                  .Case([&](CmpOp cmp) {
                    return isLanesOperand(cmp.getLhs(), r, c) && isLanesOperand(cmp.getRhs(), r, c);
                  })
                  .Case([&](SelectOp s) {
                    return s.getType().getElementType().isF32() &&
                           isLanesOperand(s.getCondition(), r, c, /*condition=*/true) &&
                           isLanesOperand(s.getTrueValue(), r, c) && isLanesOperand(s.getFalseValue(), r, c);
                  })
                  .Case([&](CastOp k) {
                    return k.getOperand().getType().getElementType().isF32() &&
                           k.getType().getElementType().isBF16();
                  })
                  .Default([](Operation *) { return false; });
    if (!ok)
      return Role::None;
    rows = r, cols = c;
    return Role::Lanes;
  }
  if (!rows || rc->first != rows || rc->second != 1)
    return Role::None;
  bool ok = llvm::TypeSwitch<Operation *, bool>(op)
                .Case<BinaryOp, UnaryOp, CmpOp, SelectOp>([&](Operation *o) {
                  return llvm::all_of(o->getOperands(), [&](Value v) { return isRowScalarOperand(v, rows); });
                })
                .Default([](Operation *) { return false; });
  return ok ? Role::RowScalar : Role::None;
}

/// A run of consecutive ops and where each computes.
struct Pipeline {
  int64_t rows = 0, cols = 0;
  SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, Role> role;
  llvm::DenseMap<Operation *, int> phase;
  int phases = 0;
  llvm::DenseSet<Value> stored; // values written to a tile
  llvm::DenseMap<Value, std::string> local; // register / row variable

  bool inside(Operation *op) const { return role.count(op) != 0; }
  bool definedInside(Value v) const { return v.getDefiningOp() && inside(v.getDefiningOp()); }
};

/// Whether `v` is a cast of exp's results, which are never denormal (0 or at
/// least FLT_MIN): its bf16 stores skip the denormal check (softmax's p).
bool castOfExp(Value v) {
  auto cast = v.getDefiningOp<CastOp>();
  auto exp = cast ? cast.getOperand().getDefiningOp<UnaryOp>() : UnaryOp();
  return exp && exp.getKind() == UnaryKind::exp;
}

/// The longest run from `first` that fuses soundly; empty when not worth it.
Pipeline collect(Operation *first) {
  Pipeline p;
  Role r0 = roleOf(first, p.rows, p.cols);
  if (r0 != Role::Lanes && r0 != Role::Reduction)
    return Pipeline();
  for (Operation *op = first; op; op = op->getNextNode()) {
    Role r = roleOf(op, p.rows, p.cols);
    if (r == Role::None)
      break;
    // A lanes condition must be a mask computed in the run (stored i1
    // tiles are bytes, not masks); a bf16 cast is only stored, never read
    // in the run (its lanes hold the unrounded value).
    if (auto s = dyn_cast<SelectOp>(op); s && r == Role::Lanes) {
      auto rc = rowsCols(s.getCondition().getType());
      if (rc && rc->second == p.cols && !p.definedInside(s.getCondition()))
        break;
    }
    if (llvm::any_of(op->getOperands(), [&](Value v) {
          auto c = dyn_cast_or_null<CastOp>(v.getDefiningOp());
          return c && p.inside(c);
        }))
      break;
    p.ops.push_back(op);
    p.role[op] = r;
  }
  return p;
}

} // namespace

/// Whether `user` (or the op of this block holding it) belongs to the run.
static Operation *inBlockOf(Operation *user, Block *block) {
  while (user && user->getBlock() != block)
    user = user->getParentOp();
  return user;
}

/// Phases: an op computes in the first phase where its operands are ready
/// (a reduction's result is ready in the next one); then a lanes value read
/// only in the run moves to the first phase that reads it, so that it needs
/// no store (a mask cannot be stored at all).
static void assignPhases(Pipeline &p) {
  llvm::DenseMap<Value, int> ready; // values from before the run: 0
  p.phases = 0;
  for (Operation *op : p.ops) {
    int ph = 0;
    for (Value v : op->getOperands())
      ph = std::max(ph, ready.lookup(v));
    p.phase[op] = ph;
    ready[op->getResult(0)] = p.role[op] == Role::Reduction ? ph + 1 : ph;
    p.phases = std::max(p.phases, ready[op->getResult(0)] + 1);
  }
  for (Operation *op : llvm::reverse(p.ops)) {
    if (p.role[op] != Role::Lanes)
      continue;
    int first = INT_MAX;
    for (Operation *user : op->getResult(0).getUsers()) {
      Operation *top = inBlockOf(user, op->getBlock());
      first = top && p.inside(top) ? std::min(first, p.phase[top]) : -1;
      if (first < 0)
        break;
    }
    if (first != INT_MAX && first > p.phase[op])
      p.phase[op] = first;
  }
}

/// Row-scalar ops run as ordinary loops over R x 1: before their phase's
/// column loop when one of its ops reads them, else after it. Moving one
/// before a column op that came first could let it overwrite a tile that
/// column op reads; the run stops at the first such op. True when it stopped.
static bool stopBeforeReordering(Pipeline &p) {
  llvm::DenseSet<Operation *> needed; // row scalars a column loop of their phase reads
  for (Operation *op : llvm::reverse(p.ops)) {
    bool column = p.role[op] != Role::RowScalar;
    if (!column && !needed.contains(op))
      continue;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp(); def && p.inside(def) && p.role[def] == Role::RowScalar &&
                                              p.phase[def] == p.phase[op])
        needed.insert(def);
  }
  llvm::DenseSet<int> columnSeen;
  for (auto [i, op] : llvm::enumerate(p.ops)) {
    if (p.role[op] != Role::RowScalar) {
      columnSeen.insert(p.phase[op]);
    } else if (needed.contains(op) && columnSeen.contains(p.phase[op])) {
      for (Operation *rest : llvm::drop_begin(p.ops, i))
        p.role.erase(rest);
      p.ops.resize(i);
      return true;
    }
  }
  return false;
}

LogicalResult CpuEmitter::emitRowPipeline(Operation *first, bool &fused) {
  fused = false;
  Pipeline p = collect(first);
  do
    assignPhases(p);
  while (!p.ops.empty() && stopBeforeReordering(p));
  if (llvm::count_if(p.ops, [&](Operation *op) { return p.role[op] != Role::RowScalar; }) < 2)
    return success();
  // An operand tile read a register at a time must be a plain array or a
  // view of a buffer slot (an mma operand read in place is a tile_ref).
  for (Operation *op : p.ops)
    for (Value v : op->getOperands())
      if (isa<TileType>(v.getType()) && !p.definedInside(v) && slots.get(slots.of(v)).tileRef)
        return success();

  // Stored: every row reduction (row scalars read it from its R x 1 tile),
  // and lanes values read after the run or by a later phase.
  for (Operation *op : p.ops) {
    Value v = op->getResult(0);
    if (p.role[op] == Role::RowScalar)
      continue;
    bool later = p.role[op] == Role::Reduction;
    for (Operation *user : v.getUsers()) {
      Operation *top = inBlockOf(user, first->getBlock());
      later = later || !top || !p.inside(top) || p.phase[top] > p.phase[op];
    }
    if (!later)
      continue;
    if (elementOf(v).isInteger(1))
      return success(); // a mask read later would need bytes: leave the run unfused
    p.stored.insert(v);
  }
  fused = true;

  std::string C = std::to_string(p.cols), at = "r * " + C + " + c";
  const std::string V = names.unique("VL"); // the register type (attention's values are `V`)
  // An operand as a register of lanes: R x 1 tiles and scalars broadcast.
  auto lanes = [&](Value v) -> std::string {
    if (!isa<TileType>(v.getType()))
      return V + "::set1(" + scalar(v) + ")";
    if (rowsCols(v.getType())->second == 1)
      return V + "::set1(" + slots.nameOf(v) + "[r])";
    if (p.definedInside(v) && p.local.count(v))
      return p.local[v];
    return V + "::load(" + slots.nameOf(v) + " + " + at + ")";
  };
  auto lanesExpr = [&](Operation *op) -> std::string {
    return llvm::TypeSwitch<Operation *, std::string>(op)
        .Case([&](BinaryOp b) -> std::string {
          std::string x = lanes(b.getLhs()), y = lanes(b.getRhs());
          switch (b.getKind()) {
          case BinaryKind::add: return V + "::add(" + x + ", " + y + ")";
          case BinaryKind::sub: return V + "::sub(" + x + ", " + y + ")";
          case BinaryKind::mul: return V + "::mul(" + x + ", " + y + ")";
          case BinaryKind::div: return V + "::div(" + x + ", " + y + ")";
          case BinaryKind::max: return "ak::maximum_lanes<" + V + ">(" + x + ", " + y + ")";
          case BinaryKind::min: return "ak::minimum_lanes<" + V + ">(" + x + ", " + y + ")";
          case BinaryKind::pow: break;
          }
          return "";
        })
        .Case([&](UnaryOp u) {
          std::string fn = u.getKind() == UnaryKind::exp
                               ? "ak::exp_lanes<" + V + ">"
                               : "ak::" + stringifyUnaryKind(u.getKind()).str() + "_fn::lanes<" + V + ">";
          return fn + "(" + lanes(u.getOperand()) + ")";
        })
        .Case([&](CmpOp c) {
          return V + "::" + stringifyCmpPredicate(c.getPredicate()).str() + "(" + lanes(c.getLhs()) + ", " +
                 lanes(c.getRhs()) + ")";
        })
        .Case([&](SelectOp s) {
          std::string a = lanes(s.getTrueValue()), b = lanes(s.getFalseValue());
          Value c = s.getCondition();
          if (auto rc = rowsCols(c.getType()); rc && rc->second == p.cols)
            return V + "::where(" + lanes(c) + ", " + a + ", " + b + ")";
          std::string cond = isa<TileType>(c.getType()) ? loadConv(elementOf(c), slots.nameOf(c) + "[r]") : scalar(c);
          return "(" + cond + " ? " + a + " : " + b + ")";
        })
        .Case([&](CastOp c) { return lanes(c.getOperand()); })
        .Default([](Operation *) { return std::string(); });
  };

  // A stored lanes value may overwrite an R x C tile its phase reads up to
  // it (each element is read before it is written in the same iteration)
  // that nothing reads after it: later in the run's order (canOverwrite) or
  // in a later phase.
  for (auto [i, op] : llvm::enumerate(p.ops)) {
    Value v = op->getResult(0);
    if (!p.stored.contains(v))
      continue;
    SmallVector<Value> candidates; // op's own operands first: an in-place update stays one
    SmallVector<Operation *> readers = {op};
    readers.append(p.ops.begin(), p.ops.begin() + i);
    for (Operation *reader : readers) {
      if (p.role[op] != Role::Lanes || p.phase[reader] != p.phase[op])
        continue;
      for (Value operand : reader->getOperands()) {
        auto rc = rowsCols(operand.getType());
        if (!rc || rc->second != p.cols || (p.definedInside(operand) && !p.stored.contains(operand)))
          continue;
        bool readLater = llvm::any_of(operand.getUsers(), [&](Operation *user) {
          Operation *top = inBlockOf(user, first->getBlock());
          return top && p.inside(top) && p.phase[top] > p.phase[op];
        });
        if (!readLater && !llvm::is_contained(candidates, operand))
          candidates.push_back(operand);
      }
    }
    tileForResult(v, op, candidates);
  }
  auto emitScalars = [&](int ph, bool beforeLoop, const llvm::DenseSet<Operation *> &readByLoop) -> LogicalResult {
    for (Operation *op : p.ops)
      if (p.role[op] == Role::RowScalar && p.phase[op] == ph && readByLoop.contains(op) == beforeLoop &&
          failed(emitArgusOp(op)))
        return failure();
    return success();
  };
  for (int ph = 0; ph < p.phases; ++ph) {
    SmallVector<Operation *> columnOps;
    llvm::DenseSet<Operation *> readByLoop;
    for (Operation *op : llvm::reverse(p.ops)) {
      if (p.phase[op] != ph || (p.role[op] == Role::RowScalar && !readByLoop.contains(op)))
        continue;
      if (p.role[op] != Role::RowScalar)
        columnOps.insert(columnOps.begin(), op);
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp(); def && p.inside(def) && p.phase[def] == ph)
          readByLoop.insert(def);
    }
    if (failed(emitScalars(ph, /*beforeLoop=*/true, readByLoop)))
      return failure();
    if (!columnOps.empty()) {
      // Each reduction's results: one row_results over its R x 1 tile.
      llvm::DenseMap<Operation *, std::string> reducer, results;
      auto reducerType = [&](Operation *op, StringRef lanesType) {
        return "ak::row_" + stringifyReduceKind(cast<ReduceOp>(op).getKind()).str() + "<" + lanesType.str() + ">";
      };
      for (Operation *op : columnOps)
        if (isa<ReduceOp>(op)) {
          reducer[op] = names.unique("red");
          results[op] = names.unique(reducer[op] + "_rows");
          line("ak::row_results<" + reducerType(op, "ak::f32xN") + ", " + std::to_string(p.rows) + "> " +
                   results[op] + "{" + slots.nameOf(op->getResult(0)) + "};",
               op);
        }
      line("for (int64_t r = 0; r < " + std::to_string(p.rows) + "; ++r) {  // " +
               std::to_string(columnOps.size()) + " ops fused: one pass over each row, " + V +
               "::lanes columns at a time",
           columnOps.front());
      indent();
      line("using " + V + " = ak::f32xN;");
      for (Operation *op : columnOps)
        if (reducer.count(op))
          line(reducerType(op, V) + " " + reducer[op] + ";", op);
      line("for (int64_t c = 0; c < " + C + "; c += " + V + "::lanes) {");
      indent();
      for (Operation *op : columnOps) {
        if (reducer.count(op)) {
          line(reducer[op] + ".add(" + lanes(op->getOperand(0)) + ");", op);
          continue;
        }
        Value v = op->getResult(0);
        std::string name = names.unique(nameFor(v) + "_v");
        line("const auto " + name + " = " + lanesExpr(op) + ";", op);
        p.local[v] = name;
        if (p.stored.contains(v))
          line(V + (!elementOf(v).isBF16() ? "::store(" : castOfExp(v) ? "::store_bf16_normal(" : "::store_bf16(") +
               slots.nameOf(v) + " + " + at + ", " + name + ");");
      }
      dedent();
      line("}");
      for (Operation *op : columnOps)
        if (reducer.count(op))
          line(results[op] + ".put(r, " + reducer[op] + ");");
      dedent();
      line("}");
      // Lanes values of this phase end with the loop: later phases load them.
      for (Operation *op : columnOps)
        p.local.erase(op->getResult(0));
    }
    if (failed(emitScalars(ph, /*beforeLoop=*/false, readByLoop)))
      return failure();
  }
  for (Operation *op : p.ops)
    if (op != first)
      fusedOps.insert(op); // emitted: the block's walk skips them
  return success();
}

} // namespace argus::codegen::cpu
