//===- Checks.cpp - properties as Z3 queries ----------------------------===//

#include "Checks.h"

#include "Counterexample.h"
#include "Division.h"

#include "argus/Interpreter/Interpreter.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace argus::verify::detail {

using namespace mlir;

namespace {

/// Z3's resource counter ("rlimit count": deterministic work, cumulative over the context).
double resourceCount(z3::solver &solver) {
  z3::stats stats = solver.statistics();
  for (unsigned i = 0; i < stats.size(); ++i)
    if (stats.key(i) == "rlimit count")
      return stats.is_uint(i) ? double(stats.uint_value(i)) : stats.double_value(i);
  return 0;
}

z3::expr inRange(SymContext &ctx, const std::vector<z3::expr> &coords,
                 const std::vector<int64_t> &shape) {
  z3::expr ok = ctx.z3.bool_val(true);
  for (size_t d = 0; d < coords.size(); ++d)
    ok = ok && coords[d] >= ctx.index(0) && coords[d] < ctx.index(shape[d]);
  return ok;
}

std::vector<z3::expr> renamed(const Renaming &r, const std::vector<z3::expr> &xs) {
  std::vector<z3::expr> out;
  for (const z3::expr &x : xs)
    out.push_back(r(x));
  return out;
}

std::string describeState(TagValue::State s) {
  switch (s) {
  case TagValue::State::Unwritten: return "unwritten (no write reaches it)";
  case TagValue::State::Untagged: return "untagged (a computed value)";
  case TagValue::State::Unknown:
    return "unknown (conflicting writes, an async copy still in flight, or a write older than "
           "the loop window)";
  case TagValue::State::Tagged: return "tagged";
  }
  return "";
}

} // namespace

Finding Checker::finding(CheckKind kind, const z3::model &model) {
  Finding f;
  f.kind = kind;
  f.sizes = sizesOf(ctx, model);
  return f;
}

Renaming Checker::secondInstance(bool onlyThread) {
  Renaming r(ctx);
  for (const VarInfo &v : std::vector<VarInfo>(ctx.vars())) {
    if (!v.instance || (onlyThread && v.role != VarRole::Thread))
      continue;
    r.from.push_back(v.var);
    r.to.push_back(v.var.is_bool()
                       ? ctx.z3.bool_const((v.var.to_string() + "'").c_str())
                       : ctx.z3.bv_const((v.var.to_string() + "'").c_str(),
                                         v.var.get_sort().bv_size()));
  }
  return r;
}

std::vector<z3::expr> Checker::base(const Renaming *second) {
  std::vector<z3::expr> out = ex.exec.launchConstraints;
  for (const z3::expr &c : ex.exec.instanceConstraints) {
    out.push_back(c);
    if (second)
      out.push_back((*second)(c));
  }
  return out;
}

