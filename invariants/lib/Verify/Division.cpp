//===- Division.cpp - division by constants without dividers ------------===//

#include "Division.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace argus::verify::detail {

namespace {

enum class DivKind { UDiv, URem, SDiv, SRem };

std::optional<DivKind> divKind(const z3::expr &e) {
  if (!e.is_app() || e.num_args() != 2 || !e.arg(1).is_numeral())
    return std::nullopt;
  switch (e.decl().decl_kind()) {
  case Z3_OP_BUDIV: case Z3_OP_BUDIV_I: return DivKind::UDiv;
  case Z3_OP_BUREM: case Z3_OP_BUREM_I: return DivKind::URem;
  case Z3_OP_BSDIV: case Z3_OP_BSDIV_I: return DivKind::SDiv;
  case Z3_OP_BSREM: case Z3_OP_BSREM_I: return DivKind::SRem;
  default: return std::nullopt;
  }
}

} // namespace

void eliminateConstantDivision(z3::context &ctx, std::vector<z3::expr> &constraints) {
  for (z3::expr &c : constraints)
    c = c.simplify();
  // Divisions in post-order, so inner ones are defined before outer ones.
  std::vector<z3::expr> found;
  std::unordered_set<unsigned> seen;
  std::vector<std::pair<z3::expr, bool>> stack;
  for (const z3::expr &c : constraints)
    stack.emplace_back(c, false);
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      if (divKind(e))
        found.push_back(e);
      continue;
    }
    if (!seen.insert(e.id()).second || !e.is_app())
      continue;
    stack.emplace_back(e, true);
    for (unsigned i = 0; i < e.num_args(); ++i)
      stack.emplace_back(e.arg(i), false);
  }
  if (found.empty())
    return;

  // Quotient and remainder per (dividend, divisor, signedness).
  struct Pair { z3::expr q, r; };
  std::unordered_map<std::string, Pair> pairs;
  z3::expr_vector from(ctx), to(ctx);
  std::vector<z3::expr> definitions;
  int counter = 0;
  for (const z3::expr &e : found) {
    DivKind kind = *divKind(e);
    bool isSigned = kind == DivKind::SDiv || kind == DivKind::SRem;
    z3::expr x = e.arg(0), c = e.arg(1);
    uint64_t divisor = 0;
    if (!c.is_numeral_u64(divisor) || divisor == 0 || (divisor & (divisor - 1)) == 0)
      continue; // x / 0 keeps its (total) definition; powers of two are shifts already
    unsigned bits = x.get_sort().bv_size();
    if (isSigned && (divisor >> (bits - 1)))
      continue; // a negative divisor: rare, left to the bit-blaster
    std::string key = std::to_string(x.id()) + "/" + std::to_string(divisor) + (isSigned ? "s" : "u");
    auto it = pairs.find(key);
    if (it == pairs.end()) {
      std::string n = std::to_string(counter++);
      z3::expr q = ctx.bv_const(("div.q!" + n).c_str(), bits);
      z3::expr r = ctx.bv_const(("div.r!" + n).c_str(), bits);
      // x == q * c + r exactly, in twice the width.
      auto wide = [&](const z3::expr &v) { return isSigned ? z3::sext(v, bits) : z3::zext(v, bits); };
      z3::expr cw = ctx.bv_val(divisor, 2 * bits);
      definitions.push_back(wide(x) == wide(q) * cw + wide(r));
      z3::expr zero = ctx.bv_val(0, bits), cb = ctx.bv_val(divisor, bits);
      if (isSigned) {
        // Truncating division: the remainder takes the dividend's sign.
        definitions.push_back(z3::ite(x >= zero, r >= zero && r < cb, r <= zero && r > -cb));
      } else {
        definitions.push_back(z3::ult(r, cb));
      }
      it = pairs.emplace(key, Pair{q, r}).first;
    }
    from.push_back(e);
    to.push_back(kind == DivKind::UDiv || kind == DivKind::SDiv ? it->second.q : it->second.r);
  }
  for (z3::expr &c : constraints)
    c = c.substitute(from, to);
  for (z3::expr &d : definitions)
    constraints.push_back(d.substitute(from, to));
}

} // namespace argus::verify::detail
