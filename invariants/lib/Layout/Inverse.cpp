//===- Inverse.cpp - Right and left inverses ------------------------------===//
//
// Right inverse: in coalesce(L), repeatedly find the mode whose stride is the
// next offset not yet reached (1, then s*d of the mode found, ...); that mode
// contributes its extent, with the index stride at which it sits in L's
// domain (the product of the extents before it).
//===----------------------------------------------------------------------===//
#include "argus/Layout/Inverse.h"

#include "argus/Layout/Coalesce.h"
#include "argus/Layout/Complement.h"

namespace argus::layout {

Layout rightInverse(const Layout &l) {
  Layout c = coalesce(l);
  std::vector<int64_t> s = leaves(c.shape()), d = leaves(c.stride());
  std::vector<int64_t> indexStride(s.size());
  int64_t p = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    indexStride[i] = p;
    p *= s[i]; // <= size(l)
  }
  std::vector<IntTuple> rs, rd;
  int64_t current = 1;
  while (true) {
    size_t found = s.size();
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] > 1 && d[i] == current) {
        found = i;
        break;
      }
    if (found == s.size())
      break;
    rs.emplace_back(s[found]);
    rd.emplace_back(indexStride[found]);
    if (__builtin_mul_overflow(s[found], d[found], &current))
      break;
  }
  if (rs.empty())
    return *makeLayout(1, 0);
  // The result's span is below size(l): valid.
  return coalesce(*makeLayout(IntTuple::tuple(std::move(rs)),
                              IntTuple::tuple(std::move(rd))));
}

Expected<Layout> leftInverse(const Layout &l) {
  auto fail = [&](const std::string &why) {
    return makeError("leftInverse(" + toString(l) + "): " + why);
  };
  auto comp = complement(l);
  if (!comp)
    return fail(comp.message());
  auto whole = makeLayout(std::vector<Layout>{l, *comp});
  if (!whole)
    return fail(whole.message());
  Layout r = rightInverse(*whole);
  if (size(r) != size(*whole))
    return fail("the layout is not injective (or not complementable): only "
                "the offsets [0," +
                std::to_string(size(r)) + ") of (L, complement(L)) = " +
                toString(*whole) + " are reached contiguously, expected " +
                std::to_string(size(*whole)));
  return r;
}

} // namespace argus::layout