std::optional<z3::model> Checker::violation(const std::vector<z3::expr> &constraints,
                                            bool quantified, Operation *op, CheckKind kind, bool bitBlast) {
  z3::solver solver = quantified ? z3::solver(ctx.z3) : z3::solver(ctx.z3, "QF_UFBV");
  if (bitBlast && !quantified) {
    // Equivalences of index arithmetic (a mask against its relation): bit-blasting after the
    // simplifications solves them several times faster than the default QF_UFBV strategy.
    auto step = [&](const char *name) { return z3::tactic(ctx.z3, name); };
    solver = (step("simplify") & step("propagate-values") & step("solve-eqs") & step("elim-uncnstr") &
              step("ackermannize_bv") & step("bit-blast") & step("sat"))
                 .mk_solver();
  }
  solver.set(queryLimits(ctx.z3, ex.options.queryResourceLimit, ex.options.queryTimeoutMs));
  std::vector<z3::expr> query = constraints;
  if (!quantified)
    eliminateConstantDivision(ctx.z3, query);
  for (const z3::expr &c : query)
    solver.add(c);
  ++report.queries;
  auto start = std::chrono::steady_clock::now();
  z3::check_result r = z3::unknown;
  std::string failure;
  try {
    r = solver.check();
  } catch (const z3::exception &e) { // a fault inside Z3 (4.8.12 has some): undecided, not a crash
    failure = std::string("Z3 failed: ") + e.msg();
  }
  if (std::getenv("ARGUS_VERIFY_TRACE"))
    std::fprintf(stderr, "argus-verify: %s query at %s: %s in %.1f ms, rlimit %.0f\n", checkName(kind),
                 interp::formatLocation(op->getLoc()).c_str(),
                 r == z3::unsat ? "unsat" : r == z3::sat ? "sat" : "unknown",
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
                 resourceCount(solver));
  if (r == z3::unsat) {
    ++report.proved;
    return std::nullopt;
  }
  if (r == z3::unknown) {
    Finding f;
    f.kind = CheckKind::Unsupported;
    f.message = std::string("Z3 could not decide the ") + checkName(kind) + " property (" +
                (failure.empty() ? solver.reason_unknown() : failure) + ")";
    f.accesses.push_back(Access{});
    f.accesses.back().point.location = interp::formatLocation(op->getLoc());
    f.accesses.back().point.op = op->getName().getStringRef().str();
    report.findings.push_back(std::move(f));
    return std::nullopt;
  }
  // Prefer counterexamples that are easy to read and to replay: sizes that
  // are multiples of 64 (no tile straddles an edge, so no padding hides an
  // element's identity) and small, else just small, else any. Z3 4.8.12 can
  // fault when an incremental check follows a sat one: then the first model.
  const z3::model any = solver.get_model();
  try {
    for (int preference = 0; preference < 2; ++preference) {
      solver.push();
      for (const VarInfo &v : ctx.vars()) {
        if (v.role != VarRole::Size)
          continue;
        solver.add(v.var <= ctx.index(preference == 0 ? 256 : 64));
        if (preference == 0)
          solver.add(z3::urem(v.var, ctx.index(64)) == ctx.index(0));
      }
      if (solver.check() == z3::sat)
        return solver.get_model();
      solver.pop();
    }
  } catch (const z3::exception &) {
  }
  return any;
}

//===----------------------------------------------------------------------===//

void Checker::checkAssertions() {
  for (AssertEvent &a : ex.exec.asserts) {
    // Plain: every operand at one element. Mask: a[i, k], b[j, k] and the mask's (i, j), at coords (i, j, k).
    const bool masked = cast<AssertTagOp>(a.at.op).getMask();
    if (masked && !a.mask)
      continue;  // reported as unsupported when it was recorded
    std::vector<z3::expr> coords = ex.freshCoords(masked ? 3 : a.shapes.front().size());
    std::vector<TagExpr> tags;
    if (masked) {
      tags.push_back(a.operands[0].at({coords[0], coords[2]}));
      tags.push_back(a.operands[1].at({coords[1], coords[2]}));
    } else {
      for (const TileTag &t : a.operands)
        tags.push_back(t.at(coords));
    }
    auto [holds, missing] = evaluateAssertion(ex, a, tags);
    z3::expr untagged = ctx.z3.bool_val(false);
    for (const TagExpr &t : tags)
      untagged = untagged || t.state != ctx.state(TagState::Tagged);
    std::vector<z3::expr> q = base(nullptr);
    q.push_back(a.at.guard);
    if (masked) {
      const std::vector<int64_t> &sa = a.shapes[0], &sb = a.shapes[1];
      q.push_back(inRange(ctx, coords, {sa[0], sb[0], sa[1]}));
      q.push_back(untagged || missing || holds != a.mask->at({coords[0], coords[1]}));
    } else {
      q.push_back(inRange(ctx, coords, a.shapes.front()));
      q.push_back(untagged || missing || !holds);
    }
    std::optional<z3::model> m = violation(q, false, a.at.op, CheckKind::TagAssertion, /*bitBlast=*/masked);
    if (!m)
      continue;
    Finding f = finding(CheckKind::TagAssertion, *m);
    f.accesses.push_back(accessOf(ex, *m, a.at, nullptr, "the assertion's operands at", {}, coords, false, false));
    for (const TagExpr &t : tags)
      f.actualTags.push_back(tagOf(ex, *m, t));
    auto msg = cast<AssertTagOp>(a.at.op).getMessage();
    f.expected = msg ? msg->str() : sourceLineAt(f.accesses.front().point.location);
    f.message = "tag assertion fails";
    if (masked)
      f.message = valueOf(*m, holds) ? "mask assertion fails: the mask drops a pair the relation allows (at "
                                       "a[i, k], b[j, k], mask[i, j] for the element (i, j, k))"
                                     : "mask assertion fails: the mask keeps a pair the relation does not allow "
                                       "(at a[i, k], b[j, k], mask[i, j] for the element (i, j, k))";
    for (size_t i = 0; i < f.actualTags.size(); ++i)
      if (f.actualTags[i].state != TagValue::State::Tagged) {
        f.message = "tag assertion fails: operand " + std::to_string(i) + " is " +
                    describeState(f.actualTags[i].state);
        break;
      }
    if (valueOf(*m, missing) && f.message == "tag assertion fails")
      f.message = "tag assertion fails: an operand's tag has no field the assertion names";
    report.findings.push_back(std::move(f));
  }
}

