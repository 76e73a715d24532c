//===- argus_moe_dispatch.h - routed SwiGLU experts on the CPU ------------===//
//
// argus_moe in five steps over the caller's workspace:
//   1. route: softmax of each token's router logits, its top-k experts
//      (largest logit first, equal logits prefer the lower index), weights
//      renormalised on request;
//   2. group: a counting sort of the (token, choice) routes by expert;
//   3. gather the routed tokens' rows expert by expert;
//   4. per expert with rows: gate/up kernel (SiLU·mul fused), down kernel
//      (f32 rows); experts without rows cost nothing; weights plain or
//      pre-packed (argus_pack_weights: the kernels read PANELS tensors; a
//      tier may hold kernels of its own for plain weights, and the last
//      tier runs plain weights transposed: argus_moe_transposed.h);
//   5. combine: out[t] = sum of the token's weighted expert rows, rounded once.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_MOE_DISPATCH_H
#define ARGUS_RUNTIME_MOE_DISPATCH_H

#include "argus_config.h"
#include "argus_kernels.h"
#include "argus_packed_weights.h"
#include "argus_registry.h"

#include <cstddef>

namespace argus_rt {

/// Workspace bytes for args whose sizes are valid: 0 for no tokens,
/// SIZE_MAX when the size overflows.
size_t moeWorkspaceBytes(const argus_moe_args &args);

argus_status planMoe(const argus_moe_args &args, const Config &config, const argus_moe_kernel **kernels);

/// The experts' weights as the kernels read them: plain (packed == false)
/// or opened packed buffers (gate_up: 2E matrices I x H, gate then up per
/// expert; down: E matrices H x I).
struct MoeWeights {
  bool gateUpPacked = false, downPacked = false;
  PackedWeights gateUp, down;
};

/// Opens the packed weights args carries, if any, into *weights.
argus_status openMoeWeights(const argus_moe_args &args, MoeWeights *weights);

/// @pre args are valid, num_tokens > 0, the workspace is large enough.
void runMoe(const argus_moe_args &args, const argus_moe_kernel &kernels, int numThreads, const MoeWeights &weights);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_MOE_DISPATCH_H
