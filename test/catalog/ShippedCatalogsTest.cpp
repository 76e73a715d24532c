//===- ShippedCatalogsTest.cpp - shapes/*.yaml and their expansion --------===//
//
// The catalogs we ship must load, and expand into the GEMM, attention and MoE
// shapes the models really run (numbers checked by hand against the HF
// configs and vLLM's tensor-parallel split).
//
//===----------------------------------------------------------------------===//
#include "argus/Catalog/Catalog.h"
#include "argus/Catalog/OpConfig.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace argus::catalog;

namespace {

Catalog loadShipped(const std::string &name) {
  Result<Catalog> result = loadCatalog(std::string(ARGUS_SHAPES_DIR) + "/" + name);
  if (!result.ok()) ADD_FAILURE() << result.error().format();
  return result.ok() ? result.value() : Catalog{};
}

Catalog parseOk(const std::string &text) {
  Result<Catalog> result = parseCatalog(text, "inline.yaml");
  if (!result.ok()) ADD_FAILURE() << result.error().format();
  return result.ok() ? result.value() : Catalog{};
}

std::map<std::string, OpConfig> byName(const std::vector<OpConfig> &ops) {
  std::map<std::string, OpConfig> map;
  for (const OpConfig &op : ops) EXPECT_TRUE(map.emplace(op.name, op).second) << op.name;
  return map;
}

void expectGemm(const std::map<std::string, OpConfig> &ops, const std::string &name, int64_t n,
                int64_t k) {
  auto it = ops.find(name);
  ASSERT_NE(it, ops.end()) << "no GEMM named " << name;
  ASSERT_EQ(it->second.kind, OpKind::Gemm) << name;
  EXPECT_EQ(it->second.gemm().n, n) << name;
  EXPECT_EQ(it->second.gemm().k, k) << name;
}

const std::vector<int64_t> kLlamaTokens = {1,   2,   4,    8,    16,   32,   64,  128,
                                           256, 512, 1024, 2048, 4096, 8192};

} // namespace

TEST(ShippedCatalogs, Llama3_8bLoads) {
  Catalog c = loadShipped("llama3-8b.yaml");
  EXPECT_EQ(c.model, "llama3-8b");
  EXPECT_EQ(c.dtype, Dtype::BF16);
  EXPECT_EQ(c.arch.hidden_size, 4096);
  EXPECT_EQ(c.arch.intermediate_size, 14336);
  EXPECT_EQ(c.arch.num_hidden_layers, 32);
  EXPECT_EQ(c.arch.num_attention_heads, 32);
  EXPECT_EQ(c.arch.num_key_value_heads, 8);
  EXPECT_EQ(c.arch.head_dim, 128);
  EXPECT_TRUE(c.arch.head_dim_explicit);
  EXPECT_EQ(c.arch.vocab_size, 128256);
  EXPECT_FALSE(c.arch.moe.has_value());
  EXPECT_EQ(c.serving.tensor_parallel, 1);
  EXPECT_EQ(c.serving.decode_batch, (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(c.serving.prefill_tokens, (std::vector<int64_t>{128, 512, 1024, 2048, 4096, 8192}));
  EXPECT_EQ(c.serving.kv_page_size, 16);
  EXPECT_EQ(c.serving.max_context, 8192);
  EXPECT_EQ(c.content_hash.size(), 64u);
  EXPECT_NE(c.path.find("llama3-8b.yaml"), std::string::npos);
}

TEST(ShippedCatalogs, Llama3_8bExpansion) {
  Catalog c = loadShipped("llama3-8b.yaml");
  std::vector<OpConfig> ops = expand(c);
  ASSERT_EQ(ops.size(), 7u);
  std::map<std::string, OpConfig> named = byName(ops);
  expectGemm(named, "qkv", 6144, 4096);
  expectGemm(named, "o", 4096, 4096);
  expectGemm(named, "gate_up", 28672, 4096);
  expectGemm(named, "down", 4096, 14336);
  expectGemm(named, "lm_head", 128256, 4096);
  for (const OpConfig &op : ops)
    if (op.kind == OpKind::Gemm) EXPECT_EQ(op.m_buckets, kLlamaTokens) << op.name;

  const OpConfig &prefill = named.at("prefill");
  ASSERT_EQ(prefill.kind, OpKind::AttentionPrefill);
  EXPECT_EQ(prefill.attention().num_heads, 32);
  EXPECT_EQ(prefill.attention().num_kv_heads, 8);
  EXPECT_EQ(prefill.attention().head_dim, 128);
  EXPECT_TRUE(prefill.attention().causal);
  EXPECT_EQ(prefill.m_buckets, c.serving.prefill_tokens);

  const OpConfig &decode = named.at("decode");
  ASSERT_EQ(decode.kind, OpKind::AttentionDecode);
  EXPECT_EQ(decode.attention().num_heads, 32);
  EXPECT_EQ(decode.attention().num_kv_heads, 8);
  EXPECT_EQ(decode.attention().page_size, 16);
  EXPECT_EQ(decode.attention().max_context, 8192);
  EXPECT_EQ(decode.attention().maxPagesPerSeq(), 512);
  EXPECT_EQ(decode.m_buckets, c.serving.decode_batch);
}

TEST(ShippedCatalogs, Llama3_8bKeysAreStableAndUnique) {
  std::vector<OpConfig> ops = expand(loadShipped("llama3-8b.yaml"));
  std::vector<std::string> keys;
  for (const OpConfig &op : ops) keys.push_back(op.key());
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "gemm.qkv.n6144.k4096.bf16", "gemm.o.n4096.k4096.bf16",
                      "gemm.gate_up.n28672.k4096.bf16", "gemm.down.n4096.k14336.bf16",
                      "gemm.lm_head.n128256.k4096.bf16", "attn_prefill.h32.kv8.d128.causal.bf16",
                      "attn_decode.h32.kv8.d128.page16.ctx8192.bf16"}));
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size());
  EXPECT_EQ(ops[1].shapeKey(), "gemm.n4096.k4096.bf16");
  EXPECT_EQ(ops[0].describe(), "gemm qkv: C[M,6144] = A[M,4096] * B[6144,4096]^T (bf16, f32 "
                               "accumulate), M in {1,2,...,8192} (14 buckets)");
  EXPECT_NE(ops[6].describe().find("16 tokens per page"), std::string::npos) << ops[6].describe();
}

