//===- ArithEval.cpp - arith ops on scalars -------------------------------===//
//
// The arith ops a kernel may contain (see the kernel conventions), on scalar
// values, one lane per thread. Integers are kept sign-extended from their
// width and every result wraps at that width; unsigned ops read the zero-
// extended value. Float results are rounded to their type. What MLIR leaves
// as poison gets a fixed, documented value here (shifts by >= the width give
// 0, or -1 for an arithmetic right shift of a negative value; fptosi/fptoui
// saturate, NaN gives 0; signed MIN / -1 wraps to MIN); division by zero is
// an error.
//
//===----------------------------------------------------------------------===//
#include "Executor.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace argus::interp::detail {
namespace {

using IntFn = llvm::function_ref<FailureOr<int64_t>(Operation *, int64_t, int64_t, unsigned)>;
using FloatFn = llvm::function_ref<double(double, double)>;

/// The element type of a scalar-typed value; fails for vectors and tensors.
FailureOr<ElemType> scalarType(Executor &ex, Operation *op, Type type) {
  std::optional<ElemType> et = ElemType::get(type);
  if (!et) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "expected a scalar of type index, iN or f16/bf16/f32/f64, got " << type;
    (void)ex.fail(op, s);
    return failure();
  }
  return *et;
}

LogicalResult intBinary(Executor &ex, Operation *op, IntFn fn) {
  FailureOr<ElemType> type = scalarType(ex, op, op->getResult(0).getType());
  if (failed(type))
    return failure();
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  return ex.define(op->getResult(0), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    FailureOr<int64_t> r = fn(op, ex.scalar(lhs, t).i(), ex.scalar(rhs, t).i(), type->width);
    if (failed(r))
      return failure();
    return Lane(Elem::ofInt(wrapInt(type->width, *r)));
  });
}

LogicalResult floatBinary(Executor &ex, Operation *op, FloatFn fn) {
  FailureOr<ElemType> type = scalarType(ex, op, op->getResult(0).getType());
  if (failed(type))
    return failure();
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  return ex.define(op->getResult(0), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    double r = fn(ex.scalar(lhs, t).f(), ex.scalar(rhs, t).f());
    return Lane(Elem::ofFloat(roundFloat(type->kind, r)));
  });
}

/// A one-operand conversion: `fn(value, fromType, toType)`.
LogicalResult convert(Executor &ex, Operation *op,
                      llvm::function_ref<Elem(Elem, ElemType, ElemType)> fn) {
  FailureOr<ElemType> from = scalarType(ex, op, op->getOperand(0).getType());
  if (failed(from))
    return failure();
  FailureOr<ElemType> to = scalarType(ex, op, op->getResult(0).getType());
  if (failed(to))
    return failure();
  Value in = op->getOperand(0);
  return ex.define(op->getResult(0), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    return Lane(fn(ex.scalar(in, t), *from, *to));
  });
}

LogicalResult divisionByZero(Executor &ex, Operation *op) {
  return ex.fail(op, "integer division by zero in '" + op->getName().getStringRef() + "'");
}

constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();

/// Signed quotient rounded toward zero, with MIN / -1 wrapping to MIN.
int64_t truncDiv(int64_t a, int64_t b) { return (a == kMin64 && b == -1) ? kMin64 : a / b; }
int64_t truncRem(int64_t a, int64_t b) { return (b == -1) ? 0 : a % b; }

/// Saturating float -> integer conversions (NaN gives 0).
int64_t fpToSigned(double v, unsigned width) {
  if (std::isnan(v))
    return 0;
  double hi = std::ldexp(1.0, width - 1);
  if (v >= hi)
    return width >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (width - 1)) - 1;
  if (v <= -hi)
    return width >= 64 ? kMin64 : -(int64_t(1) << (width - 1));
  return static_cast<int64_t>(std::trunc(v));
}
int64_t fpToUnsigned(double v, unsigned width) {
  if (std::isnan(v) || v <= 0)
    return 0;
  double hi = std::ldexp(1.0, width);
  if (v >= hi)
    return static_cast<int64_t>(width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1);
  return static_cast<int64_t>(static_cast<uint64_t>(std::trunc(v)));
}

