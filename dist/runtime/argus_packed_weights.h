//===- argus_packed_weights.h - weights packed once, checked at every use -===//
//
// argus_pack_weights copies weight matrices into the PANELS layout of
// argus_cpu_abi.h behind a 64-byte header that records what was packed:
//
//   [ header: "ARGUSPW", layout version, dtype, batch, n, k, strides ][ matrix 0 ][ matrix 1 ] ...
//
// Each matrix is ceil(n / 32) panels; every call that takes packed weights
// opens the header first, so weights packed for another shape, dtype or
// layout version are an error with a message, not garbage products.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_PACKED_WEIGHTS_H
#define ARGUS_RUNTIME_PACKED_WEIGHTS_H

#include "argus_kernels.h"
#include "cpu/argus_cpu_abi.h"

#include <cstddef>
#include <cstdint>

namespace argus_rt {

constexpr uint32_t kPackedLayoutVersion = 1;
constexpr size_t kPackedHeaderBytes = 64; /* also the alignment the panels' aligned loads need */

/// What a packed buffer holds, and where (strides in elements).
struct PackedWeights {
  argus_dtype dtype = ARGUS_DTYPE_F32;
  int64_t batch = 0, n = 0, k = 0;
  int64_t panelStride = 0, matrixStride = 0;
  const char *data = nullptr; /* matrix 0, just past the header */

  /// Matrix `index` as a kernel tensor (n x k, PANELS).
  argus_cpu_tensor matrix(int64_t index) const;
};

/// Whether this library's kernels compute from panels of `dtype`.
bool panelsServed(argus_dtype dtype);

/// The layout of `batch` packed n x k matrices of `dtype` (sizes whose
/// packed extent is known to fit int64), `data` unset.
PackedWeights panelLayout(argus_dtype dtype, int64_t batch, int64_t n, int64_t k);

/// The packed layout of `weights` after checking the description (sizes,
/// pointers, dtype, and that this library's kernels compute from panels of
/// it): ARGUS_OK, or the status with "<function>: ..." recorded. `bytes`
/// receives the packed size, header included.
argus_status planPackedWeights(const argus_weights_desc *weights, const char *function, PackedWeights *layout,
                               size_t *bytes);

/// Writes the header and the panels of `weights` (already planned) into
/// `packed`, zero-padding rows past n and k past k, on `threads` threads.
void packWeights(const argus_weights_desc &weights, const PackedWeights &layout, void *packed, int threads);

/// Opens packed weights given to `function` as `field`: they must be
/// 64-byte aligned and packed for exactly (batch, n, k, dtype) in this
/// layout version.
argus_status openPackedWeights(const void *packed, int64_t batch, int64_t n, int64_t k, argus_dtype dtype,
                               const char *function, const char *field, PackedWeights *out);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_PACKED_WEIGHTS_H
