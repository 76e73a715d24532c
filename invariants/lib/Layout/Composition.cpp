//===- Composition.cpp - A o B, following CuTe's composition_impl ---------===//
//
// For an integer mode s:d of B, walk the modes of coalesce(A) except the last,
// first dividing out the stride d ("which elements of A does B step over")
// and then keeping s elements ("how many does it take"); the last mode of A
// absorbs whatever is left, which is CuTe's unbounded extension.
//===----------------------------------------------------------------------===//
#include "argus/Layout/Composition.h"

#include "argus/Layout/Coalesce.h"

namespace argus::layout {

namespace {
// ceil(a/b) for a >= 0, b > 0, without the overflow of (a+b-1)/b.
int64_t ceilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0); }

struct Modes {
  std::vector<int64_t> shape, stride;
};

struct Composer {
  const Layout &a, &b;
  Modes flatA;
  // The non-trivial integer modes (extent, stride) of B seen so far.
  std::vector<std::pair<int64_t, int64_t>> leavesOfB;

  // Distributing A over the modes of B is exact only if adding the offsets
  // of B's modes never carries across a mode boundary P_k (prefix product of
  // extents) of coalesce(A). For an admissible mode s:d, d divides P_k or
  // P_k divides d, so the largest (c*d mod P_k), c < s, is exact below.
  Expected<bool> checkNoCarry() const {
    int64_t p = 1;
    for (size_t k = 0; k + 1 < flatA.shape.size(); ++k) {
      p *= flatA.shape[k];
      __int128 total = 0;
      for (auto [s, d] : leavesOfB) {
        int64_t maxMod;
        if (d % p == 0)
          maxMod = 0;
        else if (p % d == 0)
          maxMod = std::min(s - 1, p / d - 1) * d;
        else
          maxMod = p - 1; // Not reached for admissible modes; conservative.
        total += maxMod;
      }
      if (total >= p)
        return notAdmissible(
            "the offsets of the modes of B add with a carry across the "
            "boundary " +
            std::to_string(p) + " (after mode " + std::to_string(k) +
            ") of coalesce(A) = " + toString(coalesce(a)) +
            ", so A o B is not A distributed over the modes of B");
    }
    return true;
  }

  LayoutError notAdmissible(const std::string &why) const {
    return makeError("composition: " + toString(a) + " o " + toString(b) +
                     " is not admissible: " + why);
  }
  LayoutError overflow() const {
    return makeError("composition: strides of " + toString(a) + " o " +
                     toString(b) + " overflow int64");
  }

  // Compose coalesce(A) with the sub-layout shape:stride of B; returns the
  // resulting (shape, stride) pair.
  Expected<std::pair<IntTuple, IntTuple>> compose(const IntTuple &shape,
                                                  const IntTuple &stride) {
    if (shape.isTuple()) {
      std::vector<IntTuple> rs, rd;
      for (size_t i = 0; i < shape.elems().size(); ++i) {
        ARGUS_TRY(r, compose(shape.elems()[i], stride.elems()[i]));
        rs.push_back(std::move(r.first));
        rd.push_back(std::move(r.second));
      }
      return std::make_pair(IntTuple::tuple(std::move(rs)),
                            IntTuple::tuple(std::move(rd)));
    }
    int64_t s = shape.value(), d = stride.value();
    if (d < 0)
      return notAdmissible("expected non-negative strides in B, found " +
                           std::to_string(d));
    if (d == 0 || s == 1)
      return std::make_pair(IntTuple(s), IntTuple(d));
    leavesOfB.emplace_back(s, d);
    size_t n = flatA.shape.size();
    std::vector<IntTuple> rs, rd;
    int64_t restShape = s, restStride = d;
    for (size_t k = 0; k + 1 < n && restShape > 1; ++k) {
      int64_t curShape = flatA.shape[k], curStride = flatA.stride[k];
      if (curShape % restStride != 0 && restStride % curShape != 0)
        return notAdmissible("stride " + std::to_string(restStride) +
                             " neither divides nor is a multiple of extent " +
                             std::to_string(curShape) + " of mode " +
                             std::to_string(k) + " of coalesce(A) = " +
                             toString(coalesce(a)));
      int64_t nextShape = ceilDiv(curShape, restStride);
      int64_t nextStride = ceilDiv(restStride, curShape);
      if (nextShape == 1) {
        restStride = nextStride;
        continue;
      }
      int64_t newShape = std::min(nextShape, restShape);
      if (restShape % newShape != 0)
        return notAdmissible("remaining shape " + std::to_string(restShape) +
                             " is not divisible by " +
                             std::to_string(newShape) + " (from mode " +
                             std::to_string(k) + " of coalesce(A) = " +
                             toString(coalesce(a)) + ")");
      int64_t newStride;
      if (__builtin_mul_overflow(restStride, curStride, &newStride))
        return overflow();
      rs.emplace_back(newShape);
      rd.emplace_back(newStride);
      restShape /= newShape;
      restStride = nextStride;
    }
    if (restShape > 1 || rs.empty()) {
      int64_t lastStride;
      if (__builtin_mul_overflow(restStride, flatA.stride[n - 1], &lastStride))
        return overflow();
      rs.emplace_back(restShape);
      rd.emplace_back(restShape == 1 ? 0 : lastStride);
    }
    if (rs.size() == 1)
      return std::make_pair(rs[0], rd[0]);
    return std::make_pair(IntTuple::tuple(std::move(rs)),
                          IntTuple::tuple(std::move(rd)));
  }
};
} // namespace

Expected<Layout> composition(const Layout &a, const Layout &b) {
  Layout ca = coalesce(a);
  Composer c{a, b, {leaves(ca.shape()), leaves(ca.stride())}};
  ARGUS_TRY(r, c.compose(b.shape(), b.stride()));
  ARGUS_TRY(noCarry, c.checkNoCarry());
  (void)noCarry;
  auto l = makeLayout(std::move(r.first), std::move(r.second));
  if (!l)
    return makeError("composition: " + toString(a) + " o " + toString(b) +
                     ": " + l.message());
  return l;
}

Expected<Layout> composition(const Layout &a,
                             const std::vector<Layout> &tiler) {
  if (static_cast<int>(tiler.size()) > rank(a))
    return makeError("composition: tiler of rank " +
                     std::to_string(tiler.size()) +
                     " is longer than the rank " + std::to_string(rank(a)) +
                     " of " + toString(a));
  std::vector<Layout> out;
  for (int i = 0; i < rank(a); ++i) {
    if (i < static_cast<int>(tiler.size())) {
      ARGUS_TRY(m, composition(mode(a, i), tiler[i]));
      out.push_back(std::move(m));
    } else {
      out.push_back(mode(a, i));
    }
  }
  return makeLayout(out);
}

} // namespace argus::layout
