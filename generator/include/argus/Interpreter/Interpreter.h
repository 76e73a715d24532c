//===- Interpreter.h - reference semantics of argus kernels -----*- C++ -*-===//
//
// The interpreter runs an argus kernel on host memory with exact semantics:
// every program instance of the grid and, for thread-level kernels
// (`argus.threads` = T > 1), every thread. It is the reference the backends
// are tested against and the machine the verifier replays counterexamples on,
// so it models what the IR says rather than what is fast:
//
//   * Threads of one program instance run in lockstep: each op runs for all T
//     threads before the next, and every SSA value holds T per-thread values
//     (stored once when all threads agree). `argus.barrier` is therefore
//     exact. Control flow must be uniform across the threads of an instance;
//     a divergent `scf.if` / `scf.for` is reported, not guessed at.
//   * `shared` buffers are one per program instance, `local` ones one per
//     thread; buffer layouts and swizzles are applied, so aliasing layouts
//     behave as the hardware would. Fresh buffers hold poison (NaN, or the
//     most negative integer).
//   * `argus.copy async` writes its slot only at the `argus.wait N` that
//     leaves at most N younger copies in flight; a `buffer_load` before that
//     reads the old contents. The source is read when the copy is issued.
//   * Global loads and copies are masked (out-of-bounds elements read the
//     padding / zero), global stores skip out-of-bounds elements. An access
//     marked `unmasked` that touches an out-of-bounds element is an error
//     naming the op, the tensor, the element and the bounds.
//   * A buffer_load / buffer_store with a `view` addresses its slot through
//     the view: element i of the slot is at storage[slot base + view(i)].
//   * Numerics: each element is a double internally and every op's result is
//     rounded to its element type (f32 by a cast, bf16/f16 through f32 with
//     the shared argus_numerics.h conversion, f8E4M3FN by APFloat); `mma`
//     sums the K products in double, adds the accumulator and rounds once;
//     `reduce` accumulates in double and rounds once. Integers wrap at their
//     bit width.
//   * Tag ops (`argus.tag`, `argus.assert_tag`, `argus.reset_tags`) have no
//     run-time effect and are skipped with their regions; a RunObserver sees
//     the operands of every `argus.assert_tag` (the verifier's counterexample
//     replay decodes them itself).
//
// Nothing here throws or aborts on a bad kernel or bad arguments: every
// problem comes back as an llvm::Error whose message names the op's
// file:line:col and says what was expected and what was found.
//
// Example:
//   std::vector<KernelArg> args = {tensorA, tensorB, tensorC, ScalarArg{1.0}};
//   if (llvm::Error e = argus::interp::runKernel(kernel, args))
//     llvm::errs() << llvm::toString(std::move(e)) << "\n";
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_INTERPRETER_INTERPRETER_H
#define ARGUS_INTERPRETER_INTERPRETER_H

#include "cpu/argus_cpu_abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace argus::interp {

/// A scalar kernel argument: `f` for f16/bf16/f32/f64 parameters (rounded to
/// the parameter's type), `i` for integer and index parameters (wrapped to
/// the parameter's width).
struct ScalarArg {
  double f = 0;
  int64_t i = 0;
};

/// A host tensor argument: its element type comes from the kernel signature;
/// `data`, `shape` and element `stride` (first `rank` entries used) from the
/// CPU calling convention. bf16/f16 elements are uint16_t, f8E4M3FN uint8_t,
/// i1 one byte (0 or 1).
using KernelArg = std::variant<argus_cpu_tensor, ScalarArg>;

/// Where an observed event happens: the program instance, the thread, and
/// the thread's view of the scalars defined so far.
struct ObservedContext {
  std::array<int64_t, 3> programId;
  unsigned thread;
  /// Value of an integer/index SSA value (e.g. an scf.for induction variable)
  /// as this thread sees it now; nullopt if not defined (or not an
  /// integer/index scalar). Valid only during the callback.
  std::function<std::optional<int64_t>(mlir::Value)> scalarValue;
};

/// Watches a run, for the verifier's counterexample replay. Every callback is
/// made once per thread of the program instance (threads in order), also
/// when all threads hold the same values. Callbacks must not throw.
class RunObserver {
public:
  virtual ~RunObserver() = default;
  /// At every argus.assert_tag, per thread: the operands' element values
  /// (row-major, as doubles exactly as the interpreter holds them: floats as
  /// rounded, integers by their signed value, i1 as 0 / 1) and shapes
  /// (scalars: one value, empty shape; tensors / buffers: no values, empty
  /// shape).
  virtual void onAssertTag(mlir::Operation *assertTagOp, const ObservedContext &ctx,
                           llvm::ArrayRef<std::vector<double>> operandValues,
                           llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> operandShapes) {}
  /// At every global store, per thread: the tile offsets and shape it writes
  /// (before masking).
  virtual void onStore(mlir::Operation *storeOp, const ObservedContext &ctx,
                       llvm::ArrayRef<int64_t> offsets, llvm::ArrayRef<int64_t> shape) {}
  /// At every buffer access (buffer_load, buffer_store, copy into a buffer —
  /// for async copies at issue AND at completion, where `op` is the copy and
  /// `ctx` is taken at the retiring argus.wait), per thread. `slot` holds the
  /// leading indices that select the slot.
  virtual void onBufferAccess(mlir::Operation *op, const ObservedContext &ctx, bool write,
                              bool asyncCompletion, llvm::ArrayRef<int64_t> slot) {}
  /// After every buffer_load, per thread: the slot and the values read
  /// (row-major, as doubles; a never-written element reads poison: NaN, or
  /// the most negative integer).
  virtual void onBufferLoad(mlir::Operation *op, const ObservedContext &ctx,
                            llvm::ArrayRef<int64_t> slot, llvm::ArrayRef<double> values) {}
  /// At the start of every program instance.
  virtual void onInstance(const std::array<int64_t, 3> &programId) {}
};

struct RunOptions {
  /// Runs only the first `maxInstances` program instances (axis 0 fastest,
  /// then axis 1, then axis 2); -1 runs the whole grid. For tests.
  int64_t maxInstances = -1;
  /// Runs just this program instance (overrides maxInstances); an instance
  /// outside the grid is an error.
  std::optional<std::array<int64_t, 3>> onlyInstance;
  /// Told about tags, stores, buffer accesses and instances; not owned.
  RunObserver *observer = nullptr;
};

/// Runs `kernel` (a func.func with `argus.kernel`) on `args`, given in
/// signature order. Checks the arguments against the signature (count, kind,
/// tensor rank, static dims) before running anything.
llvm::Error runKernel(mlir::func::FuncOp kernel, llvm::ArrayRef<KernelArg> args,
                      const RunOptions &options = {});

/// Evaluates the grid function named by `kernel`'s `argus.grid` attribute on
/// `args` (the kernel's arguments); returns the grid sizes along axes 0,1,2.
llvm::Expected<std::array<int64_t, 3>> evaluateGrid(mlir::func::FuncOp kernel,
                                                     llvm::ArrayRef<KernelArg> args);

/// `file:line:col` of the first file location inside `loc`, or its printed
/// form when it has none. Used in every diagnostic of the interpreter.
std::string formatLocation(mlir::Location loc);

} // namespace argus::interp

#endif // ARGUS_INTERPRETER_INTERPRETER_H
