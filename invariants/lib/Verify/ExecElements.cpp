//===- ExecElements.cpp - the values of index-valued tiles ----------------===//
//
// Tags say where data came from; a mask says which of it counts. To prove a
// mask right (attention: each query row keeps exactly the keys it may see)
// the verifier needs the mask's elements, which are computed from iotas,
// sizes and scalar arguments: iota, full, integer binary ops, comparisons,
// selects and casts between i32, i64 and index keep their element values as
// terms over the tile's coordinates (kIndexBits wide; i64 and index
// arithmetic records that it stays within them); anything else has none.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "llvm/ADT/TypeSwitch.h"

namespace argus::verify::detail {

using namespace mlir;

namespace {

/// Element types whose values the kIndexBits model holds: i32 exactly; i64 and index as long as
/// their arithmetic does not leave 32 bits (recorded as width events, as for scalars).
bool modelled(Type element) {
  return element.isIndex() || element.isSignlessInteger(32) || element.isSignlessInteger(64);
}

bool isIntegerTile(Type t) {
  auto tile = dyn_cast<TileType>(t);
  return tile && modelled(tile.getElementType());
}

/// Operand `v`'s element at the result's coordinates `at` (numpy broadcasting:
/// trailing dimensions aligned, size-1 dimensions stretched, scalars everywhere).
std::optional<z3::expr> elementOf(Executor &ex, Value v, const std::vector<z3::expr> &at) {
  const SymValue &s = ex.get(v);
  if (s.kind == SymValue::Kind::Bool)
    return *s.term;
  if (s.kind == SymValue::Kind::Int)
    return signExtendTo(*s.term, kIndexBits);
  if (s.kind != SymValue::Kind::Tile || !s.elements)
    return std::nullopt;
  const size_t rank = s.shape.size(), lead = at.size() - rank;
  std::vector<z3::expr> where;
  for (size_t d = 0; d < rank; ++d)
    where.push_back(s.shape[d] == 1 ? ex.ctx.index(0) : at[lead + d]);
  return s.elements->at(where);
}

std::optional<z3::expr> binary(BinaryKind kind, const z3::expr &a, const z3::expr &b) {
  switch (kind) {
  case BinaryKind::add: return a + b;
  case BinaryKind::sub: return a - b;
  case BinaryKind::mul: return a * b;
  case BinaryKind::div: return sdivTotal(a, b);
  case BinaryKind::max: return smax(a, b);
  case BinaryKind::min: return smin(a, b);
  default: return std::nullopt;
  }
}

std::optional<z3::expr> fitsModel(BinaryKind kind, const z3::expr &a, const z3::expr &b) {
  switch (kind) {
  case BinaryKind::add: return bvadd_no_overflow(a, b, true) && bvadd_no_underflow(a, b);
  case BinaryKind::sub: return bvsub_no_overflow(a, b) && bvsub_no_underflow(a, b, true);
  case BinaryKind::mul: return bvmul_no_overflow(a, b, true) && bvmul_no_underflow(a, b);
  case BinaryKind::div: {  // INT_MIN / -1
    z3::expr lowest = a.ctx().bv_val(int64_t(1) << (kIndexBits - 1), kIndexBits);
    return !(a == lowest && b == a.ctx().bv_val(-1, kIndexBits));
  }
  default: return std::nullopt;  // min, max: no new values
  }
}

z3::expr compare(CmpPredicate p, const z3::expr &a, const z3::expr &b) {
  switch (p) {
  case CmpPredicate::eq: return a == b;
  case CmpPredicate::ne: return a != b;
  case CmpPredicate::lt: return a < b;
  case CmpPredicate::le: return a <= b;
  case CmpPredicate::gt: return a > b;
  case CmpPredicate::ge: return a >= b;
  }
  return a == b;
}

} // namespace

std::optional<TileTerm> elementValues(Executor &ex, Operation *op) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  auto tile = dyn_cast<TileType>(op->getResult(0).getType());
  if (!tile)
    return std::nullopt;
  const bool flag = tile.getElementType().isInteger(1);
  if (!flag && !modelled(tile.getElementType()))
    return std::nullopt;
  std::vector<z3::expr> at = ex.freshCoords(tile.getShape().size());
  z3::expr inTile = ex.ctx.z3.bool_val(true);
  for (size_t d = 0; d < at.size(); ++d)
    inTile = inTile && at[d] >= ex.ctx.index(0) && at[d] < ex.ctx.index(tile.getShape()[d]);
  auto bothKinds = [&](std::optional<z3::expr> a, std::optional<z3::expr> b) {
    return a && b && a->is_bool() == b->is_bool();
  };
  std::optional<z3::expr> body =
      llvm::TypeSwitch<Operation *, std::optional<z3::expr>>(op)
          .Case<IotaOp>([&](IotaOp i) -> std::optional<z3::expr> {
            return at[static_cast<size_t>(i.getDim())];
          })
          .Case<FullOp>([&](FullOp f) { return elementOf(ex, f.getValue(), at); })
          .Case<BinaryOp>([&](BinaryOp b) -> std::optional<z3::expr> {
            std::optional<z3::expr> l = elementOf(ex, b.getLhs(), at), r = elementOf(ex, b.getRhs(), at);
            if (!bothKinds(l, r) || l->is_bool())
              return std::nullopt;
            // Wider than the model: the exact value must fit it, as for scalar index arithmetic.
            if (!tile.getElementType().isSignlessInteger(32) && ex.mode == Executor::Mode::Real)
              if (std::optional<z3::expr> fits = fitsModel(b.getKind(), *l, *r))
                ex.exec.widths.push_back({ex.here(op), z3::implies(inTile, *fits)});
            return binary(b.getKind(), *l, *r);
          })
          .Case<CmpOp>([&](CmpOp c) -> std::optional<z3::expr> {
            std::optional<z3::expr> l = elementOf(ex, c.getLhs(), at), r = elementOf(ex, c.getRhs(), at);
            if (!bothKinds(l, r) || l->is_bool())
              return std::nullopt;
            return compare(c.getPredicate(), *l, *r);
          })
          .Case<SelectOp>([&](SelectOp s) -> std::optional<z3::expr> {
            std::optional<z3::expr> c = elementOf(ex, s.getCondition(), at);
            std::optional<z3::expr> a = elementOf(ex, s.getTrueValue(), at), b = elementOf(ex, s.getFalseValue(), at);
            if (!c || !bothKinds(a, b))
              return std::nullopt;
            return z3::ite(*c, *a, *b);
          })
          .Case<CastOp>([&](CastOp c) -> std::optional<z3::expr> {
            if (flag || !isIntegerTile(c.getOperand().getType()))
              return std::nullopt;  // i32, i64 and index values carry over (each fits the model); floats are data
            return elementOf(ex, c.getOperand(), at);
          })
          .Default([](Operation *) { return std::nullopt; });
  if (!body || body->is_bool() != flag)
    return std::nullopt;
  return TileTerm{at, *body};
}

} // namespace argus::verify::detail