bool compareInt(arith::CmpIPredicate p, int64_t a, int64_t b, unsigned width) {
  uint64_t ua = zextInt(width, a), ub = zextInt(width, b);
  switch (p) {
  case arith::CmpIPredicate::eq: return a == b;
  case arith::CmpIPredicate::ne: return a != b;
  case arith::CmpIPredicate::slt: return a < b;
  case arith::CmpIPredicate::sle: return a <= b;
  case arith::CmpIPredicate::sgt: return a > b;
  case arith::CmpIPredicate::sge: return a >= b;
  case arith::CmpIPredicate::ult: return ua < ub;
  case arith::CmpIPredicate::ule: return ua <= ub;
  case arith::CmpIPredicate::ugt: return ua > ub;
  case arith::CmpIPredicate::uge: return ua >= ub;
  }
  return false;
}

bool compareFloat(arith::CmpFPredicate p, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  using P = arith::CmpFPredicate;
  switch (p) {
  case P::AlwaysFalse: return false;
  case P::OEQ: return !unordered && a == b;
  case P::OGT: return !unordered && a > b;
  case P::OGE: return !unordered && a >= b;
  case P::OLT: return !unordered && a < b;
  case P::OLE: return !unordered && a <= b;
  case P::ONE: return !unordered && a != b;
  case P::ORD: return !unordered;
  case P::UEQ: return unordered || a == b;
  case P::UGT: return unordered || a > b;
  case P::UGE: return unordered || a >= b;
  case P::ULT: return unordered || a < b;
  case P::ULE: return unordered || a <= b;
  case P::UNE: return unordered || a != b;
  case P::UNO: return unordered;
  case P::AlwaysTrue: return true;
  }
  return false;
}

/// IEEE maximum / minimum: NaN propagates, -0 < +0.
double maximumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double minimumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

LogicalResult evalConstant(Executor &ex, arith::ConstantOp op) {
  FailureOr<ElemType> type = scalarType(ex, op, op.getType());
  if (failed(type))
    return failure();
  Elem e;
  if (auto i = dyn_cast<IntegerAttr>(op.getValue()))
    e = Elem::ofInt(wrapInt(type->width, i.getValue().getSExtValue()));
  else if (auto f = dyn_cast<FloatAttr>(op.getValue()))
    e = Elem::ofFloat(roundFloat(type->kind, f.getValueAsDouble()));
  else
    return ex.fail(op, "expected an integer or float constant");
  ex.set(op.getResult(), RtValue{{Lane(e)}});
  return success();
}

LogicalResult evalCmpI(Executor &ex, arith::CmpIOp op) {
  FailureOr<ElemType> type = scalarType(ex, op, op.getLhs().getType());
  if (failed(type))
    return failure();
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    bool r = compareInt(op.getPredicate(), ex.scalar(op.getLhs(), t).i(),
                        ex.scalar(op.getRhs(), t).i(), type->width);
    return Lane(Elem::ofInt(r ? -1 : 0));
  });
}

LogicalResult evalCmpF(Executor &ex, arith::CmpFOp op) {
  if (failed(scalarType(ex, op, op.getLhs().getType())))
    return failure();
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    bool r = compareFloat(op.getPredicate(), ex.scalar(op.getLhs(), t).f(),
                          ex.scalar(op.getRhs(), t).f());
    return Lane(Elem::ofInt(r ? -1 : 0));
  });
}

/// arith.select picks a whole lane, so it also works on tiles.
LogicalResult evalSelect(Executor &ex, arith::SelectOp op) {
  if (!op.getCondition().getType().isInteger(1))
    return ex.fail(op, "expected a scalar i1 condition");
  return ex.define(op.getResult(), op->getOperands(), [&](unsigned t) -> FailureOr<Lane> {
    bool c = ex.scalar(op.getCondition(), t).i() != 0;
    return ex.get(c ? op.getTrueValue() : op.getFalseValue()).at(t);
  });
}

} // namespace

