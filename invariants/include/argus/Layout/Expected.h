//===- Expected.h - Errors as values for the layout algebra ---------------===//
//
// Why this file exists: the layout algebra runs inside the verifier on
// layouts that come from user kernels, so every operation that can fail on
// some input (a non-admissible composition, a non-injective complement, an
// int64 overflow, a malformed string) returns an Expected<T> instead of
// throwing or aborting. LayoutError carries a message that says what was
// expected and what was found, e.g.
//   "composition: (4,3):(1,10) o 6:1 is not admissible: shape 6 is not
//    divisible by 4"
//
// Using value() on an error (or error() on a value) is a programming error of
// the caller, checked by assert in debug builds.
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_EXPECTED_H
#define ARGUS_LAYOUT_EXPECTED_H

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace argus::layout {

/// A user-facing failure of a layout operation.
struct LayoutError {
  std::string message;
};

inline LayoutError makeError(std::string message) {
  return LayoutError{std::move(message)};
}

/// Either a T or a LayoutError.
template <typename T> class Expected {
public:
  Expected(T value) : storage_(std::move(value)) {}
  Expected(LayoutError error) : storage_(std::move(error)) {}

  bool ok() const { return storage_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T &value() const & {
    assert(ok() && "value() on an error");
    return std::get<0>(storage_);
  }
  T &value() & {
    assert(ok() && "value() on an error");
    return std::get<0>(storage_);
  }
  T &&value() && {
    assert(ok() && "value() on an error");
    return std::get<0>(std::move(storage_));
  }
  const T &operator*() const & { return value(); }
  T &operator*() & { return value(); }
  const T *operator->() const { return &value(); }
  T *operator->() { return &value(); }

  const LayoutError &error() const {
    assert(!ok() && "error() on a value");
    return std::get<1>(storage_);
  }
  /// The error message, or "" when this holds a value.
  std::string message() const { return ok() ? std::string() : error().message; }

private:
  std::variant<T, LayoutError> storage_;
};

/// Propagate an error out of the enclosing function returning Expected<U>.
#define ARGUS_TRY(var, expr)                                                   \
  auto var##OrErr = (expr);                                                    \
  if (!var##OrErr.ok())                                                        \
    return var##OrErr.error();                                                 \
  auto var = std::move(var##OrErr).value()

} // namespace argus::layout

#endif // ARGUS_LAYOUT_EXPECTED_H
