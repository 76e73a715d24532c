//===- argus_moe_validate.cpp - argus_moe argument checks -----------------===//
#include "argus_moe_validate.h"

#include "argus_checks.h"
#include "argus_error.h"

#include <cstdint>

namespace argus_rt {

argus_status validateMoe(const argus_moe_args *args, MoeWorkspaceBytes workspaceBytes) {
  Checker check("argus_moe");
  if (!args) return check.fail(ARGUS_ERROR_INVALID_ARGUMENT, "args is NULL");
  const argus_moe_args &a = *args;
  if (auto s = check.structSize(a.struct_size, kMoeArgsV1Size)) return s;
  if (auto s = check.nonNegative("num_tokens", a.num_tokens)) return s;
  if (auto s = check.positive("hidden", a.hidden)) return s;
  if (auto s = check.positive("intermediate", a.intermediate)) return s;
  if (auto s = check.positive("num_experts", a.num_experts)) return s;
  if (auto s = check.positive("top_k", a.top_k)) return s;
  if (a.top_k > a.num_experts)
    return check.fail(ARGUS_ERROR_INVALID_ARGUMENT, "top_k (%lld) must be <= num_experts (%lld)",
                      static_cast<long long>(a.top_k), static_cast<long long>(a.num_experts));
  int64_t xElems = 0, logitElems = 0, gateUpElems = 0, downElems = 0;
  const int64_t gateUpDims[] = {a.num_experts, 2, a.intermediate, a.hidden};
  const int64_t downDims[] = {a.num_experts, a.hidden, a.intermediate};
  if (auto s = check.product("num_tokens*hidden", a.num_tokens, a.hidden, &xElems)) return s;
  if (auto s = check.product("num_tokens*num_experts", a.num_tokens, a.num_experts, &logitElems))
    return s;
  if (auto s = check.product("num_experts*2*intermediate*hidden", gateUpDims, 4, &gateUpElems))
    return s;
  if (auto s = check.product("num_experts*hidden*intermediate", downDims, 3, &downElems))
    return s;
  if (auto s = check.knownDtype("dtype", a.dtype)) return s;
  if (a.dtype == ARGUS_DTYPE_FP8_E4M3)
    return check.fail(ARGUS_ERROR_UNSUPPORTED,
                      "dtype fp8_e4m3 is not supported (expected f32, f16 or bf16)");
  if (auto s = check.pointer("x", a.x, xElems)) return s;
  if (auto s = check.pointer("router_logits", a.router_logits, logitElems)) return s;
  if (auto s = check.pointer("out", a.out, xElems)) return s;
  int64_t used = a.num_tokens > 0 ? 1 : 0; // weights are read only when there are tokens
  const bool gateUpPacked = moePackedGateUp(a), downPacked = moePackedDown(a);
  if (auto s = check.pointer("w_gate_up", a.w_gate_up, used && !gateUpPacked ? gateUpElems : 0)) return s;
  if (auto s = check.pointer("w_down", a.w_down, used && !downPacked ? downElems : 0)) return s;
  size_t need = workspaceBytes(a);
  if (a.workspace_size < need)
    return check.fail(ARGUS_ERROR_INVALID_ARGUMENT,
                      "workspace_size (%zu) must be >= argus_moe_workspace_size (%zu)",
                      a.workspace_size, need);
  if (!a.workspace && a.workspace_size > 0)
    return check.fail(ARGUS_ERROR_INVALID_ARGUMENT, "workspace is NULL but workspace_size is %zu",
                      a.workspace_size);
  return ARGUS_OK;
}


size_t moeWorkspaceQuery(const argus_moe_args *args, MoeWorkspaceBytes workspaceBytes) {
  size_t bytes = 0;
  guard("argus_moe_workspace_size", [&] {
    if (!args || args->struct_size < kMoeArgsV1Size) return ARGUS_OK;
    const argus_moe_args &a = *args;
    // Args the size cannot be computed for have none (argus_moe reports why).
    const bool knownDtype = a.dtype == ARGUS_DTYPE_F32 || a.dtype == ARGUS_DTYPE_BF16 || a.dtype == ARGUS_DTYPE_F16;
    if (a.num_tokens < 0 || a.hidden < 1 || a.intermediate < 1 || a.num_experts < 1 || a.top_k < 1 ||
        a.top_k > a.num_experts || !knownDtype)
      return ARGUS_OK;
    bytes = workspaceBytes(a);
    if (bytes == SIZE_MAX) bytes = 0;
    return ARGUS_OK;
  });
  return bytes;
}

} // namespace argus_rt