std::optional<LogicalResult> evalArithOp(Executor &ex, Operation *op) {
  if (!isa_and_nonnull<arith::ArithDialect>(op->getDialect()))
    return std::nullopt;
  auto ok = [](int64_t v) -> FailureOr<int64_t> { return v; };
  using R = FailureOr<int64_t>;
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case([&](arith::ConstantOp c) { return evalConstant(ex, c); })
      // Integer arithmetic (wrapping).
      .Case([&](arith::AddIOp) {
        return intBinary(ex, op, [&](Operation *, int64_t a, int64_t b, unsigned) {
          return ok(static_cast<int64_t>(uint64_t(a) + uint64_t(b)));
        });
      })
      .Case([&](arith::SubIOp) {
        return intBinary(ex, op, [&](Operation *, int64_t a, int64_t b, unsigned) {
          return ok(static_cast<int64_t>(uint64_t(a) - uint64_t(b)));
        });
      })
      .Case([&](arith::MulIOp) {
        return intBinary(ex, op, [&](Operation *, int64_t a, int64_t b, unsigned) {
          return ok(static_cast<int64_t>(uint64_t(a) * uint64_t(b)));
        });
      })
      .Case([&](arith::DivSIOp) {
        return intBinary(ex, op, [&](Operation *o, int64_t a, int64_t b, unsigned) -> R {
          if (b == 0)
            return divisionByZero(ex, o);
          return truncDiv(a, b);
        });
      })
      .Case([&](arith::RemSIOp) {
        return intBinary(ex, op, [&](Operation *o, int64_t a, int64_t b, unsigned) -> R {
          if (b == 0)
            return divisionByZero(ex, o);
          return truncRem(a, b);
        });
      })
      .Case([&](arith::DivUIOp) {
        return intBinary(ex, op, [&](Operation *o, int64_t a, int64_t b, unsigned w) -> R {
          if (zextInt(w, b) == 0)
            return divisionByZero(ex, o);
          return static_cast<int64_t>(zextInt(w, a) / zextInt(w, b));
        });
      })
      .Case([&](arith::RemUIOp) {
        return intBinary(ex, op, [&](Operation *o, int64_t a, int64_t b, unsigned w) -> R {
          if (zextInt(w, b) == 0)
            return divisionByZero(ex, o);
          return static_cast<int64_t>(zextInt(w, a) % zextInt(w, b));
        });
      })
      .Case([&](arith::CeilDivSIOp) {
        return intBinary(ex, op, [&](Operation *o, int64_t a, int64_t b, unsigned) -> R {
          if (b == 0)
            return divisionByZero(ex, o);
          int64_t q = truncDiv(a, b), r = truncRem(a, b);
          return (r != 0 && ((r > 0) == (b > 0))) ? q + 1 : q;
        });
      })
      .Case([&](arith::FloorDivSIOp) {
        return intBinary(ex, op, [&](Operation *o, int64_t a, int64_t b, unsigned) -> R {
          if (b == 0)
            return divisionByZero(ex, o);
          int64_t q = truncDiv(a, b), r = truncRem(a, b);
          return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
        });
      })
      .Case([&](arith::MinSIOp) {
        return intBinary(ex, op, [&](Operation *, int64_t a, int64_t b, unsigned) {
          return ok(std::min(a, b));
        });
      })
      .Case([&](arith::MaxSIOp) {
        return intBinary(ex, op, [&](Operation *, int64_t a, int64_t b, unsigned) {
          return ok(std::max(a, b));
        });
      })
      .Case([&](arith::MinUIOp) {
        return intBinary(ex, op, [&](Operation *, int64_t a, int64_t b, unsigned w) {
          return ok(zextInt(w, a) < zextInt(w, b) ? a : b);
        });
      })
      .Case([&](arith::MaxUIOp) {
        return intBinary(ex, op, [&](Operation *, int64_t a, int64_t b, unsigned w) {
          return ok(zextInt(w, a) > zextInt(w, b) ? a : b);
        });
      })
      .Case([&](arith::AndIOp) {
        return intBinary(ex, op,
                         [&](Operation *, int64_t a, int64_t b, unsigned) { return ok(a & b); });
      })
      .Case([&](arith::OrIOp) {
        return intBinary(ex, op,
                         [&](Operation *, int64_t a, int64_t b, unsigned) { return ok(a | b); });
      })
      .Case([&](arith::XOrIOp) {
        return intBinary(ex, op,
                         [&](Operation *, int64_t a, int64_t b, unsigned) { return ok(a ^ b); });
      })
      .Case([&](arith::ShLIOp) {
        return intBinary(ex, op, [&](Operation *, int64_t a, int64_t b, unsigned w) {
          uint64_t s = zextInt(w, b);
          return ok(s >= w ? 0 : static_cast<int64_t>(uint64_t(a) << s));
        });
      })
      .Case([&](arith::ShRSIOp) {
        return intBinary(ex, op, [&](Operation *, int64_t a, int64_t b, unsigned w) {
          uint64_t s = zextInt(w, b);
          return ok(s >= w ? (a < 0 ? -1 : 0) : a >> s);
        });
      })
      .Case([&](arith::ShRUIOp) {
        return intBinary(ex, op, [&](Operation *, int64_t a, int64_t b, unsigned w) {
          uint64_t s = zextInt(w, b);
          return ok(s >= w ? 0 : static_cast<int64_t>(zextInt(w, a) >> s));
        });
      })
      // Float arithmetic (rounded to the result type).
      .Case([&](arith::AddFOp) { return floatBinary(ex, op, [](double a, double b) { return a + b; }); })
      .Case([&](arith::SubFOp) { return floatBinary(ex, op, [](double a, double b) { return a - b; }); })
      .Case([&](arith::MulFOp) { return floatBinary(ex, op, [](double a, double b) { return a * b; }); })
      .Case([&](arith::DivFOp) { return floatBinary(ex, op, [](double a, double b) { return a / b; }); })
      .Case([&](arith::RemFOp) {
        return floatBinary(ex, op, [](double a, double b) { return std::fmod(a, b); });
      })
      .Case([&](arith::MaximumFOp) { return floatBinary(ex, op, maximumF); })
      .Case([&](arith::MinimumFOp) { return floatBinary(ex, op, minimumF); })
      .Case([&](arith::MaxNumFOp) {
        return floatBinary(ex, op, [](double a, double b) { return std::fmax(a, b); });
      })
      .Case([&](arith::MinNumFOp) {
        return floatBinary(ex, op, [](double a, double b) { return std::fmin(a, b); });
      })
      .Case([&](arith::NegFOp) {
        return convert(ex, op, [](Elem e, ElemType, ElemType to) {
          return Elem::ofFloat(roundFloat(to.kind, -e.f()));
        });
      })
      .Case([&](arith::CmpIOp c) { return evalCmpI(ex, c); })
      .Case([&](arith::CmpFOp c) { return evalCmpF(ex, c); })
      .Case([&](arith::SelectOp s) { return evalSelect(ex, s); })
      // Conversions.
      .Case<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>([&](auto) {
        return convert(ex, op, [](Elem e, ElemType, ElemType to) {
          return Elem::ofInt(wrapInt(to.width, e.i()));
        });
      })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp>([&](auto) {
        return convert(ex, op, [](Elem e, ElemType from, ElemType to) {
          return Elem::ofInt(wrapInt(to.width, static_cast<int64_t>(zextInt(from.width, e.i()))));
        });
      })
      .Case([&](arith::SIToFPOp) {
        return convert(ex, op, [](Elem e, ElemType, ElemType to) {
          return Elem::ofFloat(roundFloat(to.kind, static_cast<double>(e.i())));
        });
      })
      .Case([&](arith::UIToFPOp) {
        return convert(ex, op, [](Elem e, ElemType from, ElemType to) {
          return Elem::ofFloat(roundFloat(to.kind, static_cast<double>(zextInt(from.width, e.i()))));
        });
      })
      .Case([&](arith::FPToSIOp) {
        return convert(ex, op, [](Elem e, ElemType, ElemType to) {
          return Elem::ofInt(wrapInt(to.width, fpToSigned(e.f(), to.width)));
        });
      })
      .Case([&](arith::FPToUIOp) {
        return convert(ex, op, [](Elem e, ElemType, ElemType to) {
          return Elem::ofInt(wrapInt(to.width, fpToUnsigned(e.f(), to.width)));
        });
      })
      .Case<arith::ExtFOp, arith::TruncFOp>([&](auto) {
        return convert(ex, op, [](Elem e, ElemType, ElemType to) {
          return Elem::ofFloat(roundFloat(to.kind, e.f()));
        });
      })
      .Case([&](arith::BitcastOp) {
        return convert(ex, op, [](Elem e, ElemType from, ElemType to) {
          uint64_t bits = 0;
          writeHostElem(from, &bits, e);
          return readHostElem(to, &bits);
        });
      })
      .Default([&](Operation *) -> std::optional<LogicalResult> {
        return ex.fail(op, "the interpreter does not support '" + op->getName().getStringRef() +
                               "'");
      });
}

} // namespace argus::interp::detail