void Checker::checkUninitializedReads() {
  for (BufferReadEvent &r : ex.exec.bufferReads) {
    std::vector<z3::expr> coords = ex.freshCoords(r.shape.size());
    TagExpr tag = r.value.at(coords);
    std::vector<z3::expr> q = base(nullptr);
    q.push_back(r.at.guard);
    q.push_back(inRange(ctx, coords, r.shape));
    q.push_back(tag.state == ctx.state(TagState::Unwritten));
    std::optional<z3::model> m = violation(q, false, r.at.op, CheckKind::UninitializedRead);
    if (!m)
      continue;
    Finding f = finding(CheckKind::UninitializedRead, *m);
    f.message = "reads a buffer element that no write reaches";
    f.accesses.push_back(accessOf(ex, *m, r.at, nullptr, ex.exec.buffers[r.buffer].name, r.slot,
                                  coords, false, false));
    f.actualTags.push_back(tagOf(ex, *m, tag));
    report.findings.push_back(std::move(f));
  }
}

void Checker::checkBounds() {
  for (BufferAccessEvent &a : ex.exec.bufferAccesses) {
    const BufferInfo &b = ex.exec.buffers[a.buffer];
    std::vector<int64_t> slotShape(b.shape.begin(), b.shape.begin() + a.slot.size());
    std::vector<z3::expr> q = base(nullptr);
    q.push_back(a.at.guard);
    q.push_back(!inRange(ctx, a.slot, slotShape));
    std::optional<z3::model> m = violation(q, false, a.at.op, CheckKind::OutOfBounds);
    if (!m)
      continue;
    Finding f = finding(CheckKind::OutOfBounds, *m);
    f.message = "slot index outside the buffer's " + std::to_string(a.slot.size()) +
                " leading dimension(s)";
    f.accesses.push_back(accessOf(ex, *m, a.at, nullptr, b.name, a.slot, {}, a.write, a.async));
    report.findings.push_back(std::move(f));
  }
  for (GlobalAccessEvent &g : ex.exec.globalAccesses) {
    if (!g.unmasked)
      continue;
    const TensorInfo &t = ex.exec.tensors[g.tensor];
    std::vector<z3::expr> coords = ex.freshCoords(g.tileShape.size());
    z3::expr outside = ctx.z3.bool_val(false);
    for (size_t d = 0; d < coords.size(); ++d) {
      z3::expr c = g.offsets[d] + coords[d];
      outside = outside || c < ctx.index(0) || c >= t.dims[d];
    }
    std::vector<z3::expr> q = base(nullptr);
    q.push_back(g.at.guard);
    q.push_back(inRange(ctx, coords, g.tileShape));
    q.push_back(outside);
    std::optional<z3::model> m = violation(q, false, g.at.op, CheckKind::OutOfBounds);
    if (!m)
      continue;
    Finding f = finding(CheckKind::OutOfBounds, *m);
    std::vector<z3::expr> global;
    for (size_t d = 0; d < coords.size(); ++d)
      global.push_back(g.offsets[d] + coords[d]);
    f.message = isa<ReadOp>(g.at.op) ? "element read reaches outside tensor '" + t.name + "'"
                : std::string("unmasked ") + (g.write ? "store" : "load") + " reaches outside tensor '" + t.name + "'";
    f.accesses.push_back(accessOf(ex, *m, g.at, nullptr, t.name, {}, global, g.write, false));
    report.findings.push_back(std::move(f));
  }
}

