//===- argus_hip_generated_launch.h - enqueue a generated kernel ------------===//
//
// What every launcher of a generated kernel does once it has filled the
// kernel unit's own parameter struct (argus_hip_gemm_launch.h,
// argus_hip_attention_launch.h): ask the unit's launch function for the grid,
// or its refusal, and enqueue the kernel on the caller's stream.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_GENERATED_LAUNCH_H
#define ARGUS_HIP_GENERATED_LAUNCH_H

#include "argus_error.h"
#include "argus_hip_runtime.h"
#include "argus_hip_tile_launch.h"

namespace argus_rt {

/// Enqueues kernel `symbol` with parameters `p` (its launch function Launch
/// sets the grid) on `stream`; a refusal is ARGUS_ERROR_UNSUPPORTED with
/// Launch's reason, `function` the C ABI entry point.
template <class Params, argus::gpu::tile::LaunchShape (*Launch)(Params &)>
argus_status launchGenerated(const char *function, const char *symbol, Params &p, void *stream) {
  const argus::gpu::tile::LaunchShape shape = Launch(p);
  if (shape.error)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: kernel %s refuses the call: %s", function, symbol, shape.error);
  void *arguments[] = {&p};
  return hipLaunch(function,
                   {symbol, unsigned(shape.grid[0]), unsigned(shape.grid[1]), unsigned(shape.threads), arguments,
                    unsigned(shape.grid[2])},
                   stream);
}

} // namespace argus_rt

#endif // ARGUS_HIP_GENERATED_LAUNCH_H
