//===- Divide.cpp - logical_divide and its rearrangements -----------------===//
#include "argus/Layout/Divide.h"

#include "argus/Layout/Complement.h"
#include "argus/Layout/Composition.h"

namespace argus::layout {

Expected<Layout> logicalDivide(const Layout &a, const Layout &b) {
  auto rest = complement(b, size(a));
  if (!rest)
    return makeError("logicalDivide(" + toString(a) + ", " + toString(b) +
                     "): " + rest.message());
  ARGUS_TRY(bb, makeLayout(std::vector<Layout>{b, *rest}));
  return composition(a, bb);
}

Expected<Layout> logicalDivide(const Layout &a, const Tiler &tiler) {
  if (static_cast<int>(tiler.size()) > rank(a))
    return makeError("logicalDivide: tiler of rank " +
                     std::to_string(tiler.size()) + " is longer than the rank " +
                     std::to_string(rank(a)) + " of " + toString(a));
  std::vector<Layout> out;
  for (int i = 0; i < rank(a); ++i) {
    if (i < static_cast<int>(tiler.size())) {
      ARGUS_TRY(m, logicalDivide(mode(a, i), tiler[i]));
      out.push_back(std::move(m));
    } else {
      out.push_back(mode(a, i));
    }
  }
  return makeLayout(out);
}

namespace {
// Split a by-mode divide into its tile modes, its rest modes and the modes of
// A beyond the tiler.
struct Split {
  std::vector<Layout> tiles, rests, others;
};

Expected<Split> splitDivide(const Layout &a, const Tiler &tiler) {
  ARGUS_TRY(ld, logicalDivide(a, tiler));
  Split s;
  for (int i = 0; i < rank(ld); ++i) {
    Layout m = mode(ld, i);
    if (i < static_cast<int>(tiler.size())) {
      s.tiles.push_back(mode(m, 0));
      s.rests.push_back(mode(m, 1));
    } else {
      s.others.push_back(m);
    }
  }
  return s;
}
} // namespace

Expected<Layout> zippedDivide(const Layout &a, const Tiler &tiler) {
  ARGUS_TRY(s, splitDivide(a, tiler));
  std::vector<Layout> rest = s.rests;
  rest.insert(rest.end(), s.others.begin(), s.others.end());
  ARGUS_TRY(t, makeLayout(s.tiles));
  ARGUS_TRY(r, makeLayout(rest));
  return makeLayout(std::vector<Layout>{t, r});
}

Expected<Layout> tiledDivide(const Layout &a, const Tiler &tiler) {
  ARGUS_TRY(s, splitDivide(a, tiler));
  ARGUS_TRY(t, makeLayout(s.tiles));
  std::vector<Layout> out{t};
  out.insert(out.end(), s.rests.begin(), s.rests.end());
  out.insert(out.end(), s.others.begin(), s.others.end());
  return makeLayout(out);
}

Expected<Layout> flatDivide(const Layout &a, const Tiler &tiler) {
  ARGUS_TRY(s, splitDivide(a, tiler));
  std::vector<Layout> out = s.tiles;
  out.insert(out.end(), s.rests.begin(), s.rests.end());
  out.insert(out.end(), s.others.begin(), s.others.end());
  return makeLayout(out);
}

} // namespace argus::layout
