//===- Executor.h - symbolic execution of one kernel ------------*- C++ -*-===//
//
// The executor walks a kernel once for a symbolic program instance and
// thread, computing a SymValue per SSA value and recording the events the
// checks need (buffer accesses, global stores and unmasked accesses, buffer
// reads, tag assertions) with their guards: the path condition, including the
// range of every enclosing loop's induction variable.
//
// Per thread it also tracks four counters as terms: barriers executed (the
// barrier interval, "epoch"), async copies issued, async copies completed by
// a wait, and the completed count as of the last barrier.
//
// An scf.for runs three times over one symbolic iteration `iv`:
//   A. with placeholders for its iter_args and counters, to find how each
//      changes per iteration, which gives closed forms (constant, affine,
//      modular, alternating, "last iteration's value", or monotone max);
//   B. with the closed forms, to collect the body's buffer writes;
//   C. for real, with earlier iterations' writes visible through Memory's
//      window, recording events.
// Passes A and B record nothing and read buffers as unknown.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_VERIFY_EXECUTOR_H
#define ARGUS_LIB_VERIFY_EXECUTOR_H

#include "Memory.h"

#include "argus/Dialect/Argus.h"
#include "argus/Verify/Verifier.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace argus::verify::detail {

struct Counters {
  z3::expr epoch, issued, done, doneAtBarrier;
};

/// What every event records about where it happens.
struct EventContext {
  mlir::Operation *op;
  z3::expr guard;
  std::vector<LoopFrame> loops;
  Counters counters;
};

struct BufferAccessEvent {
  EventContext at;
  int buffer;
  bool write, async;
  std::vector<z3::expr> slot;
  std::vector<int64_t> tileShape;
  std::optional<PhysicalMap> view;
  std::optional<z3::expr> seq; // async copies: issued before this one
};

struct GlobalAccessEvent {
  EventContext at;
  int tensor;
  bool write, unmasked;
  std::vector<z3::expr> offsets;
  std::vector<int64_t> tileShape;
};

struct BufferReadEvent {
  EventContext at;
  int buffer;
  std::vector<z3::expr> slot;
  TileTag value;
  std::vector<int64_t> shape;
};

struct AssertEvent {
  EventContext at;
  std::vector<TileTag> operands;
  std::vector<std::vector<int64_t>> shapes;               // every operand's, the mask's last
  std::optional<TileTerm> mask;                           // a mask assertion's mask
  std::vector<std::pair<mlir::Value, SymValue>> captured; // kernel values the region reads, at the assertion
};

/// An index add / sub / mul whose exact value must fit the 32-bit model.
struct WidthEvent {
  EventContext at;
  z3::expr fits;
};

/// A segment of a packed varlen tensor (argus.segment): its rows start at
/// an unknown row of the base tensor; its key is a leading coordinate of
/// every access through it, so elements of distinct segments are distinct.
struct SegmentInfo {
  int base;         // the tensor it is a segment of
  z3::expr key;     // the segment's key, a function of the program ids
  z3::expr start;   // the base row of its row 0 (caller data)
};

struct TensorInfo {
  std::string name;
  std::vector<z3::expr> dims;  // a segment's: the number of keys, then its own
  std::optional<unsigned> tag; // index into Execution::tagFunctions
  std::optional<SegmentInfo> segment;
};

/// The result of executing one kernel.
struct Execution {
  mlir::func::FuncOp kernel;
  std::vector<TensorInfo> tensors;
  std::vector<BufferInfo> buffers;
  std::vector<TagFunction> tagFunctions;
  std::vector<BufferAccessEvent> bufferAccesses;
  std::vector<GlobalAccessEvent> globalAccesses;
  std::vector<BufferReadEvent> bufferReads;
  std::vector<AssertEvent> asserts;
  std::vector<WidthEvent> widths;
  std::vector<EventContext> barriers;
  std::vector<z3::expr> launchConstraints;   // sizes in range
  std::vector<z3::expr> instanceConstraints; // program ids and thread id in range
  std::vector<z3::expr> programIds;          // 3
  std::optional<z3::expr> thread;
  int64_t numThreads = 1;
  std::vector<std::pair<mlir::Operation *, std::string>> problems; // what could not be modelled
};

