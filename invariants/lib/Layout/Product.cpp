//===- Product.cpp - logical, blocked and raked products ------------------===//
#include "argus/Layout/Product.h"

#include "argus/Layout/Coalesce.h"
#include "argus/Layout/Complement.h"
#include "argus/Layout/Composition.h"

namespace argus::layout {

Expected<Layout> logicalProduct(const Layout &a, const Layout &b) {
  auto fail = [&](const std::string &why) {
    return makeError("logicalProduct(" + toString(a) + ", " + toString(b) +
                     "): " + why);
  };
  int64_t cotarget;
  if (__builtin_mul_overflow(size(a), cosize(b), &cotarget))
    return fail("size(A)*cosize(B) overflows int64");
  auto rest = complement(a, cotarget);
  if (!rest)
    return fail(rest.message());
  auto rep = composition(*rest, b);
  if (!rep)
    return fail(rep.message());
  return makeLayout(std::vector<Layout>{a, *rep});
}

// Modes of `l` padded with 1:0 up to rank r.
static std::vector<Layout> paddedModes(const Layout &l, int r) {
  std::vector<Layout> ms = modes(l);
  while (static_cast<int>(ms.size()) < r)
    ms.push_back(*makeLayout(1, 0));
  return ms;
}

static Expected<Layout> zippedProduct(const Layout &a, const Layout &b,
                                      bool raked) {
  int r = std::max(rank(a), rank(b));
  ARGUS_TRY(pa, makeLayout(paddedModes(a, r)));
  ARGUS_TRY(pb, makeLayout(paddedModes(b, r)));
  ARGUS_TRY(lp, logicalProduct(pa, pb));
  // The replication A* o B has B's (padded) shape: rank r.
  Layout rep = mode(lp, 1);
  std::vector<Layout> out;
  for (int i = 0; i < r; ++i) {
    Layout ai = mode(pa, i), ri = mode(rep, i);
    ARGUS_TRY(m, makeLayout(raked ? std::vector<Layout>{ri, ai}
                                  : std::vector<Layout>{ai, ri}));
    out.push_back(coalesce(m));
  }
  if (r == 1)
    return out[0];
  return makeLayout(out);
}

Expected<Layout> blockedProduct(const Layout &a, const Layout &b) {
  return zippedProduct(a, b, /*raked=*/false);
}

Expected<Layout> rakedProduct(const Layout &a, const Layout &b) {
  return zippedProduct(a, b, /*raked=*/true);
}

} // namespace argus::layout
