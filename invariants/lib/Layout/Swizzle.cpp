//===- Swizzle.cpp - XOR swizzles and swizzled layouts --------------------===//
#include "argus/Layout/Swizzle.h"

#include <cstdlib>

namespace argus::layout {

int64_t Swizzle::yyyMask() const {
  if (b_ == 0)
    return 0;
  return ((int64_t(1) << b_) - 1) << (m_ + std::max(0, s_));
}
int64_t Swizzle::zzzMask() const {
  if (b_ == 0)
    return 0;
  return ((int64_t(1) << b_) - 1) << (m_ - std::min(0, s_));
}

int64_t Swizzle::operator()(int64_t offset) const {
  if (b_ == 0)
    return offset;
  int64_t y = offset & yyyMask();
  int64_t moved = s_ >= 0 ? (y >> s_) : (y << -s_);
  return offset ^ moved;
}

Expected<Swizzle> makeSwizzle(int b, int m, int s) {
  std::string what = "Sw<" + std::to_string(b) + "," + std::to_string(m) +
                     "," + std::to_string(s) + ">: ";
  if (b < 0 || m < 0)
    return makeError(what + "expected B >= 0 and M >= 0");
  if (std::abs(static_cast<int64_t>(s)) < b)
    return makeError(what + "expected |S| >= B, found B=" + std::to_string(b) +
                     " S=" + std::to_string(s));
  // Highest bit used: b + m + |s| - 1 (the higher of the two masks).
  if (b > 0 &&
      static_cast<int64_t>(b) + m + std::abs(static_cast<int64_t>(s)) > 62)
    return makeError(what + "masks exceed 62 bits");
  return Swizzle(b, m, s);
}

Expected<Swizzle> parseSwizzle(std::string_view text) {
  auto fail = [&] {
    return makeError("expected a swizzle 'Sw<B,M,S>', found '" +
                     std::string(text) + "'");
  };
  if (text.size() < 4 || text.substr(0, 3) != "Sw<" || text.back() != '>')
    return fail();
  std::string inner = "(" + std::string(text.substr(3, text.size() - 4)) + ")";
  auto t = parseIntTuple(inner);
  if (!t || t->elems().size() != 3)
    return fail();
  int64_t v[3];
  for (int i = 0; i < 3; ++i) {
    const IntTuple &e = t->elems()[i];
    if (!e.isInt() || e.value() < -1000 || e.value() > 1000)
      return fail();
    v[i] = e.value();
  }
  return makeSwizzle(int(v[0]), int(v[1]), int(v[2]));
}

std::string toString(const Swizzle &sw) {
  return "Sw<" + std::to_string(sw.bits()) + "," + std::to_string(sw.base()) +
         "," + std::to_string(sw.shift()) + ">";
}
std::ostream &operator<<(std::ostream &os, const Swizzle &sw) {
  return os << toString(sw);
}

Expected<ComposedLayout> makeComposedLayout(const Swizzle &sw,
                                            const Layout &layout) {
  if (!hasNonNegativeStrides(layout))
    return makeError("cannot swizzle " + toString(layout) +
                     ": expected non-negative strides (offsets >= 0)");
  return ComposedLayout{sw, layout};
}

std::string toString(const ComposedLayout &cl) {
  return toString(cl.swizzle) + " o " + toString(cl.layout);
}
std::ostream &operator<<(std::ostream &os, const ComposedLayout &cl) {
  return os << toString(cl);
}

int64_t size(const ComposedLayout &cl) { return size(cl.layout); }

Expected<int64_t> evaluate(const ComposedLayout &cl, int64_t idx) {
  ARGUS_TRY(o, evaluate(cl.layout, idx));
  return cl.swizzle(o);
}

Expected<int64_t> evaluate(const ComposedLayout &cl, const IntTuple &coord) {
  ARGUS_TRY(o, evaluate(cl.layout, coord));
  return cl.swizzle(o);
}

} // namespace argus::layout
