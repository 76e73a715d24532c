//===- Memory.h - flow-sensitive buffer state for the verifier --*- C++ -*-===//
//
// The contents of a shared or local buffer are not stored: a buffer is its
// history, the writes (slot copies, slot stores, tag bindings, tag resets) in
// program order, each with its guard and the tag of what it wrote. A finished
// loop is one history item holding its body's items; the loop being executed
// is a marker holding the body's writes as seen by a first pass.
//
// Reading one element folds the history from oldest to newest into a
// TagExpr: ite(newer write covers the element, its tag, older state). Writes
// of earlier loop iterations are replayed exactly for the last `window`
// iterations (the body's items with the induction variable substituted; all of
// them for a loop of known length over at most kExactSlots slots);
// writes older than that make the element unknown (⊤) where they could
// cover it, so a window that is too small gives a failure, never a proof.
// On shared buffers every write is expanded over the threads that could
// have performed it; asynchronous copies are visible only once completed.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_VERIFY_MEMORY_H
#define ARGUS_LIB_VERIFY_MEMORY_H

#include "PhysicalMap.h"

#include "argus/Dialect/Argus.h"

#include <memory>

namespace argus::verify::detail {

/// Shared-buffer writes are expanded over the threads that could perform
/// them; beyond this many threads per instance reads are not modelled.
constexpr int64_t kMaxWriterThreads = 64;

/// A loop of known length over a buffer of at most this many slots is replayed
/// exactly however short the loop window (one iteration per slot).
constexpr int64_t kExactSlots = 16;

/// How an access maps a slot's logical elements to physical offsets: through
/// the buffer's own layout (`view` null) or a per-access view.
struct BufferInfo {
  mlir::Operation *alloc;
  std::string name;           // "sa (shared buffer at f.argus:9:5)"
  bool shared;
  std::vector<int64_t> shape; // logical shape, slot dims first
  PhysicalMap map;            // of the row-major index over the whole buffer
  unsigned elementBytes;
};

struct HistoryItem;

struct SlotWrite {
  mlir::Operation *op = nullptr;
  z3::expr guard;
  std::vector<z3::expr> slot;       // leading indices; empty with `whole`
  std::optional<PhysicalMap> view; // per-access map of the index within the slot
  TileTag value;                    // over the written tile's coordinates
  bool async = false;
  std::optional<z3::expr> seq;      // async: copies the writer issued before this one
  bool whole = false;               // covers the whole buffer (a tag binding)
  bool reset = false;               // reset_tags: everything becomes unwritten
};

struct LoopRecord {
  LoopFrame frame;
  std::vector<HistoryItem> body;
};

struct HistoryItem {
  enum class Kind { Write, Loop, Current } kind = Kind::Write;
  std::optional<SlotWrite> write;
  std::shared_ptr<LoopRecord> loop; // Loop: finished; Current: being executed
};

using History = std::vector<HistoryItem>;

/// The reader's side of a buffer read.
struct ReadPoint {
  z3::expr thread;                       // the reader's thread id variable
  z3::expr done;                         // async copies the reader has completed
  z3::expr doneAtBarrier;                // ... as of its last barrier (a term in `thread`)
  std::vector<z3::expr> slot;
  std::optional<PhysicalMap> view;
  std::vector<z3::expr> element;         // coordinates inside the slot
  std::vector<z3::expr> position;        // the reader's (Executor::position)
};

class MemoryModel {
public:
  MemoryModel(SymContext &ctx, int window, int64_t numThreads)
      : ctx(ctx), window(window), numThreads(numThreads) {}

  /// The tag a read of one element sees.
  TagExpr read(const BufferInfo &buffer, const History &history, const ReadPoint &at);

private:
  TagExpr fold(const BufferInfo &buffer, const std::vector<HistoryItem> &items,
               const z3::expr_vector &from, const z3::expr_vector &to, const ReadPoint &at,
               TagExpr acc);
  TagExpr applyWrite(const BufferInfo &buffer, const SlotWrite &w, const z3::expr_vector &from,
                     const z3::expr_vector &to, const ReadPoint &at, TagExpr acc);
  TagExpr applyLoop(const BufferInfo &buffer, const LoopRecord &loop, bool current,
                    const z3::expr_vector &from, const z3::expr_vector &to, const ReadPoint &at,
                    TagExpr acc);
  /// Whether some write of `items` (one iteration, substituted) could cover the element.
  z3::expr mayCover(const BufferInfo &buffer, const std::vector<HistoryItem> &items,
                    const z3::expr_vector &from, const z3::expr_vector &to, const ReadPoint &at);
  /// Coverage of the read element by a write and the write's element coordinates.
  std::pair<z3::expr, std::vector<z3::expr>> locate(const BufferInfo &buffer, const SlotWrite &w,
                                                    const std::vector<z3::expr> &slot,
                                                    const ReadPoint &at);

  SymContext &ctx;
  int window;
  int64_t numThreads;
};

/// Physical offset of logical element (slot ++ element) of `buffer` accessed
/// through `view` (or the buffer's own layout).
z3::expr physicalOffset(SymContext &ctx, const BufferInfo &buffer,
                        const std::vector<z3::expr> &slot, const std::optional<PhysicalMap> &view,
                        const std::vector<z3::expr> &element);

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_MEMORY_H