void Checker::checkRaces() {
  auto &accesses = ex.exec.bufferAccesses;
  for (size_t i = 0; i < accesses.size(); ++i) {
    for (size_t j = 0; j < accesses.size(); ++j) {
      BufferAccessEvent &a = accesses[i], &b = accesses[j];
      if (a.buffer != b.buffer || (!a.write && !b.write))
        continue;
      const BufferInfo &buf = ex.exec.buffers[a.buffer];
      bool asyncPair = a.async;
      if (!asyncPair && (j < i || b.async || !buf.shared))
        continue; // sync pairs once; async pairs with the async side first
      Renaming r2 = secondInstance();
      std::vector<z3::expr> q = base(&r2);
      q.push_back(a.at.guard);
      q.push_back(r2(b.at.guard));
      for (size_t d = 0; d < ex.exec.programIds.size(); ++d)
        q.push_back(ex.exec.programIds[d] == r2(ex.exec.programIds[d]));
      for (size_t d = 0; d < std::min(a.slot.size(), b.slot.size()); ++d)
        q.push_back(a.slot[d] == r2(b.slot[d]));
      z3::expr t1 = *ex.exec.thread, t2 = r2(*ex.exec.thread);
      if (!asyncPair) {
        q.push_back(t1 != t2);
        q.push_back(a.at.counters.epoch == r2(b.at.counters.epoch));
      } else {
        const z3::expr &seq = *a.seq;
        // b is the same instance as a: not a second access.
        z3::expr sameInstance = t1 == t2;
        for (const LoopFrame &l : a.at.loops)
          sameInstance = sameInstance && l.iv == r2(l.iv);
        if (i == j)
          q.push_back(!sameInstance);
        z3::expr sameThread = t1 == t2 && r2(b.at.counters.issued) > seq &&
                              r2(b.at.counters.done) <= seq;
        z3::expr_vector tf(ctx.z3), tt(ctx.z3);
        tf.push_back(t2);
        tt.push_back(t1);
        z3::expr seenByOther = z3::expr(r2(b.at.counters.doneAtBarrier)).substitute(tf, tt) > seq;
        z3::expr otherThread = t1 != t2 && r2(b.at.counters.epoch) >= a.at.counters.epoch &&
                               !seenByOther;
        q.push_back(buf.shared ? (sameThread || otherThread) : sameThread);
      }
      CheckKind kind = asyncPair ? CheckKind::AsyncRace : CheckKind::Race;
      std::optional<z3::model> m = violation(q, false, b.at.op, kind);
      if (!m)
        continue;
      Finding f = finding(kind, *m);
      f.message = asyncPair ? "buffer slot touched while an async copy into it is in flight"
                            : "two threads access one buffer slot in the same barrier interval, "
                              "one of them writing";
      f.accesses.push_back(accessOf(ex, *m, a.at, nullptr, buf.name, a.slot, {}, a.write, a.async));
      f.accesses.push_back(accessOf(ex, *m, b.at, &r2, buf.name, b.slot, {}, b.write, b.async));
      report.findings.push_back(std::move(f));
    }
  }
}

