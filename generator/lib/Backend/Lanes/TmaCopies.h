//===- TmaCopies.h - which copy_asyncs a Hopper kernel issues as TMA copies -===//
//
// On cuda-sm90a's warpgroup form (every mma a wgmma reading shared memory in
// place) the staging copies feed 128-byte-swizzled slots, exactly what one
// TMA bulk tensor copy writes. The policy: where every copy_async of a kernel
// qualifies, each becomes a TMA copy issued by its lane group's lane 0 and
// completing on a ring of mbarriers (argus_cuda_tile.h: TmaRing), and wait(n)
// becomes parity waits on those barriers. A copy qualifies when
//
//   - its source is a 2-D bf16 or f16 tensor argument of the kernel (TMA's
//     bounds are the tensor's; a segment's are not);
//   - its slot is R x 64 elements (128-byte rows, R a multiple of 8 up to
//     256: whole 1024-byte swizzle atoms) of a buffer laid out swizzle(3, 3, 3),
//     TMA's 128-byte swizzle;
//   - nothing but async copies writes that buffer (TMA writes through the
//     async proxy; an ordinary store before it would need a proxy fence).
//
// Whether TMA can address the tensors is known at launch only: the launch
// encodes one tensor map per (tensor, R) into the parameters and sets
// `tma_copies`; where it cannot (a pitch not a multiple of 16 bytes, an
// unaligned start, an empty tensor) the kernel runs the same copies as
// cp.async, which the DSL's semantics of copy_async and wait fit as well.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BACKEND_LANES_TMACOPIES_H
#define ARGUS_BACKEND_LANES_TMACOPIES_H

#include "LaneTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

namespace argus::codegen::lanes {

/// One tensor map of a kernel: boxes of `rows` x 64 of tensor argument `argument`.
struct TmaMap {
  unsigned argument = 0;
  int64_t rows = 0;
  std::string field; // its member in the parameter struct
};

struct TmaPlan {
  std::vector<TmaMap> maps;
  llvm::DenseMap<mlir::Operation *, size_t> mapOf; // each copy_async's map
  /// Barriers per lane group: a power of two at least twice the deepest
  /// wait's pending count plus one, so that a copy seldom waits for the
  /// barrier it reuses.
  int64_t ringSize = 0;
  /// Why the kernel's copy_asyncs are not TMA copies ("" when it has none,
  /// or on HIP).
  std::string whyNot;

  bool active() const { return !maps.empty(); }
};

/// The TMA copies of `kernel` (tags erased) on `target`; `argNames` name
/// its arguments in the parameter struct.
TmaPlan planTmaCopies(mlir::func::FuncOp kernel, const LaneTarget &target,
                      llvm::ArrayRef<std::string> argNames);

} // namespace argus::codegen::lanes

#endif // ARGUS_BACKEND_LANES_TMACOPIES_H
