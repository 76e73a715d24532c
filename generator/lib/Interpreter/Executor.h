//===- Executor.h - runs the ops of one program instance -------*- C++ -*-===//
//
// The Executor holds the state of one program instance (its SSA values, its
// buffers, its queue of in-flight async copies) and walks the kernel body
// op by op, running each op for all threads before the next (lockstep).
// Control flow (scf.for / scf.if / scf.yield / func.return) is evaluated
// here; the ops themselves are evaluated by one file per family:
//
//   ArithEval.cpp   arith on scalars
//   TileEval.cpp    ids, shapes and tile computation (mma, binary, reduce...)
//   MemoryEval.cpp  global loads/stores, buffers, async copies, barriers
//
// Each evaluator returns std::nullopt for ops that are not its own, so the
// Executor can report an unsupported op by name and location.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_INTERPRETER_EXECUTOR_H
#define ARGUS_LIB_INTERPRETER_EXECUTOR_H

#include "Value.h"

#include "argus/Interpreter/Interpreter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace argus::interp::detail {

/// One async copy between its issue and its completion: the element writes it
/// will perform (the source was read when it was issued), and for observers
/// the copy and the slot each thread wrote.
struct PendingCopy {
  struct Write {
    Buffer *buffer;
    int64_t physical;
    Elem value;
  };
  std::vector<Write> writes;
  mlir::Operation *op = nullptr;
  std::vector<std::pair<unsigned, llvm::SmallVector<int64_t, 4>>> slots; // (thread, slot)
};

class Executor {
public:
  /// `numThreads` threads per program instance; `gridFunction` when running a
  /// kernel's grid function (where ids of the instance are meaningless).
  Executor(int64_t numThreads, bool gridFunction)
      : numThreads(numThreads), gridFunction(gridFunction) {}

  //===--- Set by the driver ---------------------------------------------===//
  const int64_t numThreads;
  const bool gridFunction;
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> programId{0, 0, 0};

  /// Forgets everything of the previous program instance.
  void resetInstance();
  /// Binds an SSA value (a block argument, a result).
  void set(mlir::Value v, RtValue value) { env[v] = std::move(value); }

  /// Runs the ops of `block` in order and stores the values its terminator
  /// passes on (scf.yield / func.return) in `results`.
  mlir::LogicalResult runBlock(mlir::Block &block, llvm::SmallVectorImpl<RtValue> &results);

  //===--- For the op evaluators -----------------------------------------===//
  const RtValue &get(mlir::Value v) const;
  Elem scalar(mlir::Value v, unsigned thread) const;
  const Tile &tile(mlir::Value v, unsigned thread) const;
  Buffer *buffer(mlir::Value v, unsigned thread) const;
  const TensorArg &tensor(mlir::Value v, unsigned thread) const;

  /// 1 when every value in `inputs` is uniform, else numThreads: the lanes an
  /// op reading `inputs` must be evaluated for.
  unsigned lanesFor(mlir::ValueRange inputs) const;

  /// Defines `result` by calling `fn(thread)` for each lane in lanesFor(inputs).
  mlir::LogicalResult define(mlir::Value result, mlir::ValueRange inputs,
                             llvm::function_ref<mlir::FailureOr<Lane>(unsigned)> fn);
  /// Calls `fn(thread)` for each lane in lanesFor(inputs) (ops without results).
  mlir::LogicalResult forEachLane(mlir::ValueRange inputs,
                                  llvm::function_ref<mlir::LogicalResult(unsigned)> fn);

  /// Records "file:line:col: message" and returns failure.
  mlir::LogicalResult fail(mlir::Operation *op, const llvm::Twine &message);
  /// The value of scalar `v`, which control flow needs equal in all threads;
  /// fails with "divergent control flow at ..." when it is not.
  mlir::FailureOr<Elem> uniformScalar(mlir::Operation *op, mlir::Value v, llvm::StringRef what);

  /// Set while one thread runs alone through a divergent scf.if: every op
  /// then evaluates that thread's lane only, and defines uniform values.
  std::optional<unsigned> soleThread;

  std::string error;

  //===--- Observation ---------------------------------------------------===//
  RunObserver *observer = nullptr;
  /// The value of `v` if it is defined now, else null.
  const RtValue *find(mlir::Value v) const {
    auto it = env.find(v);
    return it == env.end() ? nullptr : &it->second;
  }
  /// What an observer is told about `thread` of this instance.
  ObservedContext context(unsigned thread) const;
  /// The threads lane `lane` of an op reading `inputs` stands for: all of
  /// them when the inputs are uniform, else just `lane`.
  void forThreadsOfLane(mlir::ValueRange inputs, unsigned lane,
                        llvm::function_ref<void(unsigned)> fn) const;
  /// Offsets of a buffer_load / buffer_store `view` within the slot, for
  /// `n` elements (computed once per op).
  const std::vector<int64_t> &viewOffsets(mlir::Operation *op, mlir::Attribute view, int64_t n);

  //===--- Memory of the program instance --------------------------------===//
  std::vector<std::unique_ptr<Buffer>> buffers;
  std::deque<PendingCopy> pendingCopies; // oldest first
  std::deque<TensorArg> segments;        // the views argus.segment made (stable addresses)

private:
  mlir::LogicalResult execute(mlir::Operation *op);
  mlir::LogicalResult runFor(mlir::scf::ForOp op);
  mlir::LogicalResult runIf(mlir::scf::IfOp op);
  void observeAssertTag(AssertTagOp op);

  llvm::DenseMap<mlir::Value, RtValue> env;
  std::map<mlir::Operation *, std::vector<int64_t>> viewTables; // stable references
};

/// Evaluators of one family of ops each; std::nullopt when `op` is not theirs.
std::optional<mlir::LogicalResult> evalArithOp(Executor &ex, mlir::Operation *op);
std::optional<mlir::LogicalResult> evalTileOp(Executor &ex, mlir::Operation *op);
std::optional<mlir::LogicalResult> evalMemoryOp(Executor &ex, mlir::Operation *op);

/// Element type of a scalar or tile type (tiles: their element type).
std::optional<ElemType> elemTypeOf(mlir::Type type);

} // namespace argus::interp::detail

#endif // ARGUS_LIB_INTERPRETER_EXECUTOR_H
