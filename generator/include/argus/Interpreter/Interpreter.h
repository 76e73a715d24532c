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
//     padding / zero), global stores skip out-of-bounds elements.
//   * Numerics: each element is a double internally and every op's result is
//     rounded to its element type (f32 by a cast, bf16/f16 through f32 with
//     the shared argus_numerics.h conversion, f8E4M3FN by APFloat); `mma`
//     sums the K products in double, adds the accumulator and rounds once;
//     `reduce` accumulates in double and rounds once. Integers wrap at their
//     bit width.
//   * Tag ops (`argus.tag`, `argus.assert_tag`, `argus.reset_tags`) have no
//     run-time effect and are skipped with their regions.
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
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <variant>

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

struct RunOptions {
  /// Runs only the first `maxInstances` program instances (axis 0 fastest,
  /// then axis 1, then axis 2); -1 runs the whole grid. For tests.
  int64_t maxInstances = -1;
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
