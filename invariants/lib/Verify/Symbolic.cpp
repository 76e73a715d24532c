//===- Symbolic.cpp - variables, tags and bit-vector helpers -----------===//

#include "Symbolic.h"

#include <unordered_set>

namespace argus::verify::detail {

SymContext::SymContext() {
  // Queries are quantifier-free bit-vector problems (except the coverage of
  // outputs); the model must give every variable a value.
  z3.set("model", true);
}

z3::expr SymContext::fresh(const std::string &name, unsigned bits, VarRole role, bool instance) {
  std::string unique = name + "!" + std::to_string(counter_++);
  z3::expr v = bits == 0 ? z3.bool_const(unique.c_str()) : z3.bv_const(unique.c_str(), bits);
  vars_.push_back({v, role, name, instance});
  return v;
}

z3::expr SymContext::choice(const std::string &name, unsigned bits,
                            const std::vector<z3::expr> &position) {
  std::string unique = name + "!" + std::to_string(counter_++);
  z3::sort range = bits == 0 ? z3.bool_sort() : z3.bv_sort(bits);
  z3::sort_vector domain(z3);
  z3::expr_vector args(z3);
  for (const z3::expr &p : position) {
    domain.push_back(p.get_sort());
    args.push_back(p);
  }
  if (position.empty())
    return fresh(name, bits, VarRole::Choice, true);
  return z3.function(unique.c_str(), domain, range)(args);
}

const VarInfo *SymContext::lookup(const z3::expr &var) const {
  for (const VarInfo &info : vars_)
    if (z3::eq(info.var, var))
      return &info;
  return nullptr;
}

static TagExpr constantTag(SymContext &ctx, TagState s) {
  TagExpr t{ctx.state(s), ctx.bv(0, 16), {}};
  for (unsigned i = 0; i < ctx.numFields; ++i)
    t.fields.push_back(ctx.index(0));
  return t;
}
TagExpr SymContext::unwritten() { return constantTag(*this, TagState::Unwritten); }
TagExpr SymContext::untagged() { return constantTag(*this, TagState::Untagged); }
TagExpr SymContext::unknown() { return constantTag(*this, TagState::Unknown); }

TagExpr TagExpr::substitute(const z3::expr_vector &from, const z3::expr_vector &to) const {
  if (from.empty())
    return *this;
  TagExpr out{state, origin, fields};
  out.state = z3::expr(out.state).substitute(from, to);
  out.origin = z3::expr(out.origin).substitute(from, to);
  for (z3::expr &f : out.fields)
    f = z3::expr(f).substitute(from, to);
  return out;
}

TagExpr iteTag(const z3::expr &c, const TagExpr &a, const TagExpr &b) {
  TagExpr out{z3::ite(c, a.state, b.state), z3::ite(c, a.origin, b.origin), {}};
  for (size_t i = 0; i < a.fields.size(); ++i)
    out.fields.push_back(z3::ite(c, a.fields[i], b.fields[i]));
  return out;
}

TagExpr TileTag::at(const std::vector<z3::expr> &where) const {
  if (coords.empty())
    return body;
  z3::expr_vector from(body.state.ctx()), to(body.state.ctx());
  for (size_t i = 0; i < coords.size(); ++i) {
    from.push_back(coords[i]);
    to.push_back(where[i]);
  }
  return body.substitute(from, to);
}

z3::expr TileTerm::at(const std::vector<z3::expr> &where) const {
  z3::expr_vector from(body.ctx()), to(body.ctx());
  for (size_t i = 0; i < coords.size(); ++i) {
    from.push_back(coords[i]);
    to.push_back(where[i]);
  }
  return z3::expr(body).substitute(from, to);
}

z3::expr signExtendTo(const z3::expr &e, unsigned bits) {
  unsigned w = e.get_sort().bv_size();
  if (w == bits)
    return e;
  return w < bits ? z3::sext(e, bits - w) : e.extract(bits - 1, 0);
}
z3::expr zeroExtendTo(const z3::expr &e, unsigned bits) {
  unsigned w = e.get_sort().bv_size();
  if (w == bits)
    return e;
  return w < bits ? z3::zext(e, bits - w) : e.extract(bits - 1, 0);
}
z3::expr truncateTo(const z3::expr &e, unsigned bits) { return e.extract(bits - 1, 0); }

static z3::expr zeroLike(const z3::expr &e) { return e.ctx().bv_val(0, e.get_sort().bv_size()); }

z3::expr sdivTotal(const z3::expr &a, const z3::expr &b) {
  return z3::ite(b == zeroLike(b), zeroLike(a), a / b);
}
z3::expr sremTotal(const z3::expr &a, const z3::expr &b) {
  return z3::ite(b == zeroLike(b), zeroLike(a), z3::srem(a, b));
}
z3::expr udivTotal(const z3::expr &a, const z3::expr &b) {
  return z3::ite(b == zeroLike(b), zeroLike(a), z3::udiv(a, b));
}
z3::expr uremTotal(const z3::expr &a, const z3::expr &b) {
  return z3::ite(b == zeroLike(b), zeroLike(a), z3::urem(a, b));
}
z3::expr floorDiv(const z3::expr &a, const z3::expr &b) {
  z3::expr q = a / b, r = z3::srem(a, b), zero = zeroLike(a);
  z3::expr adjust = r != zero && ((r < zero) != (b < zero));
  return z3::ite(b == zero, zero, z3::ite(adjust, q - a.ctx().bv_val(1, a.get_sort().bv_size()), q));
}
z3::expr ceilDiv(const z3::expr &a, const z3::expr &b) {
  z3::expr q = a / b, r = z3::srem(a, b), zero = zeroLike(a);
  z3::expr adjust = r != zero && ((r < zero) == (b < zero));
  return z3::ite(b == zero, zero, z3::ite(adjust, q + a.ctx().bv_val(1, a.get_sort().bv_size()), q));
}
z3::expr smax(const z3::expr &a, const z3::expr &b) { return z3::ite(a >= b, a, b); }
z3::expr smin(const z3::expr &a, const z3::expr &b) { return z3::ite(a <= b, a, b); }

bool mentionsAny(const z3::expr &e, const std::vector<z3::expr> &vars) {
  if (vars.empty())
    return false;
  std::unordered_set<unsigned> targets, seen;
  for (const z3::expr &v : vars)
    targets.insert(v.id());
  std::vector<z3::expr> stack{e};
  while (!stack.empty()) {
    z3::expr x = stack.back();
    stack.pop_back();
    if (!seen.insert(x.id()).second)
      continue;
    if (targets.count(x.id()))
      return true;
    if (x.is_app())
      for (unsigned i = 0; i < x.num_args(); ++i)
        stack.push_back(x.arg(i));
  }
  return false;
}

z3::params queryLimits(z3::context &z3, unsigned resources, unsigned timeoutMs) {
  z3::params p(z3);
  p.set("rlimit", resources);
  p.set("timeout", timeoutMs);
  return p;
}

} // namespace argus::verify::detail
