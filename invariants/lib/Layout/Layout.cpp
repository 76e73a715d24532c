//===- Layout.cpp - Construction, printing and evaluation of layouts ------===//
//
// makeLayout is the single place where the Layout invariant (congruence,
// positive extents, no int64 overflow in size or in any offset) is checked;
// everything else in the algebra builds layouts through it.
//===----------------------------------------------------------------------===//
#include "argus/Layout/Layout.h"

#include <cassert>
#include <cstdlib>

namespace argus::layout {

static bool mulOk(int64_t a, int64_t b, int64_t &out) {
  return !__builtin_mul_overflow(a, b, &out);
}
static bool addOk(int64_t a, int64_t b, int64_t &out) {
  return !__builtin_add_overflow(a, b, &out);
}

Expected<Layout> makeLayout(IntTuple shape, IntTuple stride) {
  if (!congruent(shape, stride))
    return makeError("shape " + toString(shape) + " and stride " +
                     toString(stride) + " are not congruent");
  std::vector<int64_t> s = leaves(shape), d = leaves(stride);
  int64_t sz = 1, span = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] < 1)
      return makeError("expected every extent of shape " + toString(shape) +
                       " to be >= 1, found " + std::to_string(s[i]));
    if (!mulOk(sz, s[i], sz))
      return makeError("size of shape " + toString(shape) +
                       " overflows int64");
    int64_t term;
    if (d[i] == INT64_MIN || !mulOk(s[i] - 1, std::llabs(d[i]), term) ||
        !addOk(span, term, span) || span == INT64_MAX)
      return makeError("offsets of layout " + toString(shape) + ":" +
                       toString(stride) + " overflow int64");
  }
  return Layout(std::move(shape), std::move(stride));
}

static IntTuple compactStrides(const IntTuple &shape, int64_t &current,
                               bool rowMajor) {
  if (shape.isInt()) {
    int64_t d = current;
    // Overflow is caught by makeLayout (which checks the size); saturate.
    if (__builtin_mul_overflow(current, shape.value(), &current))
      current = INT64_MAX;
    return d;
  }
  size_t n = shape.elems().size();
  std::vector<IntTuple> elems(n, IntTuple(0));
  for (size_t k = 0; k < n; ++k) {
    size_t i = rowMajor ? n - 1 - k : k;
    elems[i] = compactStrides(shape.elems()[i], current, rowMajor);
  }
  return IntTuple::tuple(std::move(elems));
}

Expected<Layout> makeLayout(IntTuple shape) {
  int64_t current = 1;
  IntTuple stride = compactStrides(shape, current, /*rowMajor=*/false);
  return makeLayout(std::move(shape), std::move(stride));
}

Expected<Layout> makeLayoutRowMajor(IntTuple shape) {
  int64_t current = 1;
  IntTuple stride = compactStrides(shape, current, /*rowMajor=*/true);
  return makeLayout(std::move(shape), std::move(stride));
}

Expected<Layout> makeLayout(const std::vector<Layout> &modes) {
  std::vector<IntTuple> s, d;
  for (const Layout &m : modes) {
    s.push_back(m.shape());
    d.push_back(m.stride());
  }
  return makeLayout(IntTuple::tuple(std::move(s)),
                    IntTuple::tuple(std::move(d)));
}

Expected<Layout> parseLayout(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos)
    return makeError("expected a layout 'shape:stride', found no ':' in '" +
                     std::string(text) + "'");
  auto shape = parseIntTuple(text.substr(0, colon));
  if (!shape)
    return makeError("in the shape of '" + std::string(text) +
                     "': " + shape.message());
  auto stride = parseIntTuple(text.substr(colon + 1));
  if (!stride)
    return makeError("in the stride of '" + std::string(text) +
                     "': " + stride.message());
  return makeLayout(std::move(*shape), std::move(*stride));
}

std::string toString(const Layout &l) {
  return toString(l.shape()) + ":" + toString(l.stride());
}

std::ostream &operator<<(std::ostream &os, const Layout &l) {
  return os << toString(l);
}

int rank(const Layout &l) { return rank(l.shape()); }
int depth(const Layout &l) { return depth(l.shape()); }

Layout mode(const Layout &l, int i) {
  // A sub-layout of a valid layout is valid.
  return *makeLayout(mode(l.shape(), i), mode(l.stride(), i));
}

