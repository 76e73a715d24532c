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
} // namespace argus::hip::tile

#endif // ARGUS_HIP_TILE_LAUNCH_H