TEST(ShippedCatalogs, Llama3_8bTensorParallel8) {
  Catalog c = parseOk(R"(model: llama3-8b-tp8
dtype: bf16
architecture:
  hidden_size: 4096
  intermediate_size: 14336
  num_hidden_layers: 32
  num_attention_heads: 32
  num_key_value_heads: 8
  vocab_size: 128256
serving:
  tensor_parallel: 8
  decode_batch: [1, 8, 64]
  prefill_tokens: [8, 512]
  kv_page_size: 32
  max_context: 4096
)");
  EXPECT_FALSE(c.arch.head_dim_explicit);
  EXPECT_EQ(c.arch.head_dim, 128);
  std::vector<OpConfig> ops = expand(c);
  std::map<std::string, OpConfig> named = byName(ops);
  expectGemm(named, "qkv", (4 + 2 * 1) * 128, 4096); // 768
  expectGemm(named, "o", 4096, 512);
  expectGemm(named, "gate_up", 3584, 4096);
  expectGemm(named, "down", 4096, 1792);
  expectGemm(named, "lm_head", 16032, 4096);
  // Bucket union: 8 appears in both lists and once in the union.
  EXPECT_EQ(named.at("qkv").m_buckets, (std::vector<int64_t>{1, 8, 64, 512}));
  EXPECT_EQ(named.at("prefill").attention().num_heads, 4);
  EXPECT_EQ(named.at("prefill").attention().num_kv_heads, 1);
  EXPECT_EQ(named.at("decode").attention().page_size, 32);
  EXPECT_EQ(named.at("decode").attention().maxPagesPerSeq(), 128);
  EXPECT_EQ(named.at("decode").key(), "attn_decode.h4.kv1.d128.page32.ctx4096.bf16");
}

