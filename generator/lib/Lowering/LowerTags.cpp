//===- LowerTags.cpp - tag functions and tag assertions ------------------===//
//
// `tag(X, lambda m, k: (m, k))` binds a tag function to a tensor or buffer;
// `assert_tag(a, b, lambda ta, tb: ta.k == tb.k)` states a relation at a use
// site. Both lower to ops with regions (argus.tag / argus.assert_tag) whose
// bodies are index arithmetic; the verifier reads them, codegen erases them.
//
//===----------------------------------------------------------------------===//
#include "Lowerer.h"

using namespace mlir;

namespace argus::lowering {

void Lowerer::lowerTag(CallArgs &args) {
  if (args.positional.size() != 2 || !args.keywords.empty())
    fail(args.loc, "tag() takes a tensor or buffer and a lambda: tag(A, lambda m, k: (m, k))");
  Sem target = args.positional[0], fn = args.positional[1];
  if (target.kind != Sem::Tensor && target.kind != Sem::Buffer)
    fail(args.positionalLocs[0], "tag() applies to a tensor or a buffer, got " + describe(target));
  if (fn.kind != Sem::Lambda)
    fail(args.positionalLocs[1], "tag() needs a lambda as its second argument");
  const dsl::LambdaExpr &lambda = *fn.lambda;
  int64_t rank = target.kind == Sem::Tensor ? cast<GlobalTensorType>(target.value.getType()).getRank()
                                            : cast<BufferType>(target.value.getType()).getRank();
  if (static_cast<int64_t>(lambda.params.size()) != rank)
    fail(lambda.loc, "the tag function of a rank-" + std::to_string(rank) + " value takes " + std::to_string(rank) +
                         " coordinates, got " + std::to_string(lambda.params.size()));
  std::vector<const dsl::Expr *> fields;
  if (auto *t = lambda.body->as<dsl::TupleExpr>())
    for (auto &e : t->elements) fields.push_back(e.get());
  else
    fields.push_back(lambda.body.get());
  SmallVector<Attribute> names;
  for (size_t i = 0; i < fields.size(); ++i) {
    auto *n = fields[i]->as<dsl::NameExpr>();
    names.push_back(builder.getStringAttr(n ? n->name : std::to_string(i)));
  }
  auto op = TagOp::create(builder, loc(args.loc), target.value, builder.getArrayAttr(names));
  Block *body = new Block();
  op.getBody().push_back(body);
  std::map<std::string, Value> params, noTags;
  for (const std::string &p : lambda.params)
    params[p] = body->addArgument(builder.getIndexType(), loc(lambda.loc));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(body);
  SmallVector<Value> values;
  for (const dsl::Expr *f : fields)
    values.push_back(evalTagExpr(*f, params, noTags, /*runtimeScalars=*/false));
  YieldOp::create(builder, loc(lambda.loc), values);
}

void Lowerer::lowerAssertTag(CallArgs &args) {
  std::optional<std::string> message;
  std::optional<Value> mask;
  for (auto &[k, v] : args.keywords) {
    if (k == "message" && v.kind == Sem::String)
      message = v.s;
    else if (k == "mask" && v.kind == Sem::Tile)
      mask = v.value;
    else
      fail(args.keywordLocs[k], "assert_tag() takes message=\"...\" and mask=TILE as keywords");
  }
  if (args.positional.size() < 2 || args.positional.back().kind != Sem::Lambda)
    fail(args.loc, "assert_tag() takes tiles then a lambda: assert_tag(a, b, lambda ta, tb: ta.k == tb.k)");
  const dsl::LambdaExpr &lambda = *args.positional.back().lambda;
  SmallVector<Value> operands;
  for (size_t i = 0; i + 1 < args.positional.size(); ++i) {
    const Sem &v = args.positional[i];
    if (v.kind != Sem::Tile && v.kind != Sem::Buffer && v.kind != Sem::Tensor)
      fail(args.positionalLocs[i], "assert_tag() checks tiles, buffers or tensors, got " + describe(v));
    operands.push_back(v.value);
  }
  if (lambda.params.size() != operands.size())
    fail(lambda.loc, "the assertion lambda takes one tag per operand (" + std::to_string(operands.size()) + "), got " +
                         std::to_string(lambda.params.size()));
  if (mask) {  // assert_tag(a, b, lambda ta, tb: ..., mask=m): m keeps exactly the pairs the relation allows
    auto m = cast<TileType>(mask->getType());
    auto shapeOf = [](Value v) { return cast<TileType>(v.getType()).getShape(); };
    if (operands.size() != 2 || !isa<TileType>(operands[0].getType()) || !isa<TileType>(operands[1].getType()) ||
        shapeOf(operands[0]).size() != 2 || shapeOf(operands[1]).size() != 2 ||
        !m.getElementType().isInteger(1) || m.getShape().size() != 2 ||
        shapeOf(operands[0])[1] != shapeOf(operands[1])[1] || m.getShape()[0] != shapeOf(operands[0])[0] ||
        m.getShape()[1] != shapeOf(operands[1])[0])
      fail(args.loc, "assert_tag(a, b, lambda ta, tb: ..., mask=m) takes tiles a (M x K), b (N x K) and a "
                     "comparison tile m (M x N)");
    operands.push_back(*mask);
  }
  auto op = AssertTagOp::create(builder, loc(args.loc), operands,
                                message ? builder.getStringAttr(*message) : StringAttr(), mask.has_value());
  Block *body = new Block();
  op.getBody().push_back(body);
  std::map<std::string, Value> noParams, tags;
  for (const std::string &p : lambda.params)
    tags[p] = body->addArgument(TagType::get(&ctx), loc(lambda.loc));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(body);
  Value cond = evalTagExpr(*lambda.body, noParams, tags, /*runtimeScalars=*/true);
  if (!cond.getType().isInteger(1))
    fail(lambda.body->loc, "the assertion must be a condition (e.g. ta.k == tb.k)");
  YieldOp::create(builder, loc(lambda.loc), ValueRange{cond});
}

/// Expressions inside tag lambdas: index arithmetic over coordinates, tag
/// fields (t.name or t[i]), compile-time constants, comparisons, and/or.
Value Lowerer::evalTagExpr(const dsl::Expr &expr, std::map<std::string, Value> &params,
                           std::map<std::string, Value> &tagParams, bool runtimeScalars) {
  Location at = loc(expr.loc);
  auto field = [&](const dsl::Expr &base, const std::string &f) -> Value {
    auto *n = base.as<dsl::NameExpr>();
    if (!n || !tagParams.count(n->name))
      fail(base.loc, "expected a tag argument of the assertion lambda");
    return TagGetOp::create(builder, at, tagParams[n->name], builder.getStringAttr(f));
  };
  switch (expr.kind) {
  case dsl::ExprKind::Name: {
    auto *n = expr.as<dsl::NameExpr>();
    if (params.count(n->name)) return params[n->name];
    Sem v = lookup(n->name, expr.loc);
    if (v.kind == Sem::Int) return indexConst(v.i, expr.loc);
    // An assertion may read the kernel's integer values (sizes, scalar arguments, loop indices).
    if (runtimeScalars && v.kind == Sem::Scalar && v.value.getType().isIndex()) return v.value;
    if (runtimeScalars && v.kind == Sem::Scalar && v.value.getType().isSignlessInteger() &&
        v.value.getType().getIntOrFloatBitWidth() > 1)
      return arith::IndexCastOp::create(builder, at, builder.getIndexType(), v.value);
    fail(expr.loc, std::string(runtimeScalars ? "tag assertions may use tag fields, integer constants and the "
                                                "kernel's integer values; '"
                                              : "tag functions may use the lambda's coordinates and integer "
                                                "constants; '") +
                       n->name + "' is " + describe(v));
  }
  case dsl::ExprKind::Int:
    return indexConst(expr.as<dsl::IntExpr>()->value, expr.loc);
  case dsl::ExprKind::Attribute: {
    auto *a = expr.as<dsl::AttributeExpr>();
    return field(*a->value, a->attr);
  }
  case dsl::ExprKind::Subscript: {
    auto *s = expr.as<dsl::SubscriptExpr>();
    auto *i = s->index->as<dsl::IntExpr>();
    if (!i) fail(s->index->loc, "tag fields are indexed by an integer literal");
    return field(*s->value, std::to_string(i->value));
  }
  case dsl::ExprKind::Binary: {
    auto *b = expr.as<dsl::BinaryExpr>();
    Value l = evalTagExpr(*b->lhs, params, tagParams, runtimeScalars), r = evalTagExpr(*b->rhs, params, tagParams, runtimeScalars);
    switch (b->op) {
    case dsl::BinaryOp::Add: return arith::AddIOp::create(builder, at, l, r);
    case dsl::BinaryOp::Sub: return arith::SubIOp::create(builder, at, l, r);
    case dsl::BinaryOp::Mul: return arith::MulIOp::create(builder, at, l, r);
    case dsl::BinaryOp::FloorDiv: return arith::FloorDivSIOp::create(builder, at, l, r);
    case dsl::BinaryOp::Mod: return arith::RemSIOp::create(builder, at, l, r);
    case dsl::BinaryOp::BitXor: return arith::XOrIOp::create(builder, at, l, r);
    default: fail(expr.loc, std::string("operator '") + dsl::spelling(b->op) + "' is not allowed in tag expressions");
    }
  }
  case dsl::ExprKind::Compare: {
    auto *c = expr.as<dsl::CompareExpr>();
    static const arith::CmpIPredicate ip[] = {arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
                                              arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge,
                                              arith::CmpIPredicate::eq, arith::CmpIPredicate::ne};
    Value left = evalTagExpr(*c->first, params, tagParams, runtimeScalars), result;
    for (size_t i = 0; i < c->ops.size(); ++i) {
      Value right = evalTagExpr(*c->comparators[i], params, tagParams, runtimeScalars);
      Value cmp = arith::CmpIOp::create(builder, at, ip[int(c->ops[i])], left, right);
      result = result ? Value(arith::AndIOp::create(builder, at, result, cmp)) : cmp;
      left = right;
    }
    return result;
  }
  case dsl::ExprKind::BoolOp: {
    auto *b = expr.as<dsl::BoolOpExpr>();
    Value acc = evalTagExpr(*b->values[0], params, tagParams, runtimeScalars);
    for (size_t i = 1; i < b->values.size(); ++i) {
      Value next = evalTagExpr(*b->values[i], params, tagParams, runtimeScalars);
      acc = b->op == dsl::BoolOpKind::And ? Value(arith::AndIOp::create(builder, at, acc, next))
                                          : Value(arith::OrIOp::create(builder, at, acc, next));
    }
    return acc;
  }
  default:
    fail(expr.loc, "unsupported expression in a tag function");
  }
}

} // namespace argus::lowering
