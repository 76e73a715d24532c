//===- LowerStatements.cpp - statements, loops and conditionals -----------===//
//
// The DSL has Python's variables; the IR has SSA values. A variable that is
// reassigned inside a `for` body becomes a loop-carried value (scf.for
// iter_args); one reassigned in a run-time `if` becomes a result of the
// scf.if. An `if` on a compile-time constant lowers only the branch taken.
//
//===----------------------------------------------------------------------===//
#include "Lowerer.h"

using namespace mlir;

namespace argus::lowering {

static void collectTargets(const dsl::Expr &target, std::vector<std::string> &names) {
  if (auto *n = target.as<dsl::NameExpr>())
    names.push_back(n->name);
  else if (auto *t = target.as<dsl::TupleExpr>())
    for (auto &e : t->elements)
      collectTargets(*e, names);
}

void collectAssigned(const dsl::Block &block, std::vector<std::string> &names) {
  for (const dsl::StmtPtr &s : block) {
    if (auto *a = s->as<dsl::AssignStmt>())
      collectTargets(*a->target, names);
    else if (auto *a = s->as<dsl::AugAssignStmt>())
      collectTargets(*a->target, names);
    else if (auto *f = s->as<dsl::ForStmt>()) {
      collectTargets(*f->target, names);
      collectAssigned(f->body, names);
    } else if (auto *i = s->as<dsl::IfStmt>()) {
      collectAssigned(i->body, names);
      collectAssigned(i->orElse, names);
    }
  }
}

void Lowerer::lowerBlock(const dsl::Block &block) {
  for (const dsl::StmtPtr &s : block)
    lowerStmt(*s);
}

void Lowerer::lowerStmt(const dsl::Stmt &stmt) {
  switch (stmt.kind) {
  case dsl::StmtKind::Expr: {
    const dsl::Expr &e = *stmt.as<dsl::ExprStmt>()->value;
    if (e.kind == dsl::ExprKind::String) // docstring
      return;
    eval(e);
    return;
  }
  case dsl::StmtKind::Assign: {
    auto *a = stmt.as<dsl::AssignStmt>();
    assign(*a->target, eval(*a->value));
    return;
  }
  case dsl::StmtKind::AugAssign: {
    auto *a = stmt.as<dsl::AugAssignStmt>();
    if (!a->target->as<dsl::NameExpr>())
      fail(a->target->loc, "augmented assignment needs a variable name on the left");
    Sem current = eval(*a->target);
    assign(*a->target, evalBinary(a->op, current, eval(*a->value), a->loc));
    return;
  }
  case dsl::StmtKind::For:
    lowerFor(*stmt.as<dsl::ForStmt>());
    return;
  case dsl::StmtKind::If:
    lowerIf(*stmt.as<dsl::IfStmt>());
    return;
  case dsl::StmtKind::Pass:
    return;
  case dsl::StmtKind::Return:
    fail(stmt.loc, "kernels return nothing; write results with store(...)");
  case dsl::StmtKind::Assert: {
    auto *a = stmt.as<dsl::AssertStmt>();
    Sem c = eval(*a->condition);
    if (!c.isConst())
      fail(a->condition->loc, "assert checks compile-time constants only; got " + describe(c));
    if (!constTruth(c, a->loc)) {
      std::string message = "assertion failed";
      if (a->message) {
        Sem m = eval(*a->message);
        if (m.kind == Sem::String)
          message += ": " + m.s;
      }
      fail(a->loc, message);
    }
    return;
  }
  case dsl::StmtKind::FunctionDef:
    fail(stmt.loc, "nested functions are not supported");
  case dsl::StmtKind::Import:
    return;
  }
}

void Lowerer::assign(const dsl::Expr &target, Sem value) {
  if (auto *n = target.as<dsl::NameExpr>()) {
    if (dtypeFromName(ctx, n->name) || n->name == "Tensor")
      fail(target.loc, "cannot assign to the builtin name '" + n->name + "'");
    // Name the defining op after the variable, so backends can emit readable code.
    if ((value.kind == Sem::Scalar || value.kind == Sem::Tile || value.kind == Sem::Buffer) &&
        value.value.getDefiningOp()) {
      Operation *def = value.value.getDefiningOp();
      if (isa<FileLineColLoc>(def->getLoc()) && def->getNumResults() == 1)
        def->setLoc(NameLoc::get(builder.getStringAttr(n->name), def->getLoc()));
    }
    env[n->name] = std::move(value);
    return;
  }
  if (auto *t = target.as<dsl::TupleExpr>()) {
    if (value.kind != Sem::Tuple)
      fail(target.loc, "cannot unpack " + describe(value) + " into " +
                           std::to_string(t->elements.size()) + " names");
    if (value.elems.size() != t->elements.size())
      fail(target.loc, "expected " + std::to_string(t->elements.size()) + " values to unpack, got " +
                           std::to_string(value.elems.size()));
    for (size_t i = 0; i < t->elements.size(); ++i)
      assign(*t->elements[i], value.elems[i]);
    return;
  }
  if (auto *s = target.as<dsl::SubscriptExpr>()) {
    // buf[i] = tile  ==  buf[i].store(tile)
    Sem slot = evalSubscript(*s);
    if (slot.kind != Sem::BufferSlot)
      fail(target.loc, "only buffer slots can be assigned to (buf[i] = tile), not " + describe(slot));
    CallArgs args;
    args.loc = target.loc;
    args.positional = {slot, value};
    args.positionalLocs = {target.loc, target.loc};
    callBuiltin("store", args);
    return;
  }
  fail(target.loc, "cannot assign to this expression");
}

/// Values that may be carried through scf regions.
static bool isCarriable(const Sem &v) { return v.kind == Sem::Scalar || v.kind == Sem::Tile; }

void Lowerer::lowerFor(const dsl::ForStmt &stmt) {
  auto *call = stmt.iter->as<dsl::CallExpr>();
  auto *callee = call ? call->callee->as<dsl::NameExpr>() : nullptr;
  if (!callee || (callee->name != "range" && callee->name != "pipeline"))
    fail(stmt.iter->loc, "expected range(...) or pipeline(...) after 'in'");
  auto *var = stmt.target->as<dsl::NameExpr>();
  if (!var)
    fail(stmt.target->loc, "the loop variable must be a single name");

  // Bounds: range(stop) | range(start, stop[, step]) | pipeline(stop, stages=S)
  std::vector<Sem> args;
  for (auto &a : call->args)
    args.push_back(eval(*a));
  int64_t stages = 1;
  for (const dsl::Keyword &kw : call->keywords) {
    if (callee->name == "pipeline" && kw.name == "stages") {
      stages = toConstInt(eval(*kw.value), kw.value->loc, "pipeline stages");
      if (stages < 1 || stages > 16)
        fail(kw.value->loc, "pipeline stages must lie in [1, 16], got " + std::to_string(stages));
    } else {
      fail(kw.loc, "unexpected keyword '" + kw.name + "' for " + callee->name + "()");
    }
  }
  size_t maxArgs = callee->name == "range" ? 3 : 1;
  if (args.empty() || args.size() > maxArgs)
    fail(call->loc, callee->name + "() takes " + (maxArgs == 3 ? "1 to 3" : "1") +
                        " positional arguments, got " + std::to_string(args.size()));
  Value lower = args.size() >= 2 ? toIndex(args[0], call->loc) : indexConst(0, call->loc);
  Value upper = toIndex(args.size() >= 2 ? args[1] : args[0], call->loc);
  Value step = indexConst(1, call->loc);
  if (args.size() == 3) {
    // A compile-time step: a run-time step of 0 would never end.
    if (toConstInt(args[2], call->args[2]->loc, "a range step") <= 0)
      fail(call->args[2]->loc, "range step must be positive");
    step = toIndex(args[2], call->loc);
  }

  // Loop-carried variables: assigned in the body and alive before the loop.
  std::vector<std::string> assigned;
  collectAssigned(stmt.body, assigned);
  std::vector<std::string> carried;
  for (const std::string &name : assigned) {
    auto it = env.find(name);
    if (it == env.end() || name == var->name ||
        std::find(carried.begin(), carried.end(), name) != carried.end())
      continue;
    if (!isCarriable(it->second))
      fail(stmt.loc, "'" + name + "' is " + describe(it->second) +
                         " and is reassigned inside the loop; only scalars and tiles can change in a loop");
    carried.push_back(name);
  }
  SmallVector<Value> inits;
  for (const std::string &name : carried)
    inits.push_back(env[name].value);

  // The loop is named after its variable, so diagnostics and counterexamples
  // can say "kt = 3".
  auto forOp = scf::ForOp::create(builder, NameLoc::get(builder.getStringAttr(var->name), loc(stmt.loc)),
                                  lower, upper, step, inits);
  if (callee->name == "pipeline")
    forOp->setAttr(kernel_attr::kPipelineStages, builder.getI64IntegerAttr(stages));

  Env outer = env;
  {
    OpBuilder::InsertionGuard guard(builder);
    Block *body = forOp.getBody();
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
      body->back().erase();
    builder.setInsertionPointToEnd(body);
    env[var->name] = Sem::ofValue(Sem::Scalar, forOp.getInductionVar());
    for (size_t i = 0; i < carried.size(); ++i)
      env[carried[i]] = Sem::ofValue(outer[carried[i]].kind, forOp.getRegionIterArgs()[i]);
    lowerBlock(stmt.body);
    SmallVector<Value> yields;
    for (size_t i = 0; i < carried.size(); ++i) {
      Sem &now = env[carried[i]];
      if (!isCarriable(now) || now.value.getType() != inits[i].getType()) {
        std::string was, is;
        llvm::raw_string_ostream w(was), n(is);
        w << inits[i].getType();
        if (isCarriable(now)) n << now.value.getType(); else n << describe(now);
        fail(stmt.loc, "loop-carried '" + carried[i] + "' changes type inside the loop, from " + was +
                           " to " + is);
      }
      yields.push_back(now.value);
    }
    scf::YieldOp::create(builder, loc(stmt.loc), yields);
  }
  env = outer;
  for (size_t i = 0; i < carried.size(); ++i)
    env[carried[i]] = Sem::ofValue(outer[carried[i]].kind, forOp.getResult(i));
}

void Lowerer::lowerIf(const dsl::IfStmt &stmt) {
  Sem cond = eval(*stmt.condition);
  if (cond.isConst() || cond.kind == Sem::None || cond.kind == Sem::Dtype || cond.kind == Sem::String) {
    bool taken = cond.kind == Sem::None ? false
                 : (cond.kind == Sem::Dtype || cond.kind == Sem::String) ? true
                                                                          : constTruth(cond, stmt.loc);
    lowerBlock(taken ? stmt.body : stmt.orElse);
    return;
  }
  Value c = toI1(cond, stmt.condition->loc);

  // Variables the branches may change.
  std::vector<std::string> assigned;
  collectAssigned(stmt.body, assigned);
  collectAssigned(stmt.orElse, assigned);
  std::vector<std::string> results;
  for (const std::string &name : assigned) {
    auto it = env.find(name);
    if (it == env.end() || std::find(results.begin(), results.end(), name) != results.end())
      continue;
    if (!isCarriable(it->second))
      fail(stmt.loc, "'" + name + "' is " + describe(it->second) +
                         " and is reassigned under a run-time condition; only scalars and tiles can be");
    results.push_back(name);
  }

  // Lower both branches into a result-less scf.if, then rebuild it with the
  // result types now known and move the bodies over.
  auto draft = scf::IfOp::create(builder, loc(stmt.loc), TypeRange{}, c, /*withElseRegion=*/true);
  Env outer = env;
  auto lowerBranch = [&](Region &region, const dsl::Block &block) {
    OpBuilder::InsertionGuard guard(builder);
    Block &b = region.front();
    if (!b.empty())
      b.back().erase(); // the implicit scf.yield
    builder.setInsertionPointToEnd(&b);
    env = outer;
    lowerBlock(block);
    std::vector<Value> values;
    for (const std::string &name : results) {
      Sem &now = env[name];
      if (!isCarriable(now))
        fail(stmt.loc, "'" + name + "' becomes " + describe(now) + " in one branch of the if");
      values.push_back(now.value);
    }
    return values;
  };
  std::vector<Value> thenValues = lowerBranch(draft.getThenRegion(), stmt.body);
  std::vector<Value> elseValues = lowerBranch(draft.getElseRegion(), stmt.orElse);
  SmallVector<Type> types;
  for (size_t i = 0; i < results.size(); ++i) {
    if (thenValues[i].getType() != elseValues[i].getType())
      fail(stmt.loc, "'" + results[i] + "' has different types in the two branches of the if");
    types.push_back(thenValues[i].getType());
  }
  env = outer;
  auto ifOp = scf::IfOp::create(builder, loc(stmt.loc), types, c, /*withElseRegion=*/true);
  ifOp.getThenRegion().takeBody(draft.getThenRegion());
  ifOp.getElseRegion().takeBody(draft.getElseRegion());
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&ifOp.getThenRegion().front());
    scf::YieldOp::create(builder, loc(stmt.loc), thenValues);
    builder.setInsertionPointToEnd(&ifOp.getElseRegion().front());
    scf::YieldOp::create(builder, loc(stmt.loc), elseValues);
  }
  draft.erase();
  for (size_t i = 0; i < results.size(); ++i)
    env[results[i]] = Sem::ofValue(outer[results[i]].kind, ifOp.getResult(i));
}

} // namespace argus::lowering