TEST(ShippedCatalogs, ExplicitHeadDimMayDifferFromHiddenOverHeads) {
  // Gemma-7B style: hidden 3072, 16 heads of 256 (16 * 256 = 4096 != 3072).
  Catalog c = parseOk(R"(model: gemma-7b
dtype: f16
architecture: {hidden_size: 3072, intermediate_size: 24576, num_hidden_layers: 28,
               num_attention_heads: 16, num_key_value_heads: 16, head_dim: 256,
               vocab_size: 256000}
serving: {decode_batch: [1], prefill_tokens: [100], kv_page_size: 16, max_context: 8192}
)");
  EXPECT_EQ(c.serving.tensor_parallel, 1); // default
  std::map<std::string, OpConfig> named = byName(expand(c));
  expectGemm(named, "qkv", 3 * 16 * 256, 3072);
  expectGemm(named, "o", 3072, 4096);
  EXPECT_EQ(named.at("qkv").key(), "gemm.qkv.n12288.k3072.f16");
}

TEST(ShippedCatalogs, TinyTest) {
  Catalog c = loadShipped("tiny-test.yaml");
  EXPECT_EQ(c.model, "tiny-test");
  std::map<std::string, OpConfig> named = byName(expand(c));
  expectGemm(named, "qkv", (4 + 2 * 2) * 64, 256);
  expectGemm(named, "o", 256, 256);
  expectGemm(named, "gate_up", 1024, 256);
  expectGemm(named, "down", 256, 512);
  expectGemm(named, "lm_head", 1000, 256);
  EXPECT_EQ(named.at("qkv").m_buckets, (std::vector<int64_t>{1, 4, 16, 64, 200}));
  EXPECT_EQ(named.at("prefill").attention().num_heads, 4);
  EXPECT_EQ(named.at("prefill").attention().num_kv_heads, 2);
  EXPECT_EQ(named.at("prefill").m_buckets, (std::vector<int64_t>{64, 200}));
  EXPECT_EQ(named.at("decode").m_buckets, (std::vector<int64_t>{1, 4, 16}));
}

TEST(ShippedCatalogs, Mixtral8x7b) {
  Catalog c = loadShipped("mixtral-8x7b.yaml");
  ASSERT_TRUE(c.arch.moe.has_value());
  EXPECT_EQ(c.arch.moe->num_experts, 8);
  EXPECT_EQ(c.arch.moe->num_experts_per_tok, 2);
  EXPECT_EQ(c.arch.moe->moe_intermediate_size, 14336); // from intermediate_size
  EXPECT_EQ(c.arch.moe->shared_expert_intermediate_size, 0);

  std::vector<OpConfig> ops = expand(c);
  std::map<std::string, OpConfig> named = byName(ops);
  expectGemm(named, "qkv", 6144, 4096);
  expectGemm(named, "o", 4096, 4096);
  expectGemm(named, "router", 8, 4096);
  expectGemm(named, "lm_head", 32000, 4096);
  EXPECT_EQ(named.count("gate_up"), 0u) << "MoE models have no dense gate_up";
  EXPECT_EQ(named.count("down"), 0u);
  EXPECT_EQ(named.count("shared_gate_up"), 0u);
  const OpConfig &moe = named.at("experts");
  ASSERT_EQ(moe.kind, OpKind::Moe);
  EXPECT_EQ(moe.moe().num_experts, 8);
  EXPECT_EQ(moe.moe().top_k, 2);
  EXPECT_EQ(moe.moe().hidden, 4096);
  EXPECT_EQ(moe.moe().intermediate, 14336);
  EXPECT_EQ(moe.key(), "moe.e8.top2.h4096.i14336.bf16");
  EXPECT_EQ(moe.m_buckets, kLlamaTokens);
  EXPECT_EQ(named.at("decode").attention().max_context, 32768);
}