class Executor {
public:
  Executor(SymContext &ctx, const VerifyOptions &options) : ctx(ctx), options(options) {}

  /// Executes `kernel`; problems the verifier cannot model land in
  /// Execution::problems (with their location), never as a silent pass.
  void run(mlir::func::FuncOp kernel);

  //===--- For the op semantics (ExecOps.cpp) ---------------------------===//
  enum class Mode { Real, Dry };
  SymContext &ctx;
  const VerifyOptions &options;
  Execution exec;
  Mode mode = Mode::Real;
  z3::expr guard{ctx.z3};
  std::vector<LoopFrame> loops;
  std::optional<Counters> counters;
  std::vector<History> memory;         // per buffer
  llvm::DenseMap<mlir::Value, SymValue> values;
  std::unique_ptr<MemoryModel> memoryModel;
  std::vector<z3::expr> gridSizes;
  llvm::DenseMap<mlir::Operation *, int> bufferOfAlloc;
  llvm::DenseMap<mlir::Operation *, int> tensorOfSegment;
  /// One length per (offsets tensor, key, limit): segments that share them
  /// (Q's and O's rows of one sequence) have one length.
  std::map<std::pair<int, std::string>, z3::expr> segmentLengths;
  /// The kernel arguments no store reaches (through segments or not).
  llvm::DenseSet<mlir::Value> unwrittenTensors;
  /// Per tensor of `unwrittenTensors`, its elements: one unknown per index.
  std::map<int, z3::func_decl> elementsOf;

  const SymValue &get(mlir::Value v);
  void set(mlir::Value v, SymValue s) { values[v] = std::move(s); }
  /// An integer operand as a bit-vector term (fresh when unknown).
  z3::expr intOf(mlir::Value v);
  std::optional<z3::expr> boolOf(mlir::Value v);
  EventContext here(mlir::Operation *op);
  /// Where this point of the execution is: enclosing loop indices, thread,
  /// program ids (see SymContext::choice).
  std::vector<z3::expr> position(const std::vector<z3::expr> &extra = {}) const;
  /// Element `indices` of tensor argument `tensor` (ref `ref`, `bits` wide):
  /// of a tensor the kernel never writes, one unknown per element that every
  /// read in any thread, step or instance sees; of any other, an unknown per
  /// execution point (another thread may have written it in between).
  z3::expr elementRead(mlir::Value tensor, int ref, const std::vector<z3::expr> &indices, unsigned bits);
  void problem(mlir::Operation *op, const std::string &what);
  /// A fresh tile tag with coordinate variables for `shape`.
  TileTag freshTile(const std::vector<int64_t> &shape, const TagExpr &body);
  std::vector<z3::expr> freshCoords(size_t rank);
  /// Records a write into `buffer`'s history.
  void recordWrite(int buffer, SlotWrite w);
  /// Runs the ops of a block; returns the terminator's operands' values.
  std::vector<SymValue> runBlock(mlir::Block &block);

private:
  void runOp(mlir::Operation *op);
  std::vector<SymValue> runFor(mlir::scf::ForOp op);
  std::vector<SymValue> runIf(mlir::scf::IfOp op);
  void bindArguments(mlir::func::FuncOp kernel);
  void evaluateGrid(mlir::func::FuncOp kernel);
};

/// Op semantics, one family per function; false when `op` is not theirs.
bool execArith(Executor &ex, mlir::Operation *op);
bool execArgus(Executor &ex, mlir::Operation *op);
/// The element values of an integer or i1 tile `op` computes, when they are
/// a function of coordinates, sizes and scalars (ExecElements.cpp).
std::optional<TileTerm> elementValues(Executor &ex, mlir::Operation *op);
/// Evaluates an assert_tag region on one element's tags: the predicate and
/// whether a field it names is missing from an operand's tag.
std::pair<z3::expr, z3::expr> evaluateAssertion(Executor &ex, const AssertEvent &event,
                                                const std::vector<TagExpr> &tags);

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_EXECUTOR_H