void Checker::checkWriteOnce() {
  auto &accesses = ex.exec.globalAccesses;
  std::map<int, std::vector<GlobalAccessEvent *>> storesOf;
  for (GlobalAccessEvent &g : accesses)
    if (g.write)
      storesOf[g.tensor].push_back(&g);

  for (auto &[tensor, stores] : storesOf) {
    const TensorInfo &t = ex.exec.tensors[tensor];
    // Two store instances on one in-bounds element.
    for (size_t i = 0; i < stores.size(); ++i) {
      for (size_t j = i; j < stores.size(); ++j) {
        GlobalAccessEvent &a = *stores[i], &b = *stores[j];
        Renaming r2 = secondInstance();
        std::vector<z3::expr> ea = ex.freshCoords(a.tileShape.size());
        std::vector<z3::expr> eb = renamed(r2, ex.freshCoords(b.tileShape.size()));
        std::vector<z3::expr> q = base(&r2);
        q.push_back(a.at.guard);
        q.push_back(r2(b.at.guard));
        q.push_back(inRange(ctx, ea, a.tileShape));
        q.push_back(inRange(ctx, eb, b.tileShape));
        std::vector<z3::expr> element;
        for (size_t d = 0; d < ea.size() && d < eb.size(); ++d) {
          z3::expr c = a.offsets[d] + ea[d];
          element.push_back(c);
          q.push_back(c == r2(b.offsets[d]) + eb[d]);
          q.push_back(c >= ctx.index(0) && c < t.dims[d]);
        }
        if (i == j) {
          z3::expr distinct = *ex.exec.thread != r2(*ex.exec.thread);
          for (const z3::expr &pid : ex.exec.programIds)
            distinct = distinct || pid != r2(pid);
          for (const LoopFrame &l : a.at.loops)
            distinct = distinct || l.iv != r2(l.iv);
          q.push_back(distinct);
        }
        std::optional<z3::model> m = violation(q, false, b.at.op, CheckKind::DoubleWrite);
        if (!m)
          continue;
        Finding f = finding(CheckKind::DoubleWrite, *m);
        f.message = "output element of '" + t.name + "' written by two store instances";
        f.accesses.push_back(accessOf(ex, *m, a.at, nullptr, t.name, {}, element, true, false));
        f.accesses.push_back(accessOf(ex, *m, b.at, &r2, t.name, {}, renamed(r2, element), true, false));
        f.accesses.back().element = f.accesses.front().element;
        report.findings.push_back(std::move(f));
      }
    }
    checkUnwritten(tensor, stores);
  }
}

void Checker::checkBankConflicts() {
  if (ex.options.bankConflicts == VerifyOptions::BankMode::Off || ex.exec.numThreads < 2)
    return;
  for (BufferAccessEvent &a : ex.exec.bufferAccesses) {
    const BufferInfo &b = ex.exec.buffers[a.buffer];
    if (!b.shared)
      continue;
    // Lanes of one warp run the same access on the same element position.
    Renaming lane2 = secondInstance(/*onlyThread=*/true);
    std::vector<z3::expr> coords = ex.freshCoords(a.tileShape.size());
    z3::expr p1 = physicalOffset(ctx, b, a.slot, a.view, coords);
    z3::expr p2 = lane2(p1);
    z3::expr bytes = ctx.index(b.elementBytes), four = ctx.index(4), banks = ctx.index(32);
    z3::expr w1 = z3::udiv(p1 * bytes, four), w2 = z3::udiv(p2 * bytes, four);
    z3::expr t1 = *ex.exec.thread, t2 = lane2(t1);
    std::vector<z3::expr> q = base(&lane2);
    q.push_back(a.at.guard);
    q.push_back(lane2(a.at.guard));
    q.push_back(inRange(ctx, coords, a.tileShape));
    q.push_back(t1 != t2 && z3::udiv(t1, banks) == z3::udiv(t2, banks));
    q.push_back(z3::urem(w1, banks) == z3::urem(w2, banks) && w1 != w2);
    std::optional<z3::model> m = violation(q, false, a.at.op, CheckKind::BankConflict);
    if (!m)
      continue;
    Finding f = finding(CheckKind::BankConflict, *m);
    f.severity = ex.options.bankConflicts == VerifyOptions::BankMode::Error ? Severity::Error
                                                                             : Severity::Warning;
    f.message = "two lanes of one warp hit the same shared-memory bank at different words";
    f.accesses.push_back(accessOf(ex, *m, a.at, nullptr, b.name, a.slot, coords, a.write, a.async));
    f.accesses.push_back(accessOf(ex, *m, a.at, &lane2, b.name, a.slot, coords, a.write, a.async));
    report.findings.push_back(std::move(f));
  }
}

