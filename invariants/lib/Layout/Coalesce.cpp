//===- Coalesce.cpp - Merge contiguous modes of a layout ------------------===//
#include "argus/Layout/Coalesce.h"

namespace argus::layout {

Layout coalesce(const Layout &l) {
  std::vector<int64_t> s = leaves(l.shape()), d = leaves(l.stride());
  std::vector<IntTuple> rs, rd;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == 1)
      continue;
    if (!rs.empty()) {
      int64_t ps = rs.back().value(), pd = rd.back().value();
      // ps*pd cannot overflow when it equals d[i]; check without overflow.
      int64_t prod;
      if (!__builtin_mul_overflow(ps, pd, &prod) && prod == d[i]) {
        rs.back() = IntTuple(ps * s[i]);
        continue;
      }
    }
    rs.emplace_back(s[i]);
    rd.emplace_back(d[i]);
  }
  if (rs.empty())
    return *makeLayout(1, 0);
  if (rs.size() == 1)
    return *makeLayout(rs[0], rd[0]);
  // Same size and a subset of the original span: always valid.
  return *makeLayout(IntTuple::tuple(std::move(rs)),
                     IntTuple::tuple(std::move(rd)));
}

Layout coalesceModes(const Layout &l) {
  if (l.shape().isInt())
    return coalesce(l);
  std::vector<Layout> ms;
  for (const Layout &m : modes(l))
    ms.push_back(coalesce(m));
  return *makeLayout(ms);
}

} // namespace argus::layout
