//===- Coverage.cpp - every in-bounds output element is written ---------===//
//
// "Some store instance covers element c" is an existential over program
// ids, threads and loop iterations; its negation would need a quantifier,
// which Z3 decides too slowly on bit-vectors. Instead each store proposes a
// witness instance for c by inverting its tile offsets (mixed radix: the
// instance variable with the largest stride first, w = (c - rest) / stride)
// and the query asks for an in-bounds c that no witness covers. `unsat`
// proves coverage. A candidate c is then checked concretely (sizes and c
// fixed, instance free): when no instance covers it, it is a counterexample;
// when one does, c is excluded and the search goes on a few rounds.
//
// Offsets that use the thread id non-linearly (a 2 x 2 grid of waves:
// tid / 2 for the row, tid % 2 for the column) defeat the inversion. When
// the rounds run out and the workgroup has few threads, the query is posed
// again with one witness per (store, thread value): exact, and T times larger.
//
//===----------------------------------------------------------------------===//

#include "Checks.h"
#include "Counterexample.h"

#include "argus/Interpreter/Interpreter.h"
#include "argus/Reference/References.h"

namespace argus::verify::detail {

namespace {

z3::expr substituted(const z3::expr &e, const z3::expr_vector &from, const z3::expr_vector &to) {
  return from.empty() ? e : z3::expr(e).substitute(from, to);
}

/// The variables naming a store instance: program ids, thread, loop indices.
std::vector<z3::expr> instanceVarsOf(SymContext &ctx) {
  std::vector<z3::expr> out;
  for (const VarInfo &v : ctx.vars())
    if (v.instance &&
        (v.role == VarRole::ProgramId || v.role == VarRole::Thread || v.role == VarRole::LoopIndex))
      out.push_back(v.var);
  return out;
}

/// The witness instance of `store` for element `c`: var -> term in c.
std::pair<z3::expr_vector, z3::expr_vector>
witness(SymContext &ctx, const GlobalAccessEvent &store, const std::vector<z3::expr> &c) {
  z3::expr_vector from(ctx.z3), to(ctx.z3);
  std::vector<z3::expr> vars = instanceVarsOf(ctx);
  auto assigned = [&](const z3::expr &v) {
    for (unsigned i = 0; i < from.size(); ++i)
      if (z3::eq(from[i], v))
        return true;
    return false;
  };
  for (size_t d = 0; d < c.size() && d < store.offsets.size(); ++d) {
    z3::expr off = store.offsets[d];
    // Strides of the unassigned variables this offset mentions.
    std::vector<std::pair<int64_t, z3::expr>> strided;
    for (const z3::expr &v : vars) {
      if (assigned(v) || !mentions(off, v))
        continue;
      z3::expr_vector f(ctx.z3), one(ctx.z3), zero(ctx.z3);
      for (const z3::expr &u : vars)
        if (!assigned(u)) {
          f.push_back(u);
          one.push_back(z3::eq(u, v) ? ctx.index(1) : ctx.index(0));
          zero.push_back(ctx.index(0));
        }
      z3::expr base = substituted(substituted(off, from, to), f, zero);
      z3::expr stride = (substituted(substituted(off, from, to), f, one) - base).simplify();
      int64_t s = 0;
      if (stride.is_numeral_i64(s) && s > 0)
        strided.emplace_back(s, v);
    }
    std::sort(strided.begin(), strided.end(),
              [](const auto &a, const auto &b) { return a.first > b.first; });
    for (auto &[s, v] : strided) {
      z3::expr_vector f(ctx.z3), zero(ctx.z3);
      for (const z3::expr &u : vars)
        if (!assigned(u) && !z3::eq(u, v)) {
          f.push_back(u);
          zero.push_back(ctx.index(0));
        }
      z3::expr_vector fv(ctx.z3), zv(ctx.z3);
      fv.push_back(v);
      zv.push_back(ctx.index(0));
      z3::expr rest = substituted(substituted(substituted(off, from, to), f, zero), fv, zv);
      from.push_back(v);
      to.push_back(floorDiv(c[d] - rest, ctx.index(s)));
    }
  }
  // Loop indices nobody determined run from their first iteration.
  for (const LoopFrame &l : store.at.loops)
    if (!assigned(l.iv)) {
      z3::expr first = substituted(l.lb, from, to); // before l.iv joins `from`: the vectors pair up
      from.push_back(l.iv);
      to.push_back(first);
    }
  for (const z3::expr &v : vars)
    if (!assigned(v)) {
      from.push_back(v);
      to.push_back(ctx.index(0));
    }
  return {from, to};
}

/// Whether the instance (its variables free) covers `c`.
z3::expr covers(Executor &ex, const GlobalAccessEvent &s, const std::vector<z3::expr> &c) {
  SymContext &ctx = ex.ctx;
  z3::expr ok = s.at.guard;
  for (const z3::expr &k : ex.exec.instanceConstraints)
    ok = ok && k;
  for (size_t d = 0; d < c.size() && d < s.offsets.size(); ++d) {
    z3::expr e = c[d] - s.offsets[d];
    ok = ok && e >= ctx.index(0) && e < ctx.index(s.tileShape[d]);
  }
  return ok;
}

} // namespace

void Checker::checkOutputsStored() {
  mlir::func::FuncOp kernel = ex.exec.kernel;
  auto name = kernel->getAttrOfType<mlir::StringAttr>(kernel_attr::kReference);
  const ref::Reference *ref = name ? ref::findReference(name.str()) : nullptr;
  if (!ref || !ref->pureOutputs)
    return;
  // The outputs when every scalar is 0 (e.g. GEMM with beta = 0: C).
  std::vector<ref::RefArg> args;
  size_t tensor = 0;
  for (mlir::BlockArgument arg : kernel.getArguments()) {
    ref::RefArg a;
    a.isTensor = llvm::isa<GlobalTensorType>(arg.getType());
    a.name = a.isTensor ? ex.exec.tensors[tensor++].name : "";
    if (auto names = kernel->getAttrOfType<mlir::ArrayAttr>(kernel_attr::kArgNames))
      if (arg.getArgNumber() < names.size())
        a.name = llvm::cast<mlir::StringAttr>(names[arg.getArgNumber()]).str();
    args.push_back(a);
  }
  for (const std::string &out : ref->pureOutputs(args)) {
    bool stored = false;
    for (const GlobalAccessEvent &g : ex.exec.globalAccesses)
      stored = stored || (g.write && ex.exec.tensors[g.tensor].name == out); // a segment has its base's name
    if (stored)
      continue;
    // Any launch shows it: take small sizes, element 0.
    z3::solver launch(ctx.z3, "QF_BV");
    for (const z3::expr &c : ex.exec.launchConstraints)
      launch.add(c);
    for (const VarInfo &v : ctx.vars())
      if (v.role == VarRole::Size)
        launch.add(v.var <= ctx.index(64));
    if (launch.check() != z3::sat)
      continue;
    Finding f = finding(CheckKind::UnwrittenOutput, launch.get_model());
    f.message = "'" + out + "' is an output of reference '" + ref->name + "' but no op stores to it";
    Access a;
    a.target = out;
    a.write = true;
    for (const TensorInfo &t : ex.exec.tensors)
      if (t.name == out)
        a.element.assign(t.dims.size(), 0);
    a.point.location = interp::formatLocation(kernel.getLoc());
    a.point.op = "func.func";
    f.accesses.push_back(a);
    report.findings.push_back(std::move(f));
  }
}

namespace {

/// `store` with the thread id fixed to `t` (offsets, guard and loop bounds).
GlobalAccessEvent forThread(const GlobalAccessEvent &store, const z3::expr &thread, int64_t t, SymContext &ctx) {
  z3::expr_vector from(ctx.z3), to(ctx.z3);
  from.push_back(thread);
  to.push_back(ctx.index(t));
  GlobalAccessEvent fixed = store;
  fixed.at.guard = substituted(store.at.guard, from, to);
  for (z3::expr &o : fixed.offsets)
    o = substituted(o, from, to);
  for (LoopFrame &l : fixed.at.loops)
    l.lb = substituted(l.lb, from, to);
  return fixed;
}

/// Most threads for which coverage enumerates the thread id.
constexpr int64_t kMaxEnumeratedThreads = 16;

} // namespace

void Checker::checkUnwritten(int tensor, const std::vector<GlobalAccessEvent *> &stores) {
  const TensorInfo &t = ex.exec.tensors[tensor];
  std::vector<z3::expr> c;
  for (size_t d = 0; d < t.dims.size(); ++d)
    c.push_back(ctx.fresh("c" + std::to_string(d), kIndexBits, VarRole::Element, false));
  std::vector<z3::expr> bounds = ex.exec.launchConstraints;
  for (size_t d = 0; d < c.size(); ++d)
    bounds.push_back(c[d] >= ctx.index(0) && c[d] < t.dims[d]);
  std::vector<z3::expr> inverted = bounds;
  for (GlobalAccessEvent *s : stores) {
    auto [from, to] = witness(ctx, *s, c);
    inverted.push_back(!substituted(covers(ex, *s, c), from, to));
  }
  mlir::Operation *op = stores.front()->at.op;
  if (searchUnwritten(inverted, t, c, stores))
    return;
  if (ex.exec.thread && ex.exec.numThreads > 1 && ex.exec.numThreads <= kMaxEnumeratedThreads) {
    std::vector<z3::expr> enumerated = bounds;
    for (GlobalAccessEvent *s : stores)
      for (int64_t thread = 0; thread < ex.exec.numThreads; ++thread) {
        const GlobalAccessEvent fixed = forThread(*s, *ex.exec.thread, thread, ctx);
        auto [from, to] = witness(ctx, fixed, c);
        enumerated.push_back(!substituted(covers(ex, fixed, c), from, to));
      }
    if (searchUnwritten(enumerated, t, c, stores))
      return;
  }
  Finding f;
  f.kind = CheckKind::Unsupported;
  f.message = "could not decide whether every element of '" + t.name +
              "' is written (the stores' tile offsets are not invertible)";
  f.accesses.push_back(Access{});
  f.accesses.back().point.location = interp::formatLocation(op->getLoc());
  report.findings.push_back(std::move(f));
}

bool Checker::searchUnwritten(std::vector<z3::expr> q, const TensorInfo &t, const std::vector<z3::expr> &c,
                              const std::vector<GlobalAccessEvent *> &stores) {
  mlir::Operation *op = stores.front()->at.op;
  for (int round = 0; round < 4; ++round) {
    std::optional<z3::model> m = violation(q, false, op, CheckKind::UnwrittenOutput);
    if (!m)
      return true;
    // Is the candidate really uncovered? Fix the launch and c, free the instance.
    std::vector<z3::expr> fixed;
    for (const VarInfo &v : ctx.vars())
      if (!v.instance && (v.role == VarRole::Size || v.role == VarRole::Scalar ||
                          v.role == VarRole::Choice))
        fixed.push_back(v.var == m->eval(v.var, true));
    std::vector<int64_t> element;
    for (const z3::expr &x : c) {
      element.push_back(valueOf(*m, x));
      fixed.push_back(x == m->eval(x, true));
    }
    z3::expr any = ctx.z3.bool_val(false);
    for (GlobalAccessEvent *s : stores)
      any = any || covers(ex, *s, c);
    z3::solver concrete(ctx.z3, "QF_BV");
    for (const z3::expr &f : fixed)
      concrete.add(f);
    concrete.add(any);
    ++report.queries;
    if (concrete.check() == z3::sat) {
      z3::expr differs = ctx.z3.bool_val(false);
      for (size_t d = 0; d < c.size(); ++d)
        differs = differs || c[d] != m->eval(c[d], true);
      q.push_back(differs);
      continue;
    }
    Finding f = finding(CheckKind::UnwrittenOutput, *m);
    f.message = "an in-bounds element of '" + t.name + "' is written by no store instance";
    Access a;
    a.target = t.name;
    a.write = true;
    a.element = element;
    a.point.location = interp::formatLocation(op->getLoc());
    a.point.op = op->getName().getStringRef().str();
    f.accesses.push_back(a);
    report.findings.push_back(std::move(f));
    return true;
  }
  return false;
}

} // namespace argus::verify::detail
