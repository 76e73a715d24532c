//===- TileStorage.h - which C++ array holds which tile value -------------===//
//
// Tiles are SSA values; in the emitted C++ each lives in an alignas(64)
// array (a "slot"). Copying 16-64 KiB tiles around would dominate a GEMM, so
// a new value takes over the slot of an operand that is dead once the op has
// read it:
//
//   %next = argus.mma %a, %b, %acc_i     // acc_i dead after -> %next in acc_i's slot
//   scf.yield %next                      // == the loop-carried slot: no copy
//
// A slot records its current occupants: the live values stored in it (a
// value and its reshape aliases). A slot may be overwritten at an op when
// every occupant is dead after that op. Deadness is decided on the IR:
// a value is dead after `at` when no use follows `at` in its block or in
// any block between, and no loop lies between `at` and the value's block
// (a value defined outside a loop is read again by the next iteration).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_CPU_TILESTORAGE_H
#define ARGUS_BACKEND_CPU_TILESTORAGE_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace argus::codegen::cpu {

/// True when nothing that may execute after `at` reads `v`. Uses of `v` by
/// `at` itself (including inside its regions) count as reads at `at` unless
/// `regionUsesAreLater`: a loop that carries `v`'s storage in place reads
/// it again on every iteration.
bool isDeadAfter(mlir::Value v, mlir::Operation *at, bool regionUsesAreLater = false);

/// True when some use of `v` comes after `op` in `op`'s block (at any
/// nesting depth).
bool isUsedAfter(mlir::Value v, mlir::Operation *op);

/// One C++ array (or, when `readOnly` or `storeBack`, a pointer into a
/// buffer or, when `tileRef`, an ak::tile_ref: a window read in place, not a
/// plain array).
struct Slot {
  std::string name;    // the C++ identifier
  std::string storage; // element storage type (float, uint16_t, ...)
  int64_t elements = 0;
  bool readOnly = false; // aliases a buffer: never written through
  bool tileRef = false;  // rows with a stride of their own (load_ref): no plain loads of it
  // A buffer slot loaded, updated in place and stored back (the store): its
  // storage is the buffer's, which values may take only until that store,
  // and only values not read after it (the store may copy another value in).
  mlir::Operation *storeBack = nullptr;
  llvm::SmallVector<mlir::Value, 2> occupants;
};

class SlotTable {
public:
  using Id = int;

  Id create(std::string name, std::string storage, int64_t elements, bool readOnly = false,
            bool tileRef = false);
  const Slot &get(Id id) const { return slots[id]; }
  /// Makes `id` a buffer slot stored back by `store` (Slot::storeBack).
  void setStoreBack(Id id, mlir::Operation *store) { slots[id].storeBack = store; }
  /// Bytes of all writable slots: a bound on the stack the tiles take.
  int64_t stackBytes() const;

  /// The slot holding tile value `v`; -1 when it has none.
  Id of(mlir::Value v) const;
  /// The C++ name of `v`'s slot. A value without one (computed in a region
  /// not emitted yet) is an emitter bug: reported, not read out of bounds.
  const std::string &nameOf(mlir::Value v) const;

  /// `v` now lives in `id` and replaces its previous occupants (they are dead).
  void place(mlir::Value v, Id id);
  /// `v` aliases the storage of the values already in `id` (a reshape).
  void alias(mlir::Value v, Id id);

  /// True when a value of (storage, elements) may be written into `id` at
  /// `at`: same storage and size, writable, and every occupant dead after `at`.
  bool canOverwrite(Id id, mlir::Operation *at, llvm::StringRef storage, int64_t elements,
                    bool regionUsesAreLater = false) const;

  /// Occupancy is path-dependent: branches of an scf.if start from the same state.
  using Snapshot = std::vector<llvm::SmallVector<mlir::Value, 2>>;
  Snapshot snapshot() const;
  void restore(const Snapshot &snap);

private:
  std::vector<Slot> slots;
  llvm::DenseMap<mlir::Value, Id> slotOf;
};

} // namespace argus::codegen::cpu

#endif // ARGUS_BACKEND_CPU_TILESTORAGE_H