void Checker::checkIndexWidth() {
  // One query for all: some index operation whose exact value leaves the model.
  z3::expr any = ctx.z3.bool_val(false);
  for (const WidthEvent &w : ex.exec.widths)
    any = any || (w.at.guard && !w.fits);
  if (ex.exec.widths.empty())
    return;
  std::vector<z3::expr> q = base(nullptr);
  q.push_back(any);
  std::optional<z3::model> m = violation(q, false, ex.exec.widths.front().at.op, CheckKind::Unsupported);
  if (!m)
    return;
  for (const WidthEvent &w : ex.exec.widths) {
    if (!valueOf(*m, w.at.guard && !w.fits))
      continue;
    Finding f = finding(CheckKind::Unsupported, *m);
    f.message = "index arithmetic leaves the verifier's " + std::to_string(kIndexBits) +
                "-bit model (sizes up to " + std::to_string(ex.options.maxSize) +
                "): this kernel is not modelled exactly";
    f.accesses.push_back(accessOf(ex, *m, w.at, nullptr, "", {}, {}, false, false));
    report.findings.push_back(std::move(f));
    return;
  }
}

void Checker::checkBarriers() {
  if (ex.exec.numThreads < 2)
    return;
  for (const EventContext &b : ex.exec.barriers) {
    Renaming other = secondInstance(/*onlyThread=*/true);
    std::vector<z3::expr> q = base(&other);
    q.push_back(*ex.exec.thread != other(*ex.exec.thread));
    q.push_back(b.guard != other(b.guard));
    std::optional<z3::model> m = violation(q, false, b.op, CheckKind::DivergentBarrier);
    if (!m)
      continue;
    Finding f = finding(CheckKind::DivergentBarrier, *m);
    f.message = "one thread reaches this barrier and another skips it (deadlock or undefined "
                "behaviour on a GPU)";
    bool firstReaches = valueOf(*m, b.guard);
    f.accesses.push_back(accessOf(ex, *m, b, firstReaches ? nullptr : &other, "", {}, {}, false, false));
    f.accesses.push_back(accessOf(ex, *m, b, firstReaches ? &other : nullptr, "", {}, {}, false, false));
    f.message += ": thread " + std::to_string(f.accesses[0].thread) + " reaches it, thread " +
                 std::to_string(f.accesses[1].thread) + " does not";
    f.expected = "the barrier's condition is the same in every thread";
    report.findings.push_back(std::move(f));
  }
}

void Checker::runAll() {
  const VerifyOptions &o = ex.options;
  checkIndexWidth();
  if (o.tagAssertions)
    checkAssertions();
  if (o.uninitializedReads)
    checkUninitializedReads();
  if (o.inBounds)
    checkBounds();
  if (o.races) {
    checkRaces();
    checkBarriers();
  }
  if (o.writeOnce) {
    checkOutputsStored();
    checkWriteOnce();
  }
  checkBankConflicts();
}

} // namespace argus::verify::detail
