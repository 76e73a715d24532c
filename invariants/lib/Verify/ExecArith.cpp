//===- ExecArith.cpp - arith ops as bit-vector terms --------------------===//
//
// Integer and index arithmetic becomes Z3 bit-vector terms with the
// dialect's semantics (wrap-around, x / 0 == 0); comparisons become Bools.
// Float arithmetic is not modelled: its results are opaque, and a float
// comparison is a free Bool, so both branches of a float test are explored.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"

namespace argus::verify::detail {

using namespace mlir;

namespace {

unsigned bitsOf(Type t) { return t.isIndex() ? kIndexBits : t.getIntOrFloatBitWidth(); }

SymValue intValue(const z3::expr &e) { return SymValue{SymValue::Kind::Int, e, std::nullopt, {}, -1}; }
SymValue boolValue(const z3::expr &e) { return SymValue{SymValue::Kind::Bool, e, std::nullopt, {}, -1}; }

std::optional<z3::expr> compare(arith::CmpIPredicate p, const z3::expr &a, const z3::expr &b) {
  switch (p) {
  case arith::CmpIPredicate::eq: return a == b;
  case arith::CmpIPredicate::ne: return a != b;
  case arith::CmpIPredicate::slt: return a < b;
  case arith::CmpIPredicate::sle: return a <= b;
  case arith::CmpIPredicate::sgt: return a > b;
  case arith::CmpIPredicate::sge: return a >= b;
  case arith::CmpIPredicate::ult: return z3::ult(a, b);
  case arith::CmpIPredicate::ule: return z3::ule(a, b);
  case arith::CmpIPredicate::ugt: return z3::ugt(a, b);
  case arith::CmpIPredicate::uge: return z3::uge(a, b);
  }
  return std::nullopt;
}

/// Launch-level float values (kernel arguments, constants) give the same
/// comparison in every instance; others may differ between instances.
bool launchLevel(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return isa<func::FuncOp>(arg.getOwner()->getParentOp());
  return v.getDefiningOp<arith::ConstantOp>() != nullptr;
}

} // namespace

bool execArith(Executor &ex, Operation *op) {
  if (op->getDialect() == nullptr || op->getDialect()->getNamespace() != "arith")
    return false;
  SymContext &ctx = ex.ctx;
  Value result = op->getNumResults() == 1 ? op->getResult(0) : Value();
  if (!result) {
    ex.problem(op, "unexpected arith op without one result");
    return true;
  }
  Type type = result.getType();

  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue())) {
      unsigned bits = bitsOf(type);
      if (bits == 1)
        ex.set(result, boolValue(ctx.z3.bool_val(i.getValue().getBoolValue())));
      else
        ex.set(result, intValue(ctx.z3.bv_val(static_cast<int64_t>(i.getValue().getSExtValue()), bits)));
    } else {
      ex.set(result, SymValue{});
    }
    return true;
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    bool launch = launchLevel(cmp.getLhs()) && launchLevel(cmp.getRhs());
    ex.set(result, boolValue(launch ? ctx.fresh("float comparison", 0, VarRole::Choice, false)
                                    : ctx.choice("float comparison", 0, ex.position())));
    return true;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    if (bitsOf(cmp.getLhs().getType()) == 1) {
      auto a = ex.boolOf(cmp.getLhs()), b = ex.boolOf(cmp.getRhs());
      if (a && b && (cmp.getPredicate() == arith::CmpIPredicate::eq ||
                     cmp.getPredicate() == arith::CmpIPredicate::ne)) {
        z3::expr eq = *a == *b;
        ex.set(result, boolValue(cmp.getPredicate() == arith::CmpIPredicate::eq ? eq : !eq));
      } else {
        ex.set(result, boolValue(ctx.choice("i1 comparison", 0, ex.position())));
      }
      return true;
    }
    ex.set(result, boolValue(*compare(cmp.getPredicate(), ex.intOf(cmp.getLhs()),
                                      ex.intOf(cmp.getRhs()))));
    return true;
  }
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    std::optional<z3::expr> c = ex.boolOf(sel.getCondition());
    const SymValue &a = ex.get(sel.getTrueValue()), &b = ex.get(sel.getFalseValue());
    if (c && a.kind == b.kind && a.term && b.term)
      ex.set(result, SymValue{a.kind, z3::ite(*c, *a.term, *b.term), std::nullopt, {}, -1});
    else
      ex.set(result, SymValue{});
    return true;
  }
  if (!type.isIntOrIndex()) {
    ex.set(result, SymValue{}); // float arithmetic and conversions to float
    return true;
  }

  unsigned bits = bitsOf(type);
  // Booleans (i1) through and / or / xor.
  if (bits == 1) {
    auto a = op->getNumOperands() > 0 ? ex.boolOf(op->getOperand(0)) : std::nullopt;
    auto b = op->getNumOperands() > 1 ? ex.boolOf(op->getOperand(1)) : std::nullopt;
    std::optional<z3::expr> r;
    if (a && b && isa<arith::AndIOp>(op)) r = *a && *b;
    if (a && b && isa<arith::OrIOp>(op)) r = *a || *b;
    if (a && b && isa<arith::XOrIOp>(op)) r = *a != *b;
    if (a && isa<arith::TruncIOp>(op)) r = *a;
    ex.set(result, boolValue(r ? *r : ctx.choice("i1 value", 0, ex.position())));
    return true;
  }

  auto operand = [&](unsigned i) { return ex.intOf(op->getOperand(i)); };
  // Index terms are modelled in kIndexBits bits; record what must not wrap.
  if (type.isIndex() && ex.mode == Executor::Mode::Real &&
      isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::ShLIOp>(op)) {
    z3::expr a = operand(0), b = operand(1);
    if (!a.is_numeral() || !b.is_numeral()) {
      z3::expr fits = isa<arith::AddIOp>(op)   ? bvadd_no_overflow(a, b, true) && bvadd_no_underflow(a, b)
                      : isa<arith::SubIOp>(op) ? bvsub_no_overflow(a, b) && bvsub_no_underflow(a, b, true)
                      : isa<arith::MulIOp>(op) ? bvmul_no_overflow(a, b, true) && bvmul_no_underflow(a, b)
                                               : z3::ult(b, ctx.index(kIndexBits)) && z3::ashr(z3::shl(a, b), b) == a;
      ex.exec.widths.push_back({ex.here(op), fits});
    }
  }
  // A wider integer cast to index must fit the model too.
  if (type.isIndex() && ex.mode == Executor::Mode::Real && isa<arith::IndexCastOp, arith::IndexCastUIOp>(op) &&
      bitsOf(op->getOperand(0).getType()) > kIndexBits) {
    z3::expr a = operand(0);
    unsigned from = a.get_sort().bv_size();
    z3::expr narrow = a.extract(kIndexBits - 1, 0);
    z3::expr fits = isa<arith::IndexCastOp>(op) ? z3::sext(narrow, from - kIndexBits) == a
                                                 : z3::zext(narrow, from - kIndexBits) == a;
    ex.exec.widths.push_back({ex.here(op), fits});
  }
  auto binary = [&](auto fn) {
    ex.set(result, intValue(fn(operand(0), operand(1))));
    return true;
  };
  return TypeSwitch<Operation *, bool>(op)
      .Case<arith::AddIOp>([&](auto) { return binary([](auto a, auto b) { return a + b; }); })
      .Case<arith::SubIOp>([&](auto) { return binary([](auto a, auto b) { return a - b; }); })
      .Case<arith::MulIOp>([&](auto) { return binary([](auto a, auto b) { return a * b; }); })
      .Case<arith::DivSIOp>([&](auto) { return binary(sdivTotal); })
      .Case<arith::DivUIOp>([&](auto) { return binary(udivTotal); })
      .Case<arith::RemSIOp>([&](auto) { return binary(sremTotal); })
      .Case<arith::RemUIOp>([&](auto) { return binary(uremTotal); })
      .Case<arith::CeilDivSIOp>([&](auto) { return binary(ceilDiv); })
      .Case<arith::FloorDivSIOp>([&](auto) { return binary(floorDiv); })
      .Case<arith::MinSIOp>([&](auto) { return binary(smin); })
      .Case<arith::MaxSIOp>([&](auto) { return binary(smax); })
      .Case<arith::MinUIOp>([&](auto) {
        return binary([](auto a, auto b) { return z3::ite(z3::ule(a, b), a, b); });
      })
      .Case<arith::MaxUIOp>([&](auto) {
        return binary([](auto a, auto b) { return z3::ite(z3::uge(a, b), a, b); });
      })
      .Case<arith::AndIOp>([&](auto) { return binary([](auto a, auto b) { return a & b; }); })
      .Case<arith::OrIOp>([&](auto) { return binary([](auto a, auto b) { return a | b; }); })
      .Case<arith::XOrIOp>([&](auto) { return binary([](auto a, auto b) { return a ^ b; }); })
      .Case<arith::ShLIOp>([&](auto) { return binary([](auto a, auto b) { return z3::shl(a, b); }); })
      .Case<arith::ShRSIOp>([&](auto) { return binary([](auto a, auto b) { return z3::ashr(a, b); }); })
      .Case<arith::ShRUIOp>([&](auto) { return binary([](auto a, auto b) { return z3::lshr(a, b); }); })
      .Case<arith::IndexCastOp, arith::ExtSIOp>([&](auto) {
        ex.set(result, intValue(signExtendTo(operand(0), bits)));
        return true;
      })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp>([&](auto) {
        ex.set(result, intValue(zeroExtendTo(operand(0), bits)));
        return true;
      })
      .Case<arith::TruncIOp>([&](auto) {
        ex.set(result, intValue(truncateTo(operand(0), bits)));
        return true;
      })
      .Default([&](Operation *) {
        // fptosi / fptoui / bitcast: an integer we cannot know.
        ex.set(result, intValue(ctx.choice("integer from float", bits, ex.position())));
        return true;
      });
}

} // namespace argus::verify::detail
