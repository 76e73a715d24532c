//===- Swizzle.h - CuTe's Swizzle<B,M,S> and swizzled layouts -------------===//
//
// Why this file exists: shared-memory layouts of GEMM and attention kernels
// are XOR-swizzled to avoid bank conflicts; the verifier must evaluate them
// exactly as CuTe does.
//
//   0bxxxxxxxxxxxxxxxYYYxxxxxxxZZZxxxx
//                                 ^--^ M: the number of least-significant bits
//                                         kept constant
//                    ^-^       ^-^     B: the number of bits in the mask
//                      ^---------^     S: the distance to shift the YYY mask
//                                         (S > 0 shifts YYY right onto ZZZ,
//                                          S < 0 shifts it left)
//
//   yyyMask = ((1<<B)-1) << (M + max(0,S))
//   zzzMask = ((1<<B)-1) << (M - min(0,S))
//   apply(o) = o ^ shiftRight(o & yyyMask, S)      (a negative S shifts left)
//
//   Sw<3,3,3>: yyyMask = 0b111'000'000 = 448, zzzMask = 0b111'000 = 56;
//   apply(8) = 8, apply(64) = 64 ^ 8 = 72, apply(72) = 64,
//   apply(520) = 520 ^ ((520 & 448) >> 3) = 520.
// With |S| >= B the masks do not overlap and apply is an involution.
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_SWIZZLE_H
#define ARGUS_LAYOUT_SWIZZLE_H

#include "argus/Layout/Layout.h"

namespace argus::layout {

class Swizzle {
public:
  int bits() const { return b_; }
  int base() const { return m_; }
  int shift() const { return s_; }
  int64_t yyyMask() const;
  int64_t zzzMask() const;
  /// The swizzled offset. @pre offset >= 0
  int64_t operator()(int64_t offset) const;

  bool operator==(const Swizzle &o) const {
    return b_ == o.b_ && m_ == o.m_ && s_ == o.s_;
  }

private:
  friend Expected<Swizzle> makeSwizzle(int b, int m, int s);
  Swizzle(int b, int m, int s) : b_(b), m_(m), s_(s) {}
  // Invariant: b >= 0, m >= 0, |s| >= b, and both masks lie within bits
  // [0, 62] so that apply never overflows.
  int b_, m_, s_;
};

/// The checked constructor.
///   makeSwizzle(3,3,3) prints "Sw<3,3,3>"
///   makeSwizzle(3,3,2) -> error "expected |S| >= B, found B=3 S=2"
Expected<Swizzle> makeSwizzle(int b, int m, int s);
/// Parse "Sw<B,M,S>".
Expected<Swizzle> parseSwizzle(std::string_view text);
std::string toString(const Swizzle &sw);
std::ostream &operator<<(std::ostream &os, const Swizzle &sw);

/// swizzle o layout: offset(i) = swizzle(layout(i)) (CuTe's ComposedLayout
/// with a zero offset).
///   "Sw<3,3,3> o (8,64):(64,1)"
struct ComposedLayout {
  Swizzle swizzle;
  Layout layout;
};

/// @pre the layout's offsets are non-negative (checked: error otherwise).
Expected<ComposedLayout> makeComposedLayout(const Swizzle &sw,
                                            const Layout &layout);
std::string toString(const ComposedLayout &cl);
std::ostream &operator<<(std::ostream &os, const ComposedLayout &cl);
int64_t size(const ComposedLayout &cl);
/// swizzle(layout(idx)), idx in [0, size).
///   evaluate(Sw<3,3,3> o (8,64):(64,1), 65) = swizzle(1*64 + 8) = swizzle(72) = 64
Expected<int64_t> evaluate(const ComposedLayout &cl, int64_t idx);
/// swizzle(layout(coord)).
Expected<int64_t> evaluate(const ComposedLayout &cl, const IntTuple &coord);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_SWIZZLE_H
