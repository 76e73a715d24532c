//===- Symbolic.h - the verifier's symbolic values and Z3 context -*- C++ -*-===//
//
// Everything the symbolic executor computes is a Z3 term over a small set of
// variables:
//
//   launch variables    symbolic sizes ("M") and integer scalar arguments,
//                       shared by every program instance of one launch;
//   instance variables  program ids, the thread id, loop induction
//                       variables, tile element coordinates and free choices,
//                       renamed when a query needs two instances (races,
//                       double writes).
//
// Integers are 64-bit bit-vectors (index, i64) or of their own width (i32);
// i1 is a Z3 Bool. A tag is a TagExpr: a 2-bit state (unwritten ⊥, tagged,
// untagged, unknown ⊤), the id of the tag function it came from, and up to
// `numFields` 64-bit fields. A tile's tag is a TileTag: a TagExpr over the
// tile's own coordinate variables, instantiated at any coordinates by
// substitution.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_VERIFY_SYMBOLIC_H
#define ARGUS_LIB_VERIFY_SYMBOLIC_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <z3++.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace argus::verify::detail {

constexpr unsigned kIndexBits = 32; // sizes <= VerifyOptions::maxSize keep index terms far from wrap-around

enum class TagState : unsigned { Unwritten = 0, Tagged = 1, Untagged = 2, Unknown = 3 };

/// What a variable stands for, to name it in a counterexample.
enum class VarRole { Size, Scalar, ProgramId, Thread, LoopIndex, Element, Choice };

struct VarInfo {
  z3::expr var;
  VarRole role;
  std::string name; // "M", "pid0", "kt", "e0"
  bool instance;    // renamed per instance in two-sided queries
};

/// The Z3 context, the variables and the tag shape of one verification.
class SymContext {
public:
  SymContext();

  z3::context z3;
  unsigned numFields = 1; // max arity of the kernel's tag functions

  z3::expr index(int64_t v) { return z3.bv_val(v, kIndexBits); }
  z3::expr bv(int64_t v, unsigned bits) { return z3.bv_val(v, bits); }
  /// A fresh variable of `bits` bits (0: Bool).
  z3::expr fresh(const std::string &name, unsigned bits, VarRole role, bool instance);
  /// An unknown value made at `position` (loop indices, thread, program ids,
  /// maybe element coordinates): a fresh uninterpreted function applied to
  /// it, so every iteration, thread and element gets its own value, also
  /// where earlier iterations are replayed by substitution.
  z3::expr choice(const std::string &name, unsigned bits, const std::vector<z3::expr> &position);
  const std::vector<VarInfo> &vars() const { return vars_; }
  const VarInfo *lookup(const z3::expr &var) const;

  /// Tag constructors.
  struct TagExpr unwritten();
  struct TagExpr untagged();
  struct TagExpr unknown();
  z3::expr state(TagState s) { return z3.bv_val(static_cast<unsigned>(s), 2); }

private:
  std::vector<VarInfo> vars_;
  int counter_ = 0;
};

struct TagExpr {
  z3::expr state;               // BV2 TagState
  z3::expr origin;              // BV16 index into Execution::tagFunctions
  std::vector<z3::expr> fields; // numFields BV64

  TagExpr substitute(const z3::expr_vector &from, const z3::expr_vector &to) const;
};

/// ite(c, a, b) field by field.
TagExpr iteTag(const z3::expr &c, const TagExpr &a, const TagExpr &b);

/// A tile's tag as a function of its element coordinates.
struct TileTag {
  std::vector<z3::expr> coords; // parameters, one per dim
  TagExpr body;

  TagExpr at(const std::vector<z3::expr> &where) const;
};

/// The elements of an integer or i1 tile the verifier can name (iotas, sizes
/// and comparisons of them: attention's masks): a term over the tile's own
/// coordinate variables (a Bool for i1, else a kIndexBits bit-vector).
struct TileTerm {
  std::vector<z3::expr> coords;
  z3::expr body;

  z3::expr at(const std::vector<z3::expr> &where) const;
};

/// A tag function (`argus.tag` on a tensor or buffer): what it tags, its
/// field names and the fields as terms over its parameters. Its index in
/// Execution::tagFunctions is the `origin` of the tags it gives.
struct TagFunction {
  std::string target;
  std::vector<std::string> names;
  std::vector<z3::expr> params;
  std::vector<z3::expr> fields;
};

/// The symbolic value of one SSA value.
struct SymValue {
  enum class Kind { Opaque, Int, Bool, Tile, Buffer, Tensor } kind = Kind::Opaque;
  std::optional<z3::expr> term; // Int (bit-vector) or Bool
  std::optional<TileTag> tile;
  std::vector<int64_t> shape;   // tiles
  int ref = -1;                 // buffer id / tensor argument index
  std::optional<TileTerm> elements; // tiles whose element values are known terms
};

/// An enclosing loop during execution.
struct LoopFrame {
  mlir::Operation *op;
  std::string name;
  z3::expr iv, lb, ub, step;
  z3::expr iteration; // (iv - lb) / step
  z3::expr trips;     // number of iterations (>= 0)
};

//===--- Small helpers on bit-vector terms -------------------------------===//

z3::expr signExtendTo(const z3::expr &e, unsigned bits);
z3::expr zeroExtendTo(const z3::expr &e, unsigned bits);
z3::expr truncateTo(const z3::expr &e, unsigned bits);
/// Signed division / remainder with the dialect's x / 0 == 0, x % 0 == 0.
z3::expr sdivTotal(const z3::expr &a, const z3::expr &b);
z3::expr sremTotal(const z3::expr &a, const z3::expr &b);
z3::expr udivTotal(const z3::expr &a, const z3::expr &b);
z3::expr uremTotal(const z3::expr &a, const z3::expr &b);
z3::expr ceilDiv(const z3::expr &a, const z3::expr &b);
z3::expr floorDiv(const z3::expr &a, const z3::expr &b);
z3::expr smax(const z3::expr &a, const z3::expr &b);
z3::expr smin(const z3::expr &a, const z3::expr &b);
/// Whether `e` mentions any of `vars` (shared subterms are visited once).
bool mentionsAny(const z3::expr &e, const std::vector<z3::expr> &vars);
inline bool mentions(const z3::expr &e, const z3::expr &v) { return mentionsAny(e, {v}); }

/// Solver parameters that bound one query: `resources` of Z3's deterministic
/// work units (its rlimit; 0: none) and a wall-clock backstop of `timeoutMs`.
z3::params queryLimits(z3::context &z3, unsigned resources, unsigned timeoutMs);

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_SYMBOLIC_H
