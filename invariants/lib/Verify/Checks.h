//===- Checks.h - properties as Z3 queries ----------------------*- C++ -*-===//
//
// Each property becomes one query per event (or pair of events) asking Z3
// for a violation: `unsat` proves it, `sat` gives a model that Counterexample
// turns into a Finding, `unknown` (timeout) is reported as such.
//
//   tag assertions      an operand element not tagged, a named field missing,
//                       or the predicate false
//   uninitialized read  a buffer element no write reaches
//   bounds              slot index outside the buffer; unmasked access
//                       reaching outside the tensor
//   races               two threads, one slot, one barrier interval, a write;
//                       or a slot touched while an async copy into it flies
//   write once          two store instances on one in-bounds element; an
//                       in-bounds element no store instance covers (a
//                       quantified query)
//   bank conflicts      two lanes of a warp, same access, same bank,
//                       different words
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_VERIFY_CHECKS_H
#define ARGUS_LIB_VERIFY_CHECKS_H

#include "Executor.h"

namespace argus::verify::detail {

/// Renames every instance variable, for the second side of a pair query.
struct Renaming {
  z3::expr_vector from, to;
  explicit Renaming(SymContext &ctx) : from(ctx.z3), to(ctx.z3) {}
  z3::expr operator()(const z3::expr &e) const { return from.empty() ? e : z3::expr(e).substitute(from, to); }
};

class Checker {
public:
  Checker(Executor &ex, KernelReport &report) : ex(ex), ctx(ex.ctx), report(report) {}
  void runAll();

private:
  void checkAssertions();
  void checkUninitializedReads();
  void checkBounds();
  void checkRaces();
  void checkWriteOnce();
  void checkBankConflicts();
  /// Index terms must fit the bit-vector model: a wrap would be unsound.
  void checkIndexWidth();
  /// Every thread of an instance reaches each barrier instance, or none does.
  void checkBarriers();
  /// In Coverage.cpp: the kernel's reference names outputs no op stores to.
  void checkOutputsStored();
  /// In Coverage.cpp: an in-bounds element of `tensor` no store covers.
  void checkUnwritten(int tensor, const std::vector<GlobalAccessEvent *> &stores);
  /// A few rounds of "an in-bounds c that no witness in `q` covers"; true when
  /// decided (proved, or a counterexample reported), false when undecided.
  bool searchUnwritten(std::vector<z3::expr> q, const TensorInfo &t, const std::vector<z3::expr> &c,
                       const std::vector<GlobalAccessEvent *> &stores);

  /// A renaming of all instance variables (or only the thread's).
  Renaming secondInstance(bool onlyThread = false);
  /// Asks for a violation; the model when one exists (preferring small sizes). `bitBlast` picks a
  /// bit-blasting strategy (for equivalences of index arithmetic).
  std::optional<z3::model> violation(const std::vector<z3::expr> &constraints, bool quantified,
                                     mlir::Operation *op, CheckKind kind, bool bitBlast = false);
  std::vector<z3::expr> base(const Renaming *second);
  /// A finding of `kind` with the model's sizes.
  Finding finding(CheckKind kind, const z3::model &model);

  Executor &ex;
  SymContext &ctx;
  KernelReport &report;
};

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_CHECKS_H
