//===- IntTuple.h - Hierarchical integer tuples (CuTe's IntTuple) ---------===//
//
// Why this file exists: shapes, strides and coordinates of CuTe-style layouts
// are IntTuples: an integer, or a tuple of IntTuples. This file holds the
// type, its printing/parsing, and the structural queries the algebra needs.
//
//   tup(4, tup(2, 8))             prints "(4,(2,8))"
//   rank("(4,(2,8))") = 2         depth("(4,(2,8))") = 2     depth(4) = 0
//   product("(4,(2,8))") = 64     flatten("(4,(2,8))") = "(4,2,8)"
//   congruent("(4,(2,8))", "(16,(1,2))") = true
//   weaklyCongruent("(4,5)", "((2,2),5)") = true   (an integer matches any
//                                                  sub-tuple of the right)
//
// Dynamic (run-time) values only: there is no static/dynamic distinction as
// in CuTe, every integer is an int64_t.
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_INTTUPLE_H
#define ARGUS_LAYOUT_INTTUPLE_H

#include "argus/Layout/Expected.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace argus::layout {

class IntTuple {
public:
  /// An integer leaf (implicit, so that `IntTuple t = 4;` works).
  IntTuple(int64_t value) : isLeaf_(true), value_(value) {}
  IntTuple(int value) : IntTuple(static_cast<int64_t>(value)) {}
  /// A tuple of the given elements (possibly of rank 1; rank 0 is allowed
  /// only as an intermediate and is never produced by parsing).
  static IntTuple tuple(std::vector<IntTuple> elems) {
    IntTuple t(0);
    t.isLeaf_ = false;
    t.elems_ = std::move(elems);
    return t;
  }

  bool isInt() const { return isLeaf_; }
  bool isTuple() const { return !isLeaf_; }
  /// @pre isInt()
  int64_t value() const { return value_; }
  /// @pre isTuple()
  const std::vector<IntTuple> &elems() const { return elems_; }
  std::vector<IntTuple> &elems() { return elems_; }

  bool operator==(const IntTuple &other) const {
    return isLeaf_ == other.isLeaf_ &&
           (isLeaf_ ? value_ == other.value_ : elems_ == other.elems_);
  }
  bool operator!=(const IntTuple &other) const { return !(*this == other); }

private:
  // Invariant: when isLeaf_, elems_ is empty; otherwise value_ is unused.
  bool isLeaf_;
  int64_t value_ = 0;
  std::vector<IntTuple> elems_;
};

/// Build a tuple from its elements: tup(4, tup(2, 8)) is (4,(2,8)).
template <typename... Ts> IntTuple tup(Ts... elems) {
  return IntTuple::tuple(std::vector<IntTuple>{IntTuple(elems)...});
}

/// "(4,(2,8))"; an integer prints as itself: "7", "-3".
std::string toString(const IntTuple &t);
std::ostream &operator<<(std::ostream &os, const IntTuple &t);

/// Parse the printed form. Whitespace is allowed between tokens.
///   parseIntTuple("(4, (2,8))") = (4,(2,8))
///   parseIntTuple("(4,")  -> error "expected integer or '(' at offset 3, found end of input"
/// Integers must fit int64; nesting is limited to 64 levels.
Expected<IntTuple> parseIntTuple(std::string_view text);

/// Number of top-level modes: 1 for an integer, #elems for a tuple.
int rank(const IntTuple &t);
/// 0 for an integer, 1 + max depth of the elements for a tuple.
int depth(const IntTuple &t);
/// Mode i (an integer is its own only mode). @pre 0 <= i < rank(t)
const IntTuple &mode(const IntTuple &t, int i);
/// Product of all leaves; an error if it overflows int64.
Expected<int64_t> product(const IntTuple &t);
/// The leaves, depth-first left to right, as a tuple: flatten((4,(2,8))) =
/// (4,2,8); flatten(7) = 7 (an integer stays an integer).
IntTuple flatten(const IntTuple &t);
/// The leaves as a vector: leaves((4,(2,8))) = {4,2,8}.
std::vector<int64_t> leaves(const IntTuple &t);
/// Same tree structure (leaf values ignored).
bool congruent(const IntTuple &a, const IntTuple &b);
/// `a` is a coarsening of `b`: wherever a has an integer, b may have any
/// sub-tree; wherever a has a tuple, b has a tuple of the same rank.
bool weaklyCongruent(const IntTuple &a, const IntTuple &b);
/// A tuple with the structure of `like` and every leaf equal to `value`.
IntTuple repeatLike(const IntTuple &like, int64_t value);
/// Rank-1 tuples are unwrapped: (x) -> x, recursively at the top.
IntTuple unwrap(IntTuple t);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_INTTUPLE_H
