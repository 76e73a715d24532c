//===- EmitArith.cpp - arith ops on scalars as C++ expressions ------------===//
//
// One `const T name = expr;` per op. C++ operators where they mean the same
// thing (with -fwrapv, signed integer arithmetic wraps like arith's), and
// argus_cpu helpers where they do not: unsigned views, ceil/floor division,
// shifts by >= the width, saturating float -> integer conversions, NaN-
// propagating maximumf. bf16/f16 scalars are floats rounded after every op.
//
//===----------------------------------------------------------------------===//
#include "CppKernelEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace argus::codegen {
namespace {

/// `expr` rounded to `type` when it is a 16-bit float.
std::string roundTo(Type type, const std::string &expr) {
  if (type.isBF16())
    return "ak::round_bf16(" + expr + ")";
  if (type.isF16())
    return "ak::round_f16(" + expr + ")";
  return expr;
}

std::string cmpiExpr(arith::CmpIPredicate p, Type t, const std::string &x, const std::string &y) {
  bool isBool = t.isInteger(1);
  // Signed views of i1 are 0 / -1; unsigned views 0 / 1.
  std::string sx = isBool ? "(-int(" + x + "))" : x, sy = isBool ? "(-int(" + y + "))" : y;
  std::string ux = isBool ? "int(" + x + ")" : "ak::zext(" + x + ")";
  std::string uy = isBool ? "int(" + y + ")" : "ak::zext(" + y + ")";
  switch (p) {
  case arith::CmpIPredicate::eq: return x + " == " + y;
  case arith::CmpIPredicate::ne: return x + " != " + y;
  case arith::CmpIPredicate::slt: return sx + " < " + sy;
  case arith::CmpIPredicate::sle: return sx + " <= " + sy;
  case arith::CmpIPredicate::sgt: return sx + " > " + sy;
  case arith::CmpIPredicate::sge: return sx + " >= " + sy;
  case arith::CmpIPredicate::ult: return ux + " < " + uy;
  case arith::CmpIPredicate::ule: return ux + " <= " + uy;
  case arith::CmpIPredicate::ugt: return ux + " > " + uy;
  case arith::CmpIPredicate::uge: return ux + " >= " + uy;
  }
  return "false";
}

std::string cmpfExpr(arith::CmpFPredicate p, const std::string &x, const std::string &y) {
  using P = arith::CmpFPredicate;
  switch (p) {
  case P::AlwaysFalse: return "false";
  case P::OEQ: return x + " == " + y;
  case P::OGT: return x + " > " + y;
  case P::OGE: return x + " >= " + y;
  case P::OLT: return x + " < " + y;
  case P::OLE: return x + " <= " + y;
  case P::ONE: return "(" + x + " < " + y + " || " + x + " > " + y + ")";
  case P::ORD: return "(" + x + " == " + x + " && " + y + " == " + y + ")";
  case P::UEQ: return "!(" + x + " < " + y + " || " + x + " > " + y + ")";
  case P::UGT: return "!(" + x + " <= " + y + ")";
  case P::UGE: return "!(" + x + " < " + y + ")";
  case P::ULT: return "!(" + x + " >= " + y + ")";
  case P::ULE: return "!(" + x + " > " + y + ")";
  case P::UNE: return x + " != " + y;
  case P::UNO: return "(" + x + " != " + x + " || " + y + " != " + y + ")";
  case P::AlwaysTrue: return "true";
  }
  return "false";
}

} // namespace

