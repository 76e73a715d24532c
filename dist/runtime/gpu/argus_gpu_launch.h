//===- argus_gpu_launch.h - what the host needs to launch a generated kernel -===//
//
// The first half of every generated GPU unit (generator/lib/Backend/Lanes),
// its parameter struct and its `*_launch` function, is written against this
// header only: plain C++ that any host compiler takes, with no device
// builtins and no emulator. A library's host code includes a generated unit
// with ARGUS_GPU_LAUNCH_ONLY defined and gets exactly that half; a device
// compile, or an emulated one, gets the kernel too (argus_gpu_tile.h).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_LAUNCH_H
#define ARGUS_GPU_LAUNCH_H

#if __has_include("argus_scalar_ops.h")
#include "argus_scalar_ops.h"
#else
#include "../argus_scalar_ops.h"
#endif

#include <stdint.h>

namespace argus::gpu::tile {

using namespace argus_scalar;

/// A global tensor as a kernel argument: data, sizes and element strides,
/// outermost first (the CPU backend's argus_cpu_tensor, on the device).
struct Tensor {
  const void *data;
  int64_t shape[4];
  int64_t stride[4];
};

/// What the host needs to launch a generated kernel.
struct LaunchShape {
  int64_t grid[3];
  int threads;                 // lanes: lane groups x lanes per group
  int sharedBytes;             // the kernel's shared memory (LDS)
  const char *error = nullptr; // set when the arguments break a precondition: do not launch
};

/// The bytes from the first to past the last element of a tile of Dims of
/// `t` (elements of type T), wherever in `t` it sits.
template <class T, int... Dims>
ARGUS_SCALAR_FN int64_t tileSpanBytes(const Tensor &t) {
  constexpr int rank = sizeof...(Dims), dims[rank] = {Dims...};
  int64_t last = 0;
  for (int d = 0; d < rank; ++d)
    last += (dims[d] - 1) * t.stride[d];
  return (last + 1) * int64_t(sizeof(T));
}

/// Host, before a launch: whether a tile of Dims of `t` (elements of type T)
/// spans less than 2 GiB, so that 32-bit offsets from its origin reach all of
/// it (the HIP backend's buffer loads).
template <class T, int... Dims>
inline bool tileSpanFits(const Tensor &t) {
  return tileSpanBytes<T, Dims...>(t) < (int64_t(1) << 31);
}

} // namespace argus::gpu::tile

#endif // ARGUS_GPU_LAUNCH_H