std::vector<Layout> modes(const Layout &l) {
  std::vector<Layout> out;
  for (int i = 0; i < rank(l); ++i)
    out.push_back(mode(l, i));
  return out;
}

int64_t size(const Layout &l) {
  int64_t p = 1;
  for (int64_t s : leaves(l.shape()))
    p *= s; // Cannot overflow: checked by makeLayout.
  return p;
}

int64_t cosize(const Layout &l) {
  std::vector<int64_t> s = leaves(l.shape()), d = leaves(l.stride());
  int64_t c = 1;
  for (size_t i = 0; i < s.size(); ++i)
    if (d[i] > 0)
      c += (s[i] - 1) * d[i];
  return c;
}

Layout flatten(const Layout &l) {
  return *makeLayout(flatten(l.shape()), flatten(l.stride()));
}

bool hasNonNegativeStrides(const Layout &l) {
  for (int64_t d : leaves(l.stride()))
    if (d < 0)
      return false;
  return true;
}

static IntTuple idx2crdImpl(int64_t idx, const IntTuple &shape) {
  if (shape.isInt())
    return idx;
  std::vector<IntTuple> elems;
  for (const IntTuple &e : shape.elems()) {
    int64_t n = *product(e); // Bounded by the whole product.
    elems.push_back(idx2crdImpl(idx % n, e));
    idx /= n;
  }
  return IntTuple::tuple(std::move(elems));
}

Expected<IntTuple> idx2crd(int64_t idx, const IntTuple &shape) {
  ARGUS_TRY(n, product(shape));
  if (idx < 0 || idx >= n)
    return makeError("index " + std::to_string(idx) + " is outside the domain [0," +
                     std::to_string(n) + ") of shape " + toString(shape));
  return idx2crdImpl(idx, shape);
}

Expected<int64_t> evaluate(const Layout &l, int64_t idx) {
  int64_t n = size(l);
  if (idx < 0 || idx >= n)
    return makeError("index " + std::to_string(idx) +
                     " is outside the domain [0," + std::to_string(n) +
                     ") of layout " + toString(l));
  std::vector<int64_t> s = leaves(l.shape()), d = leaves(l.stride());
  int64_t off = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    off += (idx % s[i]) * d[i];
    idx /= s[i];
  }
  return off;
}

// Offset of `coord` (weakly congruent to shape) relative to shape:stride.
static Expected<int64_t> crd2offset(const IntTuple &coord,
                                    const IntTuple &shape,
                                    const IntTuple &stride) {
  if (coord.isInt()) {
    auto l = makeLayout(shape, stride);
    if (!l)
      return l.error();
    return evaluate(*l, coord.value());
  }
  if (shape.isInt() || coord.elems().size() != shape.elems().size())
    return makeError("coordinate " + toString(coord) +
                     " does not match shape " + toString(shape));
  int64_t off = 0;
  for (size_t i = 0; i < coord.elems().size(); ++i) {
    ARGUS_TRY(o, crd2offset(coord.elems()[i], shape.elems()[i],
                            stride.elems()[i]));
    off += o; // Bounded: each term is a distinct part of the checked span.
  }
  return off;
}

Expected<int64_t> evaluate(const Layout &l, const IntTuple &coord) {
  if (!weaklyCongruent(coord, l.shape()))
    return makeError("coordinate " + toString(coord) +
                     " is not congruent to the shape " + toString(l.shape()));
  auto off = crd2offset(coord, l.shape(), l.stride());
  if (!off)
    return makeError("evaluating " + toString(l) + " at " + toString(coord) +
                     ": " + off.message());
  return off;
}

Expected<int64_t> evaluateUnbounded(const Layout &l, int64_t idx) {
  if (idx < 0)
    return makeError("index " + std::to_string(idx) + " is negative");
  std::vector<int64_t> s = leaves(l.shape()), d = leaves(l.stride());
  int64_t off = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    bool last = i + 1 == s.size();
    int64_t c = last ? idx : idx % s[i], term;
    if (!mulOk(c, d[i], term) || !addOk(off, term, off))
      return makeError("evaluating " + toString(l) + " at " +
                       std::to_string(idx) + " overflows int64");
    idx = last ? 0 : idx / s[i];
  }
  return off;
}

} // namespace argus::layout
