//===- Complement.cpp - CuTe's complement ---------------------------------===//
//
// Sort the non-trivial modes of A by stride; the gaps between consecutive
// modes, (d_k / (s_{k-1}*d_{k-1})) : (s_{k-1}*d_{k-1}), are the complement's
// modes, and the last one is extended to reach the cotarget.
//===----------------------------------------------------------------------===//
#include "argus/Layout/Complement.h"

#include "argus/Layout/Coalesce.h"

#include <algorithm>

namespace argus::layout {

Expected<Layout> complement(const Layout &a, int64_t cotarget) {
  auto fail = [&](const std::string &why) {
    return makeError("complement(" + toString(a) + ", " +
                     std::to_string(cotarget) + "): " + why);
  };
  if (cotarget < 1)
    return fail("expected a cotarget >= 1");
  if (!hasNonNegativeStrides(a))
    return fail("expected non-negative strides");
  std::vector<int64_t> s = leaves(a.shape()), d = leaves(a.stride());
  std::vector<std::pair<int64_t, int64_t>> ms; // (stride, shape)
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != 1 && d[i] != 0)
      ms.emplace_back(d[i], s[i]);
  std::sort(ms.begin(), ms.end());
  std::vector<IntTuple> rs, rd;
  int64_t current = 1;
  for (auto [stride, shape] : ms) {
    if (stride % current != 0)
      return fail("not complementable: stride " + std::to_string(stride) +
                  " is not a multiple of " + std::to_string(current) +
                  ", the span of the modes with smaller strides (the layout "
                  "overlaps itself or interleaves)");
    rs.emplace_back(stride / current);
    rd.emplace_back(current);
    if (__builtin_mul_overflow(shape, stride, &current))
      return fail("span overflows int64");
  }
  int64_t rest = cotarget / current + (cotarget % current != 0);
  rs.emplace_back(rest);
  rd.emplace_back(current);
  auto r = makeLayout(IntTuple::tuple(std::move(rs)),
                      IntTuple::tuple(std::move(rd)));
  if (!r)
    return fail(r.message());
  return coalesce(*r);
}

Expected<Layout> complement(const Layout &a) { return complement(a, cosize(a)); }

} // namespace argus::layout
