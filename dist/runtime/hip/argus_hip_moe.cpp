//===- argus_hip_moe.cpp - argus_moe of a hip library ----------------------===//
//
// Validation shared with every target (argus_moe_validate.h, with this
// target's workspace), then what the CDNA pipeline takes: bf16; at most 256
// experts and top-16; hidden and intermediate multiples of 8 (16-byte row
// loads) with x, the weights and the workspace 16-byte aligned. Then the five
// launches of argus_hip_moe_params.h, in order, on the caller's stream.
//
//===----------------------------------------------------------------------===//
#include "argus_checks.h"
#include "argus_error.h"
#include "argus_hip_moe_params.h"
#include "argus_hip_runtime.h"
#include "argus_moe_validate.h"
#include "argus_registry.h"

#include <climits>
#include <cstdint>

namespace argus_rt {
namespace {

using namespace argus::hip;

size_t hipMoeWorkspaceBytes(const argus_moe_args &a) {
  // Past 2^40 elements any term overflows long before a GPU could hold it.
  const int64_t limit = int64_t(1) << 40;
  if (a.num_tokens > limit / a.top_k || a.hidden > limit || a.intermediate > limit || a.num_experts > limit ||
      a.num_tokens * a.top_k > limit / a.hidden ||
      moeMaxBlocks(a.num_tokens, a.top_k, a.num_experts) * kMoeBlockRows > limit / a.intermediate)
    return SIZE_MAX;
  return size_t(moeLayout(a.num_tokens, a.hidden, a.intermediate, a.num_experts, a.top_k).bytes);
}

bool aligned16(const void *p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

argus_status unsupported(const argus_moe_args &a) {
  const char *function = "argus_moe";
  if (a.dtype != ARGUS_DTYPE_BF16)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: a %s library's MoE takes bf16, got %s", function,
                argus_generated_target, dtypeName(a.dtype));
  if (a.num_experts > kMaxMoeExperts || a.top_k > kMaxMoeTopK)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: %lld experts, top %lld (the CDNA router takes up to %d experts, top %d)",
                function, static_cast<long long>(a.num_experts), static_cast<long long>(a.top_k), kMaxMoeExperts,
                kMaxMoeTopK);
  if (a.hidden % 8 != 0 || a.intermediate % 8 != 0)
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "%s: hidden (%lld) and intermediate (%lld) must be multiples of 8 (16-byte row loads)", function,
                static_cast<long long>(a.hidden), static_cast<long long>(a.intermediate));
  if (!aligned16(a.x) || !aligned16(a.w_gate_up) || !aligned16(a.w_down) || !aligned16(a.workspace))
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: x, w_gate_up, w_down and workspace must be 16-byte aligned", function);
  if (a.num_tokens * a.top_k > INT_MAX / 2 || a.hidden > INT_MAX || a.intermediate > INT_MAX ||
      moeMaxBlocks(a.num_tokens, a.top_k, a.num_experts) > INT_MAX / kMoeBlockRows)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: the routed rows and sizes must stay below 2^30", function);
  return ARGUS_OK;
}

} // namespace
} // namespace argus_rt

using namespace argus_rt;

extern "C" {

ARGUS_API size_t argus_moe_workspace_size(const argus_moe_args *args) {
  return moeWorkspaceQuery(args, hipMoeWorkspaceBytes);
}

ARGUS_API argus_status argus_moe(const argus_moe_args *args, void *stream) {
  return guard("argus_moe", [&] {
    if (argus_status s = validateMoe(args, hipMoeWorkspaceBytes))
      return s;
    const argus_moe_args &a = *args;
    if (a.num_tokens == 0)
      return ARGUS_OK;
    if (argus_status s = unsupported(a))
      return s;
    const MoeLayout layout = moeLayout(a.num_tokens, a.hidden, a.intermediate, a.num_experts, a.top_k);
    char *w = static_cast<char *>(a.workspace);
    MoeParams params{static_cast<const uint16_t *>(a.x),
                     a.router_logits,
                     static_cast<const uint16_t *>(a.w_gate_up),
                     static_cast<const uint16_t *>(a.w_down),
                     static_cast<uint16_t *>(a.out),
                     reinterpret_cast<int32_t *>(w + layout.choices),
                     reinterpret_cast<float *>(w + layout.weights),
                     reinterpret_cast<int32_t *>(w + layout.blockCount),
                     reinterpret_cast<int32_t *>(w + layout.blockExpert),
                     reinterpret_cast<int32_t *>(w + layout.blockRows),
                     reinterpret_cast<uint16_t *>(w + layout.h),
                     reinterpret_cast<float *>(w + layout.y),
                     int32_t(a.num_tokens),
                     int32_t(a.hidden),
                     int32_t(a.intermediate),
                     int32_t(a.num_experts),
                     int32_t(a.top_k),
                     int32_t(moeMaxBlocks(a.num_tokens, a.top_k, a.num_experts)),
                     a.renormalize ? 1 : 0};
    MoeLaunch launches[5];
    moeLaunches(params, launches);
    void *arguments[] = {&params};
    for (const MoeLaunch &l : launches)
      if (argus_status s = hipLaunch("argus_moe", {l.kernel, l.gridX, l.gridY, l.threads, arguments}, stream))
        return s;
    return ARGUS_OK;
  });
}

} // extern "C"
