//===- Loops.cpp - scf.for: closed forms of loop-carried state ----------===//
//
// A loop runs over one symbolic iteration `iv` (see Executor.h for the three
// passes). The value of a loop-carried scalar at iteration k (k = 0 first) is
// derived from how one iteration changes it, Y(H) for a placeholder H:
//
//   Y = H                       -> init
//   Y does not mention H        -> ite(k == 0, init, Y(iv - step))
//   Y = H + c                   -> init + k * c
//   Y = (H + c) % m             -> (init + k * c) % m
//   Y = H ^ c, Y = c - H, !H    -> alternates between init and Y(init)
//   anything else               -> unknown (a fresh variable: sound, imprecise)
//
// Counters of barriers and issued copies are affine; the completed-copy
// counters only grow (max), so their value at iteration k is the previous
// iteration's end value computed from the initial one.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "argus/Interpreter/Interpreter.h"

namespace argus::verify::detail {

using namespace mlir;

namespace {

std::string loopName(scf::ForOp op) {
  if (auto name = dyn_cast<NameLoc>(op.getLoc()))
    return name.getName().str();
  return "loop at " + interp::formatLocation(op.getLoc());
}

z3::expr_vector vec(SymContext &ctx, std::initializer_list<z3::expr> xs) {
  z3::expr_vector v(ctx.z3);
  for (const z3::expr &x : xs)
    v.push_back(x);
  return v;
}

z3::expr subst(SymContext &ctx, const z3::expr &e, const z3::expr &from, const z3::expr &to) {
  return z3::expr(e).substitute(vec(ctx, {from}), vec(ctx, {to}));
}

SymValue substValue(Executor &ex, const SymValue &v, const z3::expr_vector &from,
                    const z3::expr_vector &to) {
  SymValue out = v;
  if (out.term)
    out.term = z3::expr(*out.term).substitute(from, to);
  if (out.tile)
    out.tile->body = out.tile->body.substitute(from, to);
  return out;
}

/// The terms a placeholder consists of (for "does Y mention H").
std::vector<z3::expr> placeholderVars(const SymValue &h) {
  std::vector<z3::expr> vars;
  if (h.term)
    vars.push_back(*h.term);
  if (h.tile) {
    vars.push_back(h.tile->body.state);
    vars.push_back(h.tile->body.origin);
    for (const z3::expr &f : h.tile->body.fields)
      vars.push_back(f);
  }
  return vars;
}

SymValue placeholderFor(Executor &ex, const SymValue &init) {
  SymValue h = init;
  switch (init.kind) {
  case SymValue::Kind::Int:
    h.term = ex.ctx.fresh("carried", init.term->get_sort().bv_size(), VarRole::Choice, true);
    break;
  case SymValue::Kind::Bool:
    h.term = ex.ctx.fresh("carried", 0, VarRole::Choice, true);
    break;
  case SymValue::Kind::Tile: {
    TagExpr body{ex.ctx.fresh("carried.state", 2, VarRole::Choice, true),
                 ex.ctx.fresh("carried.origin", 16, VarRole::Choice, true), {}};
    for (unsigned f = 0; f < ex.ctx.numFields; ++f)
      body.fields.push_back(ex.ctx.fresh("carried.field", kIndexBits, VarRole::Choice, true));
    h.tile = ex.freshTile(init.shape, body);
    break;
  }
  default:
    break;
  }
  return h;
}

bool isApp(const z3::expr &e, Z3_decl_kind kind) {
  return e.is_app() && e.decl().decl_kind() == kind;
}

/// Closed form of a carried integer / bool; nullopt when no pattern applies.
std::optional<z3::expr> closedScalar(Executor &ex, const LoopFrame &fr, const z3::expr &init,
                                     const z3::expr &h, const z3::expr &yRaw,
                                     const std::vector<z3::expr> &others) {
  SymContext &ctx = ex.ctx;
  z3::expr y = yRaw.simplify();
  z3::expr k = fr.iteration;
  if (z3::eq(y, h))
    return init;
  if (mentionsAny(y, others))
    return std::nullopt;
  if (!mentions(y, h))
    return z3::ite(k == ctx.index(0), init, subst(ctx, y, fr.iv, fr.iv - fr.step));
  auto invariant = [&](const z3::expr &c) { return !mentions(c, h) && !mentions(c, fr.iv); };
  z3::expr two = ctx.index(2), zero = ctx.index(0);
  if (y.is_bool()) {
    if (isApp(y, Z3_OP_NOT) && z3::eq(y.arg(0), h))
      return z3::ite(z3::urem(k, two) == zero, init, !init);
    return std::nullopt;
  }
  unsigned bits = y.get_sort().bv_size();
  z3::expr kk = signExtendTo(k, bits);
  z3::expr d = (y - h).simplify();
  if (invariant(d))
    return init + kk * d;
  if ((isApp(y, Z3_OP_BUREM) || isApp(y, Z3_OP_BUREM_I) || isApp(y, Z3_OP_BSREM) ||
       isApp(y, Z3_OP_BSREM_I)) &&
      y.arg(1).is_numeral()) {
    z3::expr c = (y.arg(0) - h).simplify();
    if (invariant(c)) {
      bool isUnsigned = isApp(y, Z3_OP_BUREM) || isApp(y, Z3_OP_BUREM_I);
      z3::expr sum = init + kk * c;
      return isUnsigned ? z3::urem(sum, y.arg(1)) : z3::srem(sum, y.arg(1));
    }
  }
  z3::expr alternate = z3::urem(k, two) == zero;
  if (isApp(y, Z3_OP_BXOR) && y.num_args() == 2) {
    for (int side = 0; side < 2; ++side)
      if (z3::eq(y.arg(side), h) && invariant(y.arg(1 - side)))
        return z3::ite(alternate, init, init ^ y.arg(1 - side));
  }
  z3::expr s = (y + h).simplify();
  if (invariant(s))
    return z3::ite(alternate, init, s - init);
  return std::nullopt;
}

/// Closed form of a carried tile's tags.
SymValue closedTile(Executor &ex, const LoopFrame &fr, const SymValue &init, const SymValue &h,
                    const SymValue &y, const std::vector<z3::expr> &allPlaceholders) {
  SymValue out = init;
  std::vector<z3::expr> coords = ex.freshCoords(init.shape.size());
  TagExpr yAt = y.tile->at(coords), hAt = h.tile->at(coords);
  bool identity = z3::eq(yAt.state, hAt.state) && z3::eq(yAt.origin, hAt.origin);
  for (size_t f = 0; identity && f < yAt.fields.size(); ++f)
    identity = z3::eq(yAt.fields[f], hAt.fields[f]);
  if (identity)
    return init;
  std::vector<z3::expr> parts{yAt.state, yAt.origin};
  parts.insert(parts.end(), yAt.fields.begin(), yAt.fields.end());
  bool dependent = false;
  for (const z3::expr &p : parts)
    dependent = dependent || mentionsAny(p, allPlaceholders);
  if (dependent) {
    out.tile = TileTag{coords, ex.ctx.unknown()};
    return out;
  }
  z3::expr_vector from = vec(ex.ctx, {fr.iv}), to = vec(ex.ctx, {fr.iv - fr.step});
  out.tile = TileTag{coords, iteTag(fr.iteration == ex.ctx.index(0), init.tile->at(coords),
                                    yAt.substitute(from, to))};
  return out;
}

} // namespace

std::vector<SymValue> Executor::runFor(scf::ForOp op) {
  z3::expr lb = intOf(op.getLowerBound()), ub = intOf(op.getUpperBound());
  z3::expr step = intOf(op.getStep()).simplify();
  int64_t stepValue = 0;
  if (!step.is_numeral_i64(stepValue) || stepValue <= 0) {
    problem(op, "loop step must be a positive constant");
    step = ctx.index(1);
  }
  std::string name = loopName(op);
  z3::expr iv = ctx.fresh(name, kIndexBits, VarRole::LoopIndex, true);
  // Unit steps (the common case) keep division out of the terms: bit-blasted
  // dividers dominate the cost of a query.
  const bool unit = stepValue == 1;
  z3::expr trips = z3::ite(ub > lb, unit ? ub - lb : ceilDiv(ub - lb, step), ctx.index(0));
  z3::expr iteration = unit ? iv - lb : (iv - lb) / step;
  LoopFrame frame{op, name, iv, lb, ub, step, iteration, trips};
  z3::expr range = iv >= lb && iv < ub;
  if (!unit)
    range = range && z3::urem(iv - lb, step) == ctx.index(0);

  std::vector<SymValue> inits;
  for (Value v : op.getInitArgs())
    inits.push_back(get(v));
  Block &body = *op.getBody();
  const Mode outerMode = mode;
  const z3::expr outerGuard = guard;
  const Counters c0 = *counters;
  const std::vector<History> outerMemory = memory;

  auto runBody = [&](const std::vector<SymValue> &header, const Counters &start) {
    counters = start;
    guard = outerGuard && range;
    loops.push_back(frame);
    set(op.getInductionVar(), SymValue{SymValue::Kind::Int, iv, std::nullopt, {}, -1});
    for (auto [arg, v] : llvm::zip(op.getRegionIterArgs(), header))
      set(arg, v);
    std::vector<SymValue> yields = runBlock(body);
    loops.pop_back();
    guard = outerGuard;
    return yields;
  };

  // Pass A: how one iteration changes the carried values and counters.
  mode = Mode::Dry;
  std::vector<SymValue> holders;
  std::vector<z3::expr> allPlaceholders;
  for (const SymValue &init : inits) {
    holders.push_back(placeholderFor(*this, init));
    for (const z3::expr &v : placeholderVars(holders.back()))
      allPlaceholders.push_back(v);
  }
  Counters hc{ctx.fresh("epoch", kIndexBits, VarRole::Choice, true),
              ctx.fresh("issued", kIndexBits, VarRole::Choice, true),
              ctx.fresh("done", kIndexBits, VarRole::Choice, true),
              ctx.fresh("doneAtBarrier", kIndexBits, VarRole::Choice, true)};
  std::vector<z3::expr> counterHolders{hc.epoch, hc.issued, hc.done, hc.doneAtBarrier};
  std::vector<SymValue> yA = runBody(holders, hc);
  Counters endA = *counters;
  memory = outerMemory;

  std::vector<SymValue> header;
  for (size_t i = 0; i < inits.size(); ++i) {
    const SymValue &init = inits[i], &h = holders[i];
    if (init.kind == SymValue::Kind::Tile && i < yA.size() && yA[i].kind == SymValue::Kind::Tile) {
      header.push_back(closedTile(*this, frame, init, h, yA[i], allPlaceholders));
      continue;
    }
    if ((init.kind == SymValue::Kind::Int || init.kind == SymValue::Kind::Bool) && i < yA.size() &&
        yA[i].kind == init.kind) {
      std::vector<z3::expr> others;
      for (const z3::expr &v : allPlaceholders)
        if (!z3::eq(v, *h.term))
          others.push_back(v);
      others.insert(others.end(), counterHolders.begin(), counterHolders.end());
      if (std::optional<z3::expr> form = closedScalar(*this, frame, *init.term, *h.term,
                                                      *yA[i].term, others)) {
        SymValue v = init;
        v.term = *form;
        header.push_back(v);
        continue;
      }
      SymValue v = init;
      v.term = placeholderFor(*this, init).term; // unknown: sound, imprecise
      header.push_back(v);
      continue;
    }
    header.push_back(init.kind == SymValue::Kind::Tile ? SymValue{} : init);
  }

  // Counters: barriers and issued copies are affine in k; completed copies grow.
  auto affine = [&](const z3::expr &start, const z3::expr &end, const z3::expr &h,
                    const char *what) -> z3::expr {
    z3::expr d = (end - h).simplify();
    std::vector<z3::expr> bad = allPlaceholders;
    bad.insert(bad.end(), counterHolders.begin(), counterHolders.end());
    bad.push_back(iv);
    if (mentionsAny(d, bad)) {
      problem(op, std::string("the number of ") + what +
                      " per iteration of '" + name + "' must not depend on the iteration");
      return ctx.fresh(what, kIndexBits, VarRole::Choice, true);
    }
    return start + frame.iteration * d;
  };
  Counters hv{affine(c0.epoch, endA.epoch, hc.epoch, "barriers"),
              affine(c0.issued, endA.issued, hc.issued, "async copies"), c0.done,
              c0.doneAtBarrier};
  {
    z3::expr_vector from(ctx.z3), to(ctx.z3);
    for (auto [h, v] : llvm::zip(holders, header)) {
      if (h.term && v.term) {
        from.push_back(*h.term);
        to.push_back(*v.term);
      }
    }
    from.push_back(hc.epoch), to.push_back(hv.epoch);
    from.push_back(hc.issued), to.push_back(hv.issued);
    from.push_back(hc.done), to.push_back(c0.done);
    from.push_back(hc.doneAtBarrier), to.push_back(c0.doneAtBarrier);
    z3::expr_vector back = vec(ctx, {iv}), prev = vec(ctx, {iv - step});
    z3::expr first = frame.iteration == ctx.index(0);
    hv.done = z3::ite(first, c0.done, z3::expr(endA.done).substitute(from, to).substitute(back, prev));
    hv.doneAtBarrier = z3::ite(
        first, c0.doneAtBarrier, z3::expr(endA.doneAtBarrier).substitute(from, to).substitute(back, prev));
  }

  // Pass B: the body's writes, for earlier iterations seen from later ones.
  for (History &h : memory)
    h.clear();
  runBody(header, hv);
  std::vector<History> bodyWrites = memory;

  // Pass C: for real.
  mode = outerMode;
  memory = outerMemory;
  memory.resize(std::max(memory.size(), bodyWrites.size()));
  std::vector<size_t> markers;
  for (size_t b = 0; b < memory.size(); ++b) {
    HistoryItem marker;
    marker.kind = HistoryItem::Kind::Current;
    marker.loop = std::make_shared<LoopRecord>(
        LoopRecord{frame, b < bodyWrites.size() ? bodyWrites[b] : History{}});
    markers.push_back(memory[b].size());
    memory[b].push_back(std::move(marker));
  }
  std::vector<SymValue> yC = runBody(header, hv);
  Counters endC = *counters;
  for (size_t b = 0; b < markers.size(); ++b) {
    History &h = memory[b];
    auto record = std::make_shared<LoopRecord>(
        LoopRecord{frame, History(h.begin() + markers[b] + 1, h.end())});
    h.resize(markers[b] + 1);
    h[markers[b]].kind = HistoryItem::Kind::Loop;
    h[markers[b]].loop = record;
  }

  // After the loop: the last iteration's values, or the initial ones.
  z3::expr none = trips == ctx.index(0);
  z3::expr_vector from = vec(ctx, {iv}), to = vec(ctx, {lb + (trips - ctx.index(1)) * step});
  auto atLast = [&](const z3::expr &e) { return z3::expr(e).substitute(from, to); };
  counters = Counters{z3::ite(none, c0.epoch, atLast(endC.epoch)),
                      z3::ite(none, c0.issued, atLast(endC.issued)),
                      z3::ite(none, c0.done, atLast(endC.done)),
                      z3::ite(none, c0.doneAtBarrier, atLast(endC.doneAtBarrier))};
  std::vector<SymValue> out;
  for (size_t i = 0; i < inits.size(); ++i) {
    if (i >= yC.size() || yC[i].kind != inits[i].kind) {
      out.push_back(SymValue{});
      continue;
    }
    SymValue last = substValue(*this, yC[i], from, to);
    const SymValue &init = inits[i];
    SymValue v = init;
    if (init.term) {
      v.term = z3::ite(none, *init.term, *last.term);
    } else if (init.tile) {
      std::vector<z3::expr> coords = freshCoords(init.shape.size());
      v.tile = TileTag{coords, iteTag(none, init.tile->at(coords), last.tile->at(coords))};
    }
    out.push_back(v);
  }
  return out;
}

} // namespace argus::verify::detail
