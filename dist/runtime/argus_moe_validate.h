//===- argus_moe_validate.h - are argus_moe arguments well-formed ----------===//
//
// The checks every target runs before its MoE kernels (the first failure
// wins, INVALID_ARGUMENT unless noted):
//   args NULL; struct_size ending before w_gate_up_packed; num_tokens < 0; hidden, intermediate,
//   num_experts < 1; top_k not in [1, num_experts]; sizes overflowing int64;
//   dtype outside the enum; dtype not f32/f16/bf16 (UNSUPPORTED); x,
//   router_logits, out NULL for num_tokens > 0; weights NULL (unless given
//   packed: whether those match is the target's to check); workspace
//   smaller than the target's workspace size, or NULL with a non-zero size.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_MOE_VALIDATE_H
#define ARGUS_RUNTIME_MOE_VALIDATE_H

#include "argus_kernels.h"

#include <stddef.h>

namespace argus_rt {

/// The size of argus_moe_args before the packed weights: the smallest struct_size accepted.
constexpr size_t kMoeArgsV1Size = offsetof(argus_moe_args, w_gate_up_packed);

/// The packed weights of `a`, or NULL where struct_size ends before them.
inline const void *moePackedGateUp(const argus_moe_args &a) {
  return a.struct_size >= offsetof(argus_moe_args, w_gate_up_packed) + sizeof(void *) ? a.w_gate_up_packed : nullptr;
}
inline const void *moePackedDown(const argus_moe_args &a) {
  return a.struct_size >= offsetof(argus_moe_args, w_down_packed) + sizeof(void *) ? a.w_down_packed : nullptr;
}

/// The workspace a target's argus_moe needs for args already known to be
/// sane (sizes positive, top_k in range, dtype known); SIZE_MAX on overflow.
using MoeWorkspaceBytes = size_t (*)(const argus_moe_args &args);

/// ARGUS_OK, or the status with "argus_moe: <what is wrong>" as the last error.
argus_status validateMoe(const argus_moe_args *args, MoeWorkspaceBytes workspaceBytes);

/// What argus_moe_workspace_size returns: the bytes for sane args, else 0.
size_t moeWorkspaceQuery(const argus_moe_args *args, MoeWorkspaceBytes workspaceBytes);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_MOE_VALIDATE_H
