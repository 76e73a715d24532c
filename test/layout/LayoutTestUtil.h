//===- LayoutTestUtil.h - Helpers shared by the layout algebra tests ------===//
//
// A parser that fails the test on bad input, a deterministic generator of
// random small layouts, and a brute-force evaluator written independently of
// the library (recursion over the shape tree, not the flattened leaves).
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_LAYOUT_LAYOUTTESTUTIL_H
#define ARGUS_TEST_LAYOUT_LAYOUTTESTUTIL_H

#include "argus/Layout/Layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

namespace argus::layout::testing {

/// Parse a layout the test knows to be valid.
inline Layout L(const char *text) {
  auto l = parseLayout(text);
  EXPECT_TRUE(l.ok()) << text << ": " << l.message();
  return l.ok() ? *l : *makeLayout(1, 0);
}

inline std::string str(const Expected<Layout> &l) {
  return l.ok() ? toString(*l) : "error: " + l.message();
}

/// Brute force: decompose idx colexicographically along the tree.
inline int64_t bruteEval(const IntTuple &shape, const IntTuple &stride,
                         int64_t &idx) {
  if (shape.isInt()) {
    int64_t c = idx % shape.value();
    idx /= shape.value();
    return c * stride.value();
  }
  int64_t off = 0;
  for (size_t i = 0; i < shape.elems().size(); ++i)
    off += bruteEval(shape.elems()[i], stride.elems()[i], idx);
  return off;
}
inline int64_t bruteEval(const Layout &l, int64_t idx) {
  return bruteEval(l.shape(), l.stride(), idx);
}

/// All offsets of l, in index order.
inline std::vector<int64_t> image(const Layout &l) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < size(l); ++i)
    out.push_back(bruteEval(l, i));
  return out;
}

inline bool injective(const Layout &l) {
  std::vector<int64_t> im = image(l);
  return std::set<int64_t>(im.begin(), im.end()).size() == im.size();
}

class RandomLayouts {
public:
  explicit RandomLayouts(uint32_t seed) : rng_(seed) {}

  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

  /// A shape tree of depth <= maxDepth, extents in [1, maxExtent].
  IntTuple shape(int maxDepth, int64_t maxExtent) {
    if (maxDepth == 0 || uniform(0, 2) == 0)
      return uniform(1, maxExtent);
    int r = static_cast<int>(uniform(1, 3));
    std::vector<IntTuple> elems;
    for (int i = 0; i < r; ++i)
      elems.push_back(shape(maxDepth - 1, maxExtent));
    return IntTuple::tuple(std::move(elems));
  }

  IntTuple strideLike(const IntTuple &s, int64_t maxStride) {
    if (s.isInt())
      return uniform(0, maxStride);
    std::vector<IntTuple> elems;
    for (const IntTuple &e : s.elems())
      elems.push_back(strideLike(e, maxStride));
    return IntTuple::tuple(std::move(elems));
  }

  /// Arbitrary small layout (possibly non-injective, stride 0, ...).
  Layout any(int maxDepth = 2, int64_t maxExtent = 4, int64_t maxStride = 12) {
    IntTuple s = shape(maxDepth, maxExtent);
    return *makeLayout(s, strideLike(s, maxStride));
  }

  /// An injective, complementable layout: a random permutation of the modes
  /// of a compact layout with extents in [1, maxExtent], optionally with gaps
  /// (each stride multiplied by a growing factor).
  Layout injectiveLayout(int maxRank = 3, int64_t maxExtent = 4,
                         bool gaps = true) {
    int r = static_cast<int>(uniform(1, maxRank));
    std::vector<int64_t> ext(r), order(r), stride(r);
    for (int i = 0; i < r; ++i) {
      ext[i] = uniform(1, maxExtent);
      order[i] = i;
    }
    std::shuffle(order.begin(), order.end(), rng_);
    int64_t current = gaps ? uniform(1, 2) : 1;
    for (int k = 0; k < r; ++k) {
      stride[order[k]] = current;
      current *= ext[order[k]] * (gaps ? uniform(1, 2) : 1);
    }
    std::vector<IntTuple> s, d;
    for (int i = 0; i < r; ++i) {
      s.emplace_back(ext[i]);
      d.emplace_back(stride[i]);
    }
    if (r == 1)
      return *makeLayout(s[0], d[0]);
    return *makeLayout(IntTuple::tuple(s), IntTuple::tuple(d));
  }

  /// Extents and strides powers of two (composition is often admissible).
  Layout pow2(int maxDepth = 2) {
    IntTuple s = pow2Shape(maxDepth);
    return *makeLayout(s, pow2Stride(s));
  }

  std::mt19937 &rng() { return rng_; }

private:
  IntTuple pow2Shape(int maxDepth) {
    if (maxDepth == 0 || uniform(0, 2) == 0)
      return int64_t(1) << uniform(0, 3);
    int r = static_cast<int>(uniform(1, 3));
    std::vector<IntTuple> elems;
    for (int i = 0; i < r; ++i)
      elems.push_back(pow2Shape(maxDepth - 1));
    return IntTuple::tuple(std::move(elems));
  }
  IntTuple pow2Stride(const IntTuple &s) {
    if (s.isInt())
      return uniform(0, 5) == 0 ? int64_t(0) : int64_t(1) << uniform(0, 5);
    std::vector<IntTuple> elems;
    for (const IntTuple &e : s.elems())
      elems.push_back(pow2Stride(e));
    return IntTuple::tuple(std::move(elems));
  }

  std::mt19937 rng_;
};

} // namespace argus::layout::testing

#endif // ARGUS_TEST_LAYOUT_LAYOUTTESTUTIL_H
