//===- Counterexample.cpp - Z3 models as readable findings --------------===//

#include "Counterexample.h"

#include "argus/Interpreter/Interpreter.h"

namespace argus::verify::detail {

int64_t valueOf(const z3::model &model, const z3::expr &e) {
  z3::expr v = model.eval(e, /*model_completion=*/true);
  if (v.is_bool())
    return v.is_true() ? 1 : 0;
  uint64_t u = 0;
  if (!v.is_numeral_u64(u))
    return 0;
  unsigned bits = v.get_sort().bv_size();
  if (bits < 64 && (u >> (bits - 1)) & 1) // sign-extend
    u |= ~uint64_t(0) << bits;
  return static_cast<int64_t>(u);
}

Access accessOf(Executor &ex, const z3::model &model, const EventContext &at,
                const Renaming *second, std::string target, const std::vector<z3::expr> &slot,
                const std::vector<z3::expr> &element, bool write, bool async) {
  auto val = [&](const z3::expr &e) { return valueOf(model, second ? (*second)(e) : e); };
  Access a;
  for (const z3::expr &pid : ex.exec.programIds)
    a.block.push_back(val(pid));
  a.thread = val(*ex.exec.thread);
  a.warp = a.thread / 32;
  a.lane = a.thread % 32;
  a.point.location = interp::formatLocation(at.op->getLoc());
  a.point.op = at.op->getName().getStringRef().str();
  for (const LoopFrame &loop : at.loops)
    a.point.iterations.emplace_back(loop.name, val(loop.iv));
  a.target = std::move(target);
  for (const z3::expr &s : slot)
    a.slot.push_back(val(s));
  for (const z3::expr &e : element)
    a.element.push_back(val(e));
  a.write = write;
  a.async = async;
  return a;
}

std::vector<std::pair<std::string, int64_t>> sizesOf(SymContext &ctx, const z3::model &model) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const VarInfo &v : ctx.vars())
    if (v.role == VarRole::Size || (v.role == VarRole::Scalar && !v.var.is_bool()))
      out.emplace_back(v.name, valueOf(model, v.var));
  return out;
}

TagValue tagOf(Executor &ex, const z3::model &model, const TagExpr &tag) {
  TagValue out;
  switch (static_cast<TagState>(valueOf(model, z3::zext(tag.state, 62)))) {
  case TagState::Unwritten: out.state = TagValue::State::Unwritten; return out;
  case TagState::Untagged: out.state = TagValue::State::Untagged; return out;
  case TagState::Unknown: out.state = TagValue::State::Unknown; return out;
  case TagState::Tagged: break;
  }
  out.state = TagValue::State::Tagged;
  int64_t origin = valueOf(model, z3::zext(tag.origin, 48));
  std::vector<std::string> names;
  if (origin >= 0 && origin < static_cast<int64_t>(ex.exec.tagFunctions.size())) {
    out.origin = ex.exec.tagFunctions[origin].target;
    names = ex.exec.tagFunctions[origin].names;
  }
  size_t arity = names.empty() ? tag.fields.size() : names.size();
  for (size_t f = 0; f < arity && f < tag.fields.size(); ++f)
    out.fields.emplace_back(f < names.size() ? names[f] : std::to_string(f),
                            valueOf(model, tag.fields[f]));
  return out;
}

} // namespace argus::verify::detail
