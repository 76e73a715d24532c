//===- attention_moe_test.cpp - argument validation of attention and MoE -===//
//
// argus_attention_prefill/decode and argus_moe validate their arguments
// before anything else. The fake library has no attention kernels, so valid
// arguments end in ARGUS_ERROR_UNSUPPORTED naming what is missing (the
// kernels themselves are tested through generated libraries, test/integration);
// so does MoE. Each check has a case; an
// empty batch is a successful no-op.
//
//===----------------------------------------------------------------------===//
#include "runtime_testing.h"

#include <climits>
#include <cmath>
#include <functional>

namespace {

using rt_test::contains;

int32_t cuSeqlens[3] = {0, 5, 9};
int32_t seqlens[2] = {5, 9};
int32_t blockTable[4] = {0, 1, 2, 3};
float logits[64];
uint16_t storage[4096];

argus_attention_prefill_args goodPrefill() {
  argus_attention_prefill_args a{};
  a.struct_size = sizeof a;
  a.batch = 2, a.num_heads = 8, a.num_kv_heads = 2, a.head_dim = 64;
  a.max_seqlen_q = 5, a.max_seqlen_kv = 9;
  a.dtype = ARGUS_DTYPE_BF16;
  a.q = a.k = a.v = storage;
  a.o = storage;
  a.cu_seqlens_q = a.cu_seqlens_kv = cuSeqlens;
  a.causal = 1;
  return a;
}

argus_attention_decode_args goodDecode() {
  argus_attention_decode_args a{};
  a.struct_size = sizeof a;
  a.batch = 2, a.num_heads = 8, a.num_kv_heads = 2, a.head_dim = 64;
  a.page_size = 16, a.max_pages_per_seq = 2;
  a.dtype = ARGUS_DTYPE_F16;
  a.q = a.k_cache = a.v_cache = storage;
  a.block_table = blockTable;
  a.seqlens_kv = seqlens;
  a.o = storage;
  return a;
}

alignas(64) char workspace[1 << 14];

argus_moe_args goodMoe() {
  argus_moe_args a{};
  a.struct_size = sizeof a;
  a.num_tokens = 3, a.hidden = 16, a.intermediate = 8, a.num_experts = 4, a.top_k = 2;
  a.dtype = ARGUS_DTYPE_BF16;
  a.x = a.w_gate_up = a.w_down = storage;
  a.router_logits = logits;
  a.out = storage;
  a.workspace = workspace;
  a.workspace_size = sizeof workspace;
  return a;
}

template <typename Args>
void expectRejected(argus_status (*fn)(const Args *, void *), const char *fnName, Args args,
                    argus_status status, const std::string &mention) {
  EXPECT_EQ(fn(&args, nullptr), status) << mention;
  std::string message = argus_last_error();
  EXPECT_EQ(message.rfind(std::string(fnName) + ": ", 0), 0u) << message;
  EXPECT_TRUE(contains(message, mention)) << "'" << message << "' lacks '" << mention << "'";
}

TEST(AttentionPrefill, ValidArgsWithoutKernelsAreUnsupported) {
  argus_attention_prefill_args a = goodPrefill();
  EXPECT_EQ(argus_attention_prefill(&a, nullptr), ARGUS_ERROR_UNSUPPORTED);
  EXPECT_TRUE(contains(argus_last_error(), "argus_attention_prefill: no kernel for ")) << argus_last_error();
  a.batch = 0;
  EXPECT_EQ(argus_attention_prefill(&a, nullptr), ARGUS_OK) << argus_last_error();
}

TEST(AttentionPrefill, EveryCheck) {
  auto fn = argus_attention_prefill;
  const char *name = "argus_attention_prefill";
  const argus_status bad = ARGUS_ERROR_INVALID_ARGUMENT;
  EXPECT_EQ(fn(nullptr, nullptr), bad);
  EXPECT_STREQ(argus_last_error(), "argus_attention_prefill: args is NULL");
  auto a = goodPrefill();
  std::vector<std::pair<std::function<void(argus_attention_prefill_args &)>, std::string>> cases =
      {{[](auto &x) { x.struct_size = 8; }, "struct_size (8)"},
       {[](auto &x) { x.batch = -1; }, "batch (-1)"},
       {[](auto &x) { x.num_heads = 0; }, "num_heads (0) must be >= 1"},
       {[](auto &x) { x.num_kv_heads = 0; }, "num_kv_heads (0)"},
       {[](auto &x) { x.head_dim = -64; }, "head_dim (-64)"},
       {[](auto &x) { x.num_kv_heads = 3; }, "num_heads (8) must be a multiple of num_kv_heads (3)"},
       {[](auto &x) { x.max_seqlen_q = -1; }, "max_seqlen_q (-1)"},
       {[](auto &x) { x.max_seqlen_kv = -1; }, "max_seqlen_kv (-1)"},
       {[](auto &x) { x.max_seqlen_q = INT64_MAX / 4; }, "batch*max_seqlen_q*num_heads*head_dim"},
       {[](auto &x) { x.dtype = static_cast<argus_dtype>(12); }, "dtype (12)"},
       {[](auto &x) { x.scale = NAN; }, "scale (nan) must be finite"},
       {[](auto &x) { x.q = nullptr; }, "q is NULL"},
       {[](auto &x) { x.k = nullptr; }, "k is NULL"},
       {[](auto &x) { x.v = nullptr; }, "v is NULL"},
       {[](auto &x) { x.o = nullptr; }, "o is NULL"},
       {[](auto &x) { x.cu_seqlens_q = nullptr; }, "cu_seqlens_q is NULL"},
       {[](auto &x) { x.cu_seqlens_kv = nullptr; }, "cu_seqlens_kv is NULL"}};
  for (auto &[breakIt, mention] : cases) {
    auto broken = a;
    breakIt(broken);
    expectRejected(fn, name, broken, bad, mention);
  }
  auto fp8 = a;
  fp8.dtype = ARGUS_DTYPE_FP8_E4M3;
  expectRejected(fn, name, fp8, ARGUS_ERROR_UNSUPPORTED, "fp8_e4m3 is not supported");
}

TEST(AttentionDecode, ValidArgsWithoutKernelsAreUnsupported) {
  argus_attention_decode_args a = goodDecode();
  EXPECT_EQ(argus_attention_decode(&a, nullptr), ARGUS_ERROR_UNSUPPORTED);
  EXPECT_TRUE(contains(argus_last_error(), "argus_attention_decode: no kernel for ")) << argus_last_error();
  a.batch = 0;
  a.q = nullptr, a.o = nullptr, a.block_table = nullptr, a.seqlens_kv = nullptr;
  a.k_cache = a.v_cache = nullptr;
  EXPECT_EQ(argus_attention_decode(&a, nullptr), ARGUS_OK) << argus_last_error();
}

TEST(AttentionDecode, EveryCheck) {
  auto fn = argus_attention_decode;
  const char *name = "argus_attention_decode";
  const argus_status bad = ARGUS_ERROR_INVALID_ARGUMENT;
  EXPECT_EQ(fn(nullptr, nullptr), bad);
  auto a = goodDecode();
  std::vector<std::pair<std::function<void(argus_attention_decode_args &)>, std::string>> cases =
      {{[](auto &x) { x.struct_size = sizeof(x) - 4; }, "struct_size"},
       {[](auto &x) { x.batch = -2; }, "batch (-2)"},
       {[](auto &x) { x.num_heads = 6, x.num_kv_heads = 4; }, "multiple of num_kv_heads (4)"},
       {[](auto &x) { x.page_size = 0; }, "page_size (0)"},
       {[](auto &x) { x.max_pages_per_seq = 0; }, "max_pages_per_seq (0)"},
       {[](auto &x) { x.batch = INT64_MAX / 2; }, "overflows"},
       {[](auto &x) { x.page_size = INT64_MAX / 8; }, "page_size*num_kv_heads*head_dim"},
       {[](auto &x) { x.scale = INFINITY; }, "scale (inf)"},
       {[](auto &x) { x.q = nullptr; }, "q is NULL"},
       {[](auto &x) { x.k_cache = nullptr; }, "k_cache is NULL"},
       {[](auto &x) { x.v_cache = nullptr; }, "v_cache is NULL"},
       {[](auto &x) { x.block_table = nullptr; }, "block_table is NULL"},
       {[](auto &x) { x.seqlens_kv = nullptr; }, "seqlens_kv is NULL"},
       {[](auto &x) { x.o = nullptr; }, "o is NULL"}};
  for (auto &[breakIt, mention] : cases) {
    auto broken = a;
    breakIt(broken);
    expectRejected(fn, name, broken, bad, mention);
  }
}

TEST(Moe, ValidArgsWithoutKernelsAreUnsupported) {
  argus_moe_args a = goodMoe();
  EXPECT_EQ(argus_moe(&a, nullptr), ARGUS_ERROR_UNSUPPORTED);
  EXPECT_STREQ(argus_last_error(), "argus_moe: no kernel for bf16 experts in this library");
  a.num_tokens = 0;
  a.x = nullptr, a.out = nullptr, a.router_logits = nullptr;
  a.workspace = nullptr, a.workspace_size = 0;
  EXPECT_EQ(argus_moe(&a, nullptr), ARGUS_OK) << argus_last_error();
}

TEST(Moe, WorkspaceSize) {
  argus_moe_args a = goodMoe();
  // Offsets of 5 experts, a cursor per expert, then 6 routes x (expert,
  // weight, row), 6 gathered rows of 16 bf16, 6 rows of 8 bf16 and 6 rows of
  // 16 f32, each 64-aligned.
  const size_t expected = 64 + 64 + 64 + 64 + 64 + 192 + 128 + 384;
  EXPECT_EQ(argus_moe_workspace_size(&a), expected);
  EXPECT_EQ(argus_moe_workspace_size(nullptr), 0u);
  a.num_tokens = 0;
  EXPECT_EQ(argus_moe_workspace_size(&a), 0u) << "an empty batch needs none";
  a = goodMoe();
  a.top_k = 9; // invalid: no size
  EXPECT_EQ(argus_moe_workspace_size(&a), 0u);
  a = goodMoe();
  a.hidden = INT64_MAX / 2; // overflows: no size (argus_moe reports the overflow)
  EXPECT_EQ(argus_moe_workspace_size(&a), 0u);
  a = goodMoe();
  a.workspace_size = expected - 1;
  EXPECT_EQ(argus_moe(&a, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(argus_last_error()).find("workspace_size (1023) must be >= argus_moe_workspace_size (1024)"),
            std::string::npos)
      << argus_last_error();
}

TEST(Moe, EveryCheck) {
  auto fn = argus_moe;
  const char *name = "argus_moe";
  const argus_status bad = ARGUS_ERROR_INVALID_ARGUMENT;
  EXPECT_EQ(fn(nullptr, nullptr), bad);
  auto a = goodMoe();
  std::vector<std::pair<std::function<void(argus_moe_args &)>, std::string>> cases = {
      {[](auto &x) { x.struct_size = 0; }, "struct_size (0)"},
      {[](auto &x) { x.num_tokens = -3; }, "num_tokens (-3)"},
      {[](auto &x) { x.hidden = 0; }, "hidden (0)"},
      {[](auto &x) { x.intermediate = -1; }, "intermediate (-1)"},
      {[](auto &x) { x.num_experts = 0; }, "num_experts (0)"},
      {[](auto &x) { x.top_k = 0; }, "top_k (0)"},
      {[](auto &x) { x.top_k = 5; }, "top_k (5) must be <= num_experts (4)"},
      {[](auto &x) { x.intermediate = INT64_MAX / 4; }, "num_experts*2*intermediate*hidden"},
      {[](auto &x) { x.dtype = static_cast<argus_dtype>(4); }, "dtype (4)"},
      {[](auto &x) { x.x = nullptr; }, "x is NULL"},
      {[](auto &x) { x.router_logits = nullptr; }, "router_logits is NULL"},
      {[](auto &x) { x.w_gate_up = nullptr; }, "w_gate_up is NULL"},
      {[](auto &x) { x.w_down = nullptr; }, "w_down is NULL"},
      {[](auto &x) { x.out = nullptr; }, "out is NULL"},
      {[](auto &x) { x.workspace = nullptr; }, "workspace is NULL but workspace_size is 16384"}};
  for (auto &[breakIt, mention] : cases) {
    auto broken = a;
    breakIt(broken);
    expectRejected(fn, name, broken, bad, mention);
  }
}

} // namespace
