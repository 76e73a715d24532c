//===- argus_hip_tile_launch.h - the host half of a generated HIP unit ------===//
//
// What a generated HIP unit's parameter struct and launch function name
// (argus_gpu_launch.h), under the namespace the unit calls `ak`, so that a
// library's host code can include the unit with ARGUS_GPU_LAUNCH_ONLY: no
// device header, no emulator. argus_hip_tile.h adds the rest.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_TILE_LAUNCH_H
#define ARGUS_HIP_TILE_LAUNCH_H

#if __has_include("gpu/argus_gpu_launch.h")
#include "gpu/argus_gpu_launch.h"
#else
#include "../gpu/argus_gpu_launch.h"
#endif

namespace argus::hip::tile {
using namespace argus::gpu::tile;

/// Host, before a launch: whether every row of `t` (elements of type T) starts
/// on a 4-byte boundary with unit column stride, so that copy_async can move
/// a tile of it into LDS in dwords (argus_hip_tile.h, copyAsync).
template <class T>
inline bool rowsInDwords(const Tensor &t, int rank) {
  if (reinterpret_cast<uintptr_t>(t.data) % 4 != 0 || t.stride[rank - 1] != 1)
    return false;
  for (int d = 0; d + 1 < rank; ++d)
    if (t.stride[d] * int64_t(sizeof(T)) % 4 != 0)
      return false;
  return true;
}
} // namespace argus::hip::tile

#endif // ARGUS_HIP_TILE_LAUNCH_H