LogicalResult CppKernelEmitter::emitArith(Operation *op) {
  if (op->getNumResults() != 1)
    return fail(op, "expected one result from '" + op->getName().getStringRef() + "'");
  Value result = op->getResult(0);
  Type rt = result.getType();
  std::optional<std::string> rc = scalarCType(rt);
  if (!rc) {
    std::string s;
    llvm::raw_string_ostream(s) << rt;
    return fail(op, llvm::Twine(backend) + " lowers arith ops on scalars only, got a result of type " + s);
  }
  for (Value operand : op->getOperands())
    if (!scalarCType(operand.getType()))
      return fail(op, llvm::Twine(backend) + " lowers arith ops on scalars only");
  auto x = [&](unsigned i) { return scalar(op->getOperand(i)); };
  Type in = op->getNumOperands() ? op->getOperand(0).getType() : rt;
  bool boolResult = rt.isInteger(1);
  auto noBool = [&]() -> LogicalResult {
    if (in.isInteger(1))
      return fail(op, llvm::Twine(backend) + " does not lower '" + op->getName().getStringRef() + "' on i1");
    return success();
  };
  // Operands narrower than int are promoted by C++: narrow the result back.
  bool narrow = rt.isInteger(8) || rt.isInteger(16);
  auto wrap = [&](const std::string &e) {
    return boolResult ? "bool(" + e + ")" : narrow ? *rc + "(" + e + ")" : e;
  };

  // Constants get names that say their value.
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue())) {
      int64_t v = rt.isInteger(1) ? (i.getValue().getBoolValue() ? 1 : 0) : i.getValue().getSExtValue();
      std::string hint = rt.isInteger(1) ? "cst" : (v < 0 ? "cm" + std::to_string(-(v + 1) + 1) : "c" + std::to_string(v));
      if (v == std::numeric_limits<int64_t>::min())
        hint = "cmin";
      return defineScalar(result, intLiteral(v, rt), op, hint);
    }
    if (auto f = dyn_cast<FloatAttr>(c.getValue()))
      return defineScalar(result, floatLiteral(f.getValueAsDouble(), rt), op, "cst");
    return fail(op, llvm::Twine(backend) + " lowers scalar arith.constant only");
  }

  std::string expr;
  LogicalResult ok = success();
  llvm::TypeSwitch<Operation *>(op)
      // Integer arithmetic (wraps at the width: -fwrapv, narrowed by the cast).
      .Case([&](arith::AddIOp) { expr = boolResult ? x(0) + " != " + x(1) : wrap(x(0) + " + " + x(1)); })
      .Case([&](arith::SubIOp) { expr = boolResult ? x(0) + " != " + x(1) : wrap(x(0) + " - " + x(1)); })
      .Case([&](arith::MulIOp) { expr = boolResult ? x(0) + " && " + x(1) : wrap(x(0) + " * " + x(1)); })
      .Case([&](arith::AndIOp) { expr = wrap(x(0) + " & " + x(1)); })
      .Case([&](arith::OrIOp) { expr = wrap(x(0) + " | " + x(1)); })
      .Case([&](arith::XOrIOp) { expr = wrap(x(0) + " ^ " + x(1)); })
      .Case([&](arith::DivSIOp) { ok = noBool(); expr = "ak::divsi(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::DivUIOp) { ok = noBool(); expr = "ak::divui(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::RemSIOp) { ok = noBool(); expr = "ak::remsi(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::RemUIOp) { ok = noBool(); expr = "ak::remui(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::CeilDivSIOp) { ok = noBool(); expr = "ak::ceildivsi(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::FloorDivSIOp) { ok = noBool(); expr = "ak::floordivsi(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::MinSIOp) { ok = noBool(); expr = "ak::minsi(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::MaxSIOp) { ok = noBool(); expr = "ak::maxsi(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::MinUIOp) { ok = noBool(); expr = "ak::minui(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::MaxUIOp) { ok = noBool(); expr = "ak::maxui(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::ShLIOp) { ok = noBool(); expr = "ak::shli(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::ShRSIOp) { ok = noBool(); expr = "ak::shrsi(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::ShRUIOp) { ok = noBool(); expr = "ak::shrui(" + x(0) + ", " + x(1) + ")"; })
      // Float arithmetic, rounded to the result type.
      .Case([&](arith::AddFOp) { expr = roundTo(rt, x(0) + " + " + x(1)); })
      .Case([&](arith::SubFOp) { expr = roundTo(rt, x(0) + " - " + x(1)); })
      .Case([&](arith::MulFOp) { expr = roundTo(rt, x(0) + " * " + x(1)); })
      .Case([&](arith::DivFOp) { expr = roundTo(rt, x(0) + " / " + x(1)); })
      .Case([&](arith::RemFOp) { expr = roundTo(rt, "ak::fmod(" + x(0) + ", " + x(1) + ")"); })
      .Case([&](arith::NegFOp) { expr = "-" + x(0); })
      .Case([&](arith::MaximumFOp) { expr = "ak::maximum(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::MinimumFOp) { expr = "ak::minimum(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::MaxNumFOp) { expr = "ak::maxnum(" + x(0) + ", " + x(1) + ")"; })
      .Case([&](arith::MinNumFOp) { expr = "ak::minnum(" + x(0) + ", " + x(1) + ")"; })
      // Comparisons and select.
      .Case([&](arith::CmpIOp c) { expr = cmpiExpr(c.getPredicate(), in, x(0), x(1)); })
      .Case([&](arith::CmpFOp c) { expr = cmpfExpr(c.getPredicate(), x(0), x(1)); })
      .Case([&](arith::SelectOp) { expr = x(0) + " ? " + x(1) + " : " + x(2); })
      // Conversions.
      .Case([&](arith::IndexCastOp) {
        expr = in.isInteger(1) ? "(" + x(0) + " ? " + *rc + "(-1) : " + *rc + "(0))" : *rc + "(" + x(0) + ")";
        if (boolResult) expr = "(" + x(0) + " & 1) != 0";
      })
      .Case([&](arith::IndexCastUIOp) {
        expr = in.isIndex() ? *rc + "(" + x(0) + ")"
                            : (in.isInteger(1) ? *rc + "(" + x(0) + ")" : *rc + "(ak::zext(" + x(0) + "))");
        if (boolResult) expr = "(" + x(0) + " & 1) != 0";
      })
      .Case([&](arith::SIToFPOp) {
        expr = in.isInteger(1) ? "(" + x(0) + " ? -1.0f : 0.0f)" : roundTo(rt, *rc + "(" + x(0) + ")");
      })
      .Case([&](arith::UIToFPOp) {
        expr = in.isInteger(1) ? *rc + "(" + x(0) + ")" : roundTo(rt, *rc + "(ak::zext(" + x(0) + "))");
      })
      .Case([&](arith::FPToSIOp) {
        if (boolResult) ok = fail(op, llvm::Twine(backend) + " does not lower fptosi to i1");
        expr = "ak::fptosi<" + *rc + ">(" + x(0) + ")";
      })
      .Case([&](arith::FPToUIOp) {
        if (boolResult) ok = fail(op, llvm::Twine(backend) + " does not lower fptoui to i1");
        expr = "ak::fptoui<" + *rc + ">(" + x(0) + ")";
      })
      .Case([&](arith::ExtFOp) { expr = *rc + "(" + x(0) + ")"; })
      .Case([&](arith::TruncFOp) { expr = roundTo(rt, "float(" + x(0) + ")"); if (rt.isF64()) expr = x(0); })
      .Case([&](arith::ExtSIOp) {
        expr = in.isInteger(1) ? "(" + x(0) + " ? " + *rc + "(-1) : " + *rc + "(0))" : *rc + "(" + x(0) + ")";
      })
      .Case([&](arith::ExtUIOp) {
        expr = in.isInteger(1) ? *rc + "(" + x(0) + ")" : *rc + "(ak::zext(" + x(0) + "))";
      })
      .Case([&](arith::TruncIOp) {
        expr = boolResult ? "(" + x(0) + " & 1) != 0" : *rc + "(" + x(0) + ")";
      })
      .Case([&](arith::BitcastOp) {
        if ((rt.isF32() && in.isInteger(32)) || (rt.isInteger(32) && in.isF32()) ||
            (rt.isF64() && in.isInteger(64)) || (rt.isInteger(64) && in.isF64()))
          expr = "ak::bitcast<" + *rc + ">(" + x(0) + ")";
        else if (rt.isInteger(16) && in.isBF16())
          expr = "int16_t(argus_num::f32_to_bf16(" + x(0) + "))";
        else if (rt.isInteger(16) && in.isF16())
          expr = "int16_t(argus_num::f32_to_f16(" + x(0) + "))";
        else if (rt.isBF16() && in.isInteger(16))
          expr = "argus_num::bf16_to_f32(uint16_t(" + x(0) + "))";
        else if (rt.isF16() && in.isInteger(16))
          expr = "argus_num::f16_to_f32(uint16_t(" + x(0) + "))";
        else
          ok = fail(op, llvm::Twine(backend) + " lowers arith.bitcast between f32/i32, f64/i64 and "
                        "bf16,f16/i16 only");
      })
      .Default([&](Operation *) {
        ok = fail(op, llvm::Twine(backend) + " cannot lower '" + op->getName().getStringRef() + "'");
      });
  if (failed(ok))
    return failure();
  return defineScalar(result, expr, op);
}

} // namespace argus::codegen
