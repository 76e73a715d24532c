//===- IntTuple.cpp - Hierarchical integer tuples -------------------------===//
//
// Printing, parsing (a small recursive-descent parser with offset-accurate
// diagnostics) and structural queries of IntTuple.
//===----------------------------------------------------------------------===//
#include "argus/Layout/IntTuple.h"

#include <cassert>
#include <limits>
#include <sstream>

namespace argus::layout {

static void print(std::string &out, const IntTuple &t) {
  if (t.isInt()) {
    out += std::to_string(t.value());
    return;
  }
  out += '(';
  for (size_t i = 0; i < t.elems().size(); ++i) {
    if (i)
      out += ',';
    print(out, t.elems()[i]);
  }
  out += ')';
}

std::string toString(const IntTuple &t) {
  std::string out;
  print(out, t);
  return out;
}

std::ostream &operator<<(std::ostream &os, const IntTuple &t) {
  return os << toString(t);
}

namespace {
constexpr int kMaxParseDepth = 64;

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  Expected<IntTuple> parseTop() {
    ARGUS_TRY(t, parse(0));
    skipSpace();
    if (pos_ != text_.size())
      return fail("end of input");
    return t;
  }

private:
  std::string_view text_;
  size_t pos_ = 0;

  void skipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n'))
      ++pos_;
  }
  std::string found() const {
    if (pos_ >= text_.size())
      return "end of input";
    return std::string("'") + text_[pos_] + "'";
  }
  LayoutError fail(const std::string &expected) const {
    return makeError("expected " + expected + " at offset " +
                     std::to_string(pos_) + ", found " + found());
  }

  Expected<IntTuple> parse(int level) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      if (level >= kMaxParseDepth)
        return makeError("IntTuple nested deeper than " +
                         std::to_string(kMaxParseDepth) + " levels at offset " +
                         std::to_string(pos_));
      ++pos_;
      std::vector<IntTuple> elems;
      while (true) {
        ARGUS_TRY(e, parse(level + 1));
        elems.push_back(std::move(e));
        skipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == ')') {
          ++pos_;
          return IntTuple::tuple(std::move(elems));
        }
        return fail("',' or ')'");
      }
    }
    return parseInt();
  }

  Expected<IntTuple> parseInt() {
    size_t start = pos_;
    bool negative = false;
    if (pos_ < text_.size() && text_[pos_] == '-') {
      negative = true;
      ++pos_;
    }
    if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') {
      pos_ = start;
      return fail("integer or '('");
    }
    // Accumulate as a negative number so that INT64_MIN parses.
    int64_t acc = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      int64_t digit = text_[pos_] - '0';
      if (acc < (std::numeric_limits<int64_t>::min() + digit) / 10)
        return makeError("integer at offset " + std::to_string(start) +
                         " does not fit in int64");
      acc = acc * 10 - digit;
      ++pos_;
    }
    if (!negative) {
      if (acc == std::numeric_limits<int64_t>::min())
        return makeError("integer at offset " + std::to_string(start) +
                         " does not fit in int64");
      acc = -acc;
    }
    return IntTuple(acc);
  }
};
} // namespace

Expected<IntTuple> parseIntTuple(std::string_view text) {
  return Parser(text).parseTop();
}

int rank(const IntTuple &t) {
  return t.isInt() ? 1 : static_cast<int>(t.elems().size());
}

int depth(const IntTuple &t) {
  if (t.isInt())
    return 0;
  int d = 0;
  for (const IntTuple &e : t.elems())
    d = std::max(d, depth(e));
  return d + 1;
}

const IntTuple &mode(const IntTuple &t, int i) {
  assert(i >= 0 && i < rank(t) && "mode index out of range");
  return t.isInt() ? t : t.elems()[i];
}

Expected<int64_t> product(const IntTuple &t) {
  if (t.isInt())
    return t.value();
  int64_t p = 1;
  for (const IntTuple &e : t.elems()) {
    ARGUS_TRY(v, product(e));
    if (__builtin_mul_overflow(p, v, &p))
      return makeError("product of " + toString(t) + " overflows int64");
  }
  return p;
}

static void collect(const IntTuple &t, std::vector<int64_t> &out) {
  if (t.isInt()) {
    out.push_back(t.value());
    return;
  }
  for (const IntTuple &e : t.elems())
    collect(e, out);
}

std::vector<int64_t> leaves(const IntTuple &t) {
  std::vector<int64_t> out;
  collect(t, out);
  return out;
}

IntTuple flatten(const IntTuple &t) {
  if (t.isInt())
    return t;
  std::vector<IntTuple> elems;
  for (int64_t v : leaves(t))
    elems.emplace_back(v);
  return IntTuple::tuple(std::move(elems));
}

bool congruent(const IntTuple &a, const IntTuple &b) {
  if (a.isInt() || b.isInt())
    return a.isInt() && b.isInt();
  if (a.elems().size() != b.elems().size())
    return false;
  for (size_t i = 0; i < a.elems().size(); ++i)
    if (!congruent(a.elems()[i], b.elems()[i]))
      return false;
  return true;
}

bool weaklyCongruent(const IntTuple &a, const IntTuple &b) {
  if (a.isInt())
    return true;
  if (b.isInt() || a.elems().size() != b.elems().size())
    return false;
  for (size_t i = 0; i < a.elems().size(); ++i)
    if (!weaklyCongruent(a.elems()[i], b.elems()[i]))
      return false;
  return true;
}

IntTuple repeatLike(const IntTuple &like, int64_t value) {
  if (like.isInt())
    return value;
  std::vector<IntTuple> elems;
  for (const IntTuple &e : like.elems())
    elems.push_back(repeatLike(e, value));
  return IntTuple::tuple(std::move(elems));
}

IntTuple unwrap(IntTuple t) {
  while (t.isTuple() && t.elems().size() == 1) {
    IntTuple inner = t.elems()[0];
    t = std::move(inner);
  }
  return t;
}

} // namespace argus::layout