TEST(ShippedCatalogs, MoeWithSharedExpertAndTensorParallel) {
  // Qwen1.5-MoE-A2.7B shapes, TP 2: 60 experts of 1408, top-4, shared 5632.
  Catalog c = parseOk(R"(model: qwen1.5-moe-a2.7b
dtype: bf16
architecture:
  hidden_size: 2048
  intermediate_size: 5632
  num_hidden_layers: 24
  num_attention_heads: 16
  num_key_value_heads: 16
  vocab_size: 151936
  num_experts: 60
  num_experts_per_tok: 4
  moe_intermediate_size: 1408
  shared_expert_intermediate_size: 5632
serving:
  tensor_parallel: 2
  decode_batch: [1, 16]
  prefill_tokens: [256]
  kv_page_size: 16
  max_context: 8192
)");
  ASSERT_TRUE(c.arch.moe.has_value());
  std::map<std::string, OpConfig> named = byName(expand(c));
  expectGemm(named, "qkv", (8 + 2 * 8) * 128, 2048);
  expectGemm(named, "router", 60, 2048);
  expectGemm(named, "shared_gate_up", 5632, 2048);
  expectGemm(named, "shared_down", 2048, 2816);
  expectGemm(named, "lm_head", 75968, 2048);
  EXPECT_EQ(named.at("experts").moe().intermediate, 704);
  EXPECT_EQ(named.at("experts").moe().num_experts, 60);
  EXPECT_EQ(named.at("experts").moe().top_k, 4);
}

TEST(ShippedCatalogs, DtypeNames) {
  for (Dtype d : {Dtype::F32, Dtype::F16, Dtype::BF16})
    EXPECT_EQ(parseDtype(dtypeName(d)), d);
  EXPECT_FALSE(parseDtype("bfloat16").has_value());
}

TEST(ShippedCatalogs, MissingFileIsAnErrorNotACrash) {
  Result<Catalog> r = loadCatalog("/nonexistent/dir/model.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().file, "/nonexistent/dir/model.yaml");
  EXPECT_EQ(r.error().line, 0);
  EXPECT_EQ(r.error().format(), "/nonexistent/dir/model.yaml: error: cannot read file: no such file");
  Result<Catalog> dir = loadCatalog(ARGUS_SHAPES_DIR);
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().message.find("not a regular file"), std::string::npos);
}

// The other shipped models: shapes checked by hand against their HF configs
// (per-GPU shares for tensor parallelism, as vLLM splits them).
TEST(ShippedCatalogs, Llama3_70bTensorParallel8) {
  Catalog c = loadShipped("llama3-70b-tp8.yaml");
  EXPECT_EQ(c.serving.tensor_parallel, 8);
  std::map<std::string, OpConfig> named = byName(expand(c));
  expectGemm(named, "qkv", (8 + 2 * 1) * 128, 8192);
  expectGemm(named, "o", 8192, 1024);
  expectGemm(named, "gate_up", 2 * 28672 / 8, 8192);
  expectGemm(named, "down", 8192, 28672 / 8);
  expectGemm(named, "lm_head", 128256 / 8, 8192);
  EXPECT_EQ(named.at("prefill").attention().num_heads, 8);
  EXPECT_EQ(named.at("prefill").attention().num_kv_heads, 1);
}

TEST(ShippedCatalogs, Qwen2_5_7b) {
  std::map<std::string, OpConfig> named = byName(expand(loadShipped("qwen2.5-7b.yaml")));
  expectGemm(named, "qkv", (28 + 2 * 4) * 128, 3584);
  expectGemm(named, "o", 3584, 3584);
  expectGemm(named, "gate_up", 2 * 18944, 3584);
  expectGemm(named, "down", 3584, 18944);
  expectGemm(named, "lm_head", 152064, 3584);
  EXPECT_EQ(named.at("decode").attention().num_heads, 28);
  EXPECT_EQ(named.at("decode").attention().num_kv_heads, 4);
}

TEST(ShippedCatalogs, Mistral7b) {
  std::map<std::string, OpConfig> named = byName(expand(loadShipped("mistral-7b.yaml")));
  expectGemm(named, "qkv", (32 + 2 * 8) * 128, 4096);
  expectGemm(named, "gate_up", 2 * 14336, 4096);
  expectGemm(named, "down", 4096, 14336);
  expectGemm(named, "lm_head", 32768, 4096);
}

TEST(ShippedCatalogs, Qwen3_30bA3b) {
  Catalog c = loadShipped("qwen3-30b-a3b.yaml");
  ASSERT_TRUE(c.arch.moe.has_value());
  std::map<std::string, OpConfig> named = byName(expand(c));
  // head_dim 128 is explicit: 32 heads x 128 = 4096 != hidden 2048.
  expectGemm(named, "qkv", (32 + 2 * 4) * 128, 2048);
  expectGemm(named, "o", 2048, 32 * 128);
  expectGemm(named, "router", 128, 2048);
  EXPECT_EQ(named.count("gate_up"), 0u); // every layer is MoE: no dense FFN
  EXPECT_EQ(named.at("experts").moe().num_experts, 128);
  EXPECT_EQ(named.at("experts").moe().top_k, 8);
  EXPECT_EQ(named.at("experts").moe().intermediate, 768);
}

