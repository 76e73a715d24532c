//===- argus_gpu_moe.cpp - what every GPU argus_moe checks -----------------===//
#include "argus_gpu_moe.h"

#include "argus_checks.h"
#include "argus_error.h"
#include "argus_moe_validate.h"
#include "argus_registry.h"

#include <climits>
#include <cstdint>

namespace argus_rt {
namespace {

using namespace argus::gpu;

constexpr int64_t kMaxMoeWidth = int64_t(1) << 21;  // column tiles stay within a grid's y dimension

size_t gpuMoeWorkspaceBytes(const argus_moe_args &a) {
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
  if (moePackedGateUp(a) || moePackedDown(a))
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: packed weights are a CPU-target feature; a %s library takes w_gate_up "
                "and w_down plain", function, argus_generated_target);
  if (a.num_experts > kMaxMoeExperts || a.top_k > kMaxMoeTopK)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: %lld experts, top %lld (the GPU router takes up to %d experts, top %d)",
                function, static_cast<long long>(a.num_experts), static_cast<long long>(a.top_k), kMaxMoeExperts,
                kMaxMoeTopK);
  if (a.hidden % 8 != 0 || a.intermediate % 8 != 0 || a.hidden >= kMaxMoeWidth || a.intermediate >= kMaxMoeWidth)
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "%s: hidden (%lld) and intermediate (%lld) must be multiples of 8 (16-byte row loads) below 2^21",
                function, static_cast<long long>(a.hidden), static_cast<long long>(a.intermediate));
  if (!aligned16(a.x) || !aligned16(a.w_gate_up) || !aligned16(a.w_down) || !aligned16(a.workspace))
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: x, w_gate_up, w_down and workspace must be 16-byte aligned", function);
  if (a.num_tokens * a.top_k > INT_MAX / 2 ||
      moeMaxBlocks(a.num_tokens, a.top_k, a.num_experts) > INT_MAX / kMoeBlockRows)
    return fail(ARGUS_ERROR_UNSUPPORTED, "%s: the routed rows must stay below 2^30", function);
  return ARGUS_OK;
}

} // namespace

argus_status prepareGpuMoe(const argus_moe_args *args, GpuMoeStep *step, MoeParams *params) {
  *step = GpuMoeStep::Noop;
  if (argus_status s = validateMoe(args, gpuMoeWorkspaceBytes))
    return s;
  const argus_moe_args &a = *args;
  if (a.num_tokens == 0)
    return ARGUS_OK;
  if (argus_status s = unsupported(a))
    return s;
  const MoeShape shape{int32_t(a.num_tokens),  int32_t(a.hidden), int32_t(a.intermediate),
                       int32_t(a.num_experts), int32_t(a.top_k),  a.renormalize != 0};
  *params = moeParams(shape, a.x, a.router_logits, a.w_gate_up, a.w_down, a.out, a.workspace);
  *step = GpuMoeStep::Kernels;
  return ARGUS_OK;
}

} // namespace argus_rt

using namespace argus_rt;

extern "C" ARGUS_API size_t argus_moe_workspace_size(const argus_moe_args *args) {
  return moeWorkspaceQuery(args, gpuMoeWorkspaceBytes);
}
