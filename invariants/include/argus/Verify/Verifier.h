//===- Verifier.h - prove the data-flow invariants of a kernel --*- C++ -*-===//
//
// The verifier symbolically executes one argus kernel for an arbitrary
// program instance, thread, loop iteration and symbolic shape, propagating
// tags by abstract interpretation (per element: unwritten ⊥, a symbolic
// tuple, untagged, or unknown ⊤; memory flow-sensitive per buffer slot), and
// asks Z3 whether each tag assertion and each built-in property can fail.
// `unsat` is a proof; `sat` gives a model that becomes a Finding with a
// concrete counterexample, which is then replayed in the interpreter.
//
// Example:
//   argus::verify::VerifyOptions options;
//   argus::verify::VerifyResult r = argus::verify::verifyKernel(kernel, options);
//   if (!r.proved()) llvm::errs() << argus::verify::formatResult(r);
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_VERIFY_VERIFIER_H
#define ARGUS_VERIFY_VERIFIER_H

#include "argus/Verify/Finding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace argus::verify {

struct VerifyOptions {
  bool tagAssertions = true;
  bool uninitializedReads = true;
  bool inBounds = true;
  bool races = true;          // includes async-copy races
  bool writeOnce = true;      // double writes and unwritten outputs
  enum class BankMode { Off, Warn, Error } bankConflicts = BankMode::Warn;
  /// Replay every counterexample in the interpreter.
  bool replay = true;
  /// Earlier loop iterations whose writes are tracked exactly; writes older
  /// than that reach a read as ⊤ (a failure, never a silent pass).
  int loopWindow = 4;
  /// Z3's work limit per query, in its resource units (rlimit). Deterministic:
  /// a kernel proved on one machine is proved on any other, however loaded.
  /// The shipped templates' heaviest query takes about 23 million (some 6 s
  /// on a 2-core EPYC). Reaching it is reported as not decided, never taken
  /// as a proof. 0: no limit.
  unsigned queryResourceLimit = 100'000'000;
  /// Wall-clock limit per query: a backstop only, so that no query runs
  /// for ever; the resource limit is the one that decides.
  unsigned queryTimeoutMs = 600'000;
  /// Symbolic sizes range over [1, maxSize]; index terms are 32-bit
  /// bit-vectors, so tile offsets stay far from wrap-around.
  int64_t maxSize = int64_t(1) << 20;
};

struct KernelReport {
  std::string kernel;           // function name
  std::vector<Finding> findings;
  int queries = 0;              // Z3 queries asked
  int proved = 0;               // of which unsat
  double seconds = 0;           // wall time of the verification
  bool proved_all() const;      // no finding of Error severity
};

struct VerifyResult {
  std::vector<KernelReport> kernels;
  bool proved() const;
};

/// Verifies one kernel (a func.func with `argus.kernel`).
KernelReport verifyKernel(mlir::func::FuncOp kernel, const VerifyOptions &options = {});
/// Verifies every kernel of a module.
VerifyResult verifyModule(mlir::ModuleOp module, const VerifyOptions &options = {});

/// Readable report: one block per finding, or "proved" per kernel.
std::string formatResult(const VerifyResult &result);
/// The whole result as a JSON document.
std::string resultToJson(const VerifyResult &result);

} // namespace argus::verify

#endif // ARGUS_VERIFY_VERIFIER_H
