//===- AstDump.h - S-expression dumps of syntax trees for tests -*- C++ -*-===//
//
// Tests compare tree shapes as short strings: `a + b * c` dumps as
// "(+ a (* b c))", a call as "(call f a k=v)", a block statement by statement.
// Kept in the tests: the compiler never needs to print a tree.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_FRONTEND_ASTDUMP_H
#define ARGUS_TEST_FRONTEND_ASTDUMP_H

#include "argus/Frontend/AST.h"

#include <sstream>
#include <string>

namespace argus::dsl::test {

inline std::string dump(const Expr *e);

inline std::string dumpList(const char *head, const std::vector<ExprPtr> &xs) {
  std::string s = std::string("(") + head;
  for (const ExprPtr &x : xs)
    s += " " + dump(x.get());
  return s + ")";
}

inline std::string dump(const Expr *e) {
  if (!e)
    return "<null>";
  switch (e->kind) {
  case ExprKind::Name: return e->as<NameExpr>()->name;
  case ExprKind::Int: return std::to_string(e->as<IntExpr>()->value);
  case ExprKind::Float: {
    std::ostringstream os;
    os << e->as<FloatExpr>()->value;
    return "f" + os.str();
  }
  case ExprKind::Bool: return e->as<BoolExpr>()->value ? "True" : "False";
  case ExprKind::None: return "None";
  case ExprKind::String: return "\"" + e->as<StringExpr>()->value + "\"";
  case ExprKind::Tuple: return dumpList("tuple", e->as<TupleExpr>()->elements);
  case ExprKind::List: return dumpList("list", e->as<ListExpr>()->elements);
  case ExprKind::Call: {
    const auto *c = e->as<CallExpr>();
    std::string s = "(call " + dump(c->callee.get());
    for (const ExprPtr &a : c->args)
      s += " " + dump(a.get());
    for (const Keyword &k : c->keywords)
      s += " " + k.name + "=" + dump(k.value.get());
    return s + ")";
  }
  case ExprKind::Attribute: {
    const auto *a = e->as<AttributeExpr>();
    return "(. " + dump(a->value.get()) + " " + a->attr + ")";
  }
  case ExprKind::Subscript: {
    const auto *s = e->as<SubscriptExpr>();
    return "([] " + dump(s->value.get()) + " " + dump(s->index.get()) + ")";
  }
  case ExprKind::Unary: {
    const auto *u = e->as<UnaryExpr>();
    return std::string("(") + spelling(u->op) + " " + dump(u->operand.get()) + ")";
  }
  case ExprKind::Binary: {
    const auto *b = e->as<BinaryExpr>();
    return std::string("(") + spelling(b->op) + " " + dump(b->lhs.get()) + " " +
           dump(b->rhs.get()) + ")";
  }
  case ExprKind::Compare: {
    const auto *c = e->as<CompareExpr>();
    std::string s = "(cmp " + dump(c->first.get());
    for (size_t i = 0; i < c->ops.size(); ++i)
      s += std::string(" ") + spelling(c->ops[i]) + " " + dump(c->comparators[i].get());
    return s + ")";
  }
  case ExprKind::BoolOp: {
    const auto *b = e->as<BoolOpExpr>();
    return dumpList(spelling(b->op), b->values);
  }
  case ExprKind::IfElse: {
    const auto *i = e->as<IfElseExpr>();
    return "(ifexp " + dump(i->condition.get()) + " " + dump(i->thenValue.get()) + " " +
           dump(i->elseValue.get()) + ")";
  }
  case ExprKind::Lambda: {
    const auto *l = e->as<LambdaExpr>();
    std::string s = "(lambda (";
    for (size_t i = 0; i < l->params.size(); ++i)
      s += (i ? " " : "") + l->params[i];
    return s + ") " + dump(l->body.get()) + ")";
  }
  }
  return "<?>";
}

inline std::string dump(const Block &block, int indent = 0);

inline std::string dump(const Stmt *s, int indent) {
  std::string pad(indent * 2, ' ');
  switch (s->kind) {
  case StmtKind::Expr: return pad + "expr " + dump(s->as<ExprStmt>()->value.get()) + "\n";
  case StmtKind::Assign: {
    const auto *a = s->as<AssignStmt>();
    return pad + dump(a->target.get()) + " = " + dump(a->value.get()) + "\n";
  }
  case StmtKind::AugAssign: {
    const auto *a = s->as<AugAssignStmt>();
    return pad + dump(a->target.get()) + " " + spelling(a->op) + "= " + dump(a->value.get()) +
           "\n";
  }
  case StmtKind::For: {
    const auto *f = s->as<ForStmt>();
    return pad + "for " + dump(f->target.get()) + " in " + dump(f->iter.get()) + "\n" +
           dump(f->body, indent + 1);
  }
  case StmtKind::If: {
    const auto *i = s->as<IfStmt>();
    std::string out = pad + "if " + dump(i->condition.get()) + "\n" + dump(i->body, indent + 1);
    if (!i->orElse.empty())
      out += pad + "else\n" + dump(i->orElse, indent + 1);
    return out;
  }
  case StmtKind::Pass: return pad + "pass\n";
  case StmtKind::Return: {
    const auto *r = s->as<ReturnStmt>();
    return pad + "return" + (r->value ? " " + dump(r->value.get()) : "") + "\n";
  }
  case StmtKind::Assert: {
    const auto *a = s->as<AssertStmt>();
    return pad + "assert " + dump(a->condition.get()) +
           (a->message ? ", " + dump(a->message.get()) : "") + "\n";
  }
  case StmtKind::FunctionDef: {
    const auto *f = s->as<FunctionDef>();
    std::string out;
    for (const ExprPtr &d : f->decorators)
      out += pad + "@" + dump(d.get()) + "\n";
    out += pad + "def " + f->name + "(";
    for (size_t i = 0; i < f->params.size(); ++i) {
      const Param &p = f->params[i];
      out += (i ? ", " : "") + p.name;
      if (p.annotation)
        out += ": " + dump(p.annotation.get());
      if (p.defaultValue)
        out += " = " + dump(p.defaultValue.get());
    }
    return out + ")\n" + dump(f->body, indent + 1);
  }
  case StmtKind::Import: return pad + "import " + s->as<ImportStmt>()->module + "\n";
  }
  return pad + "<?>\n";
}

inline std::string dump(const Block &block, int indent) {
  std::string out;
  for (const StmtPtr &s : block)
    out += dump(s.get(), indent);
  return out;
}

} // namespace argus::dsl::test

#endif // ARGUS_TEST_FRONTEND_ASTDUMP_H
