//===- Loops.cpp - scf.for: closed forms of loop-carried state ----------===//
//
// A loop runs over one symbolic iteration `iv` (see Executor.h for the three
// passes). The value of a loop-carried scalar at iteration k (k = 0 first) is
// derived from how one iteration changes it, Y(H) for a placeholder H:
//
//   Y = H                       -> init
//   Y does not mention H        -> ite(k == 0, init, Y(iv - step))
//   Y = H + c                   -> init + k * c
//   Y = F(H + c), periodic Y    -> guessed, kept only when Z3 proves them
//                                  inductive (Python's %, stage flips)
//   anything else               -> unknown per iteration (sound, imprecise)
//
// Counters of barriers and issued copies are affine; the completed-copy
// counters only grow (max), so their value at iteration k is the previous
// iteration's end value computed from the initial one.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "argus/Interpreter/Interpreter.h"

#include <functional>
#include <unordered_set>

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
  if (out.elements)
    out.elements->body = z3::expr(out.elements->body).substitute(from, to);
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
  h.elements.reset();  // carried tiles are tracked by their tags only
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

/// The subterm `h + c` (c loop-invariant) of `y`, if any.
std::optional<std::pair<z3::expr, z3::expr>> findIncrement(const z3::expr &y, const z3::expr &h,
                                                          const z3::expr &iv) {
  std::vector<z3::expr> stack{y};
  std::unordered_set<unsigned> seen;
  while (!stack.empty()) {
    z3::expr e = stack.back();
    stack.pop_back();
    if (!seen.insert(e.id()).second || !e.is_app())
      continue;
    if (isApp(e, Z3_OP_BADD) && e.num_args() == 2)
      for (int side = 0; side < 2; ++side)
        if (z3::eq(e.arg(side), h) && !mentions(e.arg(1 - side), h) && !mentions(e.arg(1 - side), iv))
          return std::make_pair(e, e.arg(1 - side));
    for (unsigned i = 0; i < e.num_args(); ++i)
      stack.push_back(e.arg(i));
  }
  return std::nullopt;
}

/// Closed form of a carried integer / bool, as a term in the iteration k:
///   Y = H -> init;  Y without H -> ite(k == 0, init, Y(iv - step));
///   Y = H + c -> init + k * c (exact);
/// otherwise candidates are guessed and kept only when Z3 proves them
/// inductive (G(0) = init by construction, G(k) = Y(G(k - 1)) for k >= 1):
///   Y = F(H + c) -> ite(k == 0, init, F(init + k * c))   (e.g. Python's %)
///   periodic    -> ite(k == 0, init, Y^((k - 1) % p + 1)(init)), p <= 4
/// nullopt when none holds.
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
  if (!y.is_bool()) {
    z3::expr d = (y - h).simplify();
    if (!mentions(d, h) && !mentions(d, fr.iv))
      return init + signExtendTo(k, y.get_sort().bv_size()) * d;
  }
  if (mentions(y, fr.iv))
    return std::nullopt;

  // Guess and check, over a free iteration count kv.
  z3::expr kv = ctx.z3.bv_const("closed-form iteration", kIndexBits);
  z3::expr zero = ctx.index(0), one = ctx.index(1);
  auto apply = [&](const z3::expr &prev) { return subst(ctx, y, h, prev); };
  auto inductive = [&](const std::function<z3::expr(const z3::expr &)> &g) {
    z3::solver s(ctx.z3, "QF_BV");
    // A guess that Z3 cannot settle quickly is dropped (the loop falls back to a coarser
    // summary), within a deterministic budget: a tenth of a query's.
    s.set(queryLimits(ctx.z3, ex.options.queryResourceLimit / 10, ex.options.queryTimeoutMs));
    s.add(kv >= one && kv < ctx.index(ex.options.maxSize));
    s.add(g(kv) != apply(g(kv - one)));
    return s.check() == z3::unsat;
  };
  std::vector<std::function<z3::expr(const z3::expr &)>> candidates;
  if (auto inc = findIncrement(y, h, fr.iv)) {
    auto [term, c] = *inc;
    unsigned bits = c.get_sort().bv_size();
    candidates.push_back([&, term, c, bits](const z3::expr &kk) {
      return z3::ite(kk == zero, init, subst(ctx, y, term, init + signExtendTo(kk, bits) * c));
    });
  }
  std::vector<z3::expr> orbit{apply(init)}; // Y(init), Y(Y(init)), ...
  for (int p = 1; p <= 4; ++p) {
    if (p > 1)
      orbit.push_back(apply(orbit.back()));
    candidates.push_back([&, p, orbit](const z3::expr &kk) {
      z3::expr phase = z3::urem(kk - one, ctx.index(p));
      z3::expr v = orbit[p - 1];
      for (int i = p - 2; i >= 0; --i)
        v = z3::ite(phase == ctx.index(i), orbit[i], v);
      return z3::ite(kk == zero, init, v);
    });
  }
  for (auto &g : candidates)
    if (inductive(g))
      return g(k);
  return std::nullopt;
}

/// Closed form of a carried tile's tags.
SymValue closedTile(Executor &ex, const LoopFrame &fr, const SymValue &init, const SymValue &h,
                    const SymValue &y, const std::vector<z3::expr> &allPlaceholders) {
  SymValue out = init;
  out.elements.reset();
  std::vector<z3::expr> coords = ex.freshCoords(init.shape.size());
  TagExpr yAt = y.tile->at(coords), hAt = h.tile->at(coords);
  bool identity = z3::eq(yAt.state, hAt.state) && z3::eq(yAt.origin, hAt.origin);
  for (size_t f = 0; identity && f < yAt.fields.size(); ++f)
    identity = z3::eq(yAt.fields[f], hAt.fields[f]);
  if (identity)
    return out;
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
      // No closed form: an unknown value per iteration (sound, imprecise),
      // the initial one in the first iteration.
      SymValue v = init;
      unsigned bits = init.term->is_bool() ? 0 : init.term->get_sort().bv_size();
      v.term = z3::ite(frame.iteration == ctx.index(0), *init.term,
                       ctx.choice("carried value of " + name, bits, position({iv})));
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
    v.elements.reset();
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