TEST(ShippedCatalogs, DeepSeekV2Lite) {
  Catalog c = loadShipped("deepseek-v2-lite.yaml");
  ASSERT_TRUE(c.arch.moe.has_value());
  ASSERT_TRUE(c.arch.mla.has_value());
  EXPECT_EQ(c.arch.head_dim, 192) << "qk_nope 128 + qk_rope 64";
  EXPECT_EQ(c.arch.v_head_dim, 128);
  EXPECT_EQ(c.arch.moe->shared_expert_intermediate_size, 2 * 1408) << "2 shared experts of 1408";
  EXPECT_EQ(c.arch.moe->first_k_dense_replace, 1);
  std::map<std::string, OpConfig> named = byName(expand(c));
  expectGemm(named, "q", 16 * 192, 2048);              // no query latent in the Lite model
  expectGemm(named, "kv_a", 512 + 64, 2048);           // KV latent and the shared rotary key
  expectGemm(named, "kv_b", 16 * (128 + 128), 512);    // per head: no-position key part and value
  expectGemm(named, "o", 2048, 16 * 128);              // values are 128 wide
  expectGemm(named, "gate_up", 2 * 10944, 2048);       // the dense first layer
  expectGemm(named, "down", 2048, 10944);
  expectGemm(named, "router", 64, 2048);
  expectGemm(named, "shared_gate_up", 2 * 2816, 2048);
  expectGemm(named, "shared_down", 2048, 2816);
  expectGemm(named, "lm_head", 102400, 2048);
  EXPECT_EQ(named.count("qkv"), 0u);
  EXPECT_EQ(named.at("experts").key(), "moe.e64.top6.h2048.i1408.bf16");
  EXPECT_EQ(named.at("prefill").key(), "attn_prefill.h16.kv16.d192.dv128.causal.bf16");
  EXPECT_EQ(named.at("decode").attention().valueDim(), 128);
  EXPECT_EQ(named.at("decode").key(), "attn_decode.h16.kv16.d192.dv128.page16.ctx32768.bf16");
}

TEST(ShippedCatalogs, LatentAttentionWithQueryLatentAndTensorParallel) {
  // DeepSeek-V2 shapes (a query latent of 1536), TP 8: heads split, latents replicated.
  Catalog c = parseOk(R"(model: deepseek-v2-tp8
dtype: bf16
architecture:
  hidden_size: 5120
  intermediate_size: 12288
  num_hidden_layers: 60
  num_attention_heads: 128
  num_key_value_heads: 128
  vocab_size: 102400
  kv_lora_rank: 512
  q_lora_rank: 1536
  qk_nope_head_dim: 128
  qk_rope_head_dim: 64
  v_head_dim: 128
  n_routed_experts: 160
  n_shared_experts: 2
  num_experts_per_tok: 6
  moe_intermediate_size: 1536
  first_k_dense_replace: 1
serving:
  tensor_parallel: 8
  decode_batch: [1, 16]
  prefill_tokens: [256]
  kv_page_size: 64
  max_context: 8192
)");
  std::map<std::string, OpConfig> named = byName(expand(c));
  expectGemm(named, "q_a", 1536, 5120);
  expectGemm(named, "q_b", 16 * 192, 1536);
  expectGemm(named, "kv_a", 576, 5120);
  expectGemm(named, "kv_b", 16 * 256, 512);
  expectGemm(named, "o", 5120, 16 * 128);
  expectGemm(named, "gate_up", 2 * 12288 / 8, 5120);
  expectGemm(named, "shared_down", 5120, 2 * 1536 / 8);
  EXPECT_EQ(named.count("q"), 0u);
  EXPECT_EQ(named.at("prefill").attention().num_heads, 16);
  EXPECT_EQ(named.at("experts").moe().intermediate, 1536 / 8);
}
