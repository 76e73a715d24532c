//===- HfConfigTest.cpp - catalogs from HF config.json + serving profile --===//
#include "argus/Catalog/Catalog.h"
#include "argus/Catalog/OpConfig.h"

#include <gtest/gtest.h>

using namespace argus::catalog;

namespace {

// Meta-Llama-3-8B's config.json (abridged, with keys that do not shape kernels).
const char *const kLlamaConfig = R"({
  "architectures": ["LlamaForCausalLM"],
  "bos_token_id": 128000,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "max_position_embeddings": 8192,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05,
  "rope_theta": 500000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "vocab_size": 128256
})";

const char *const kProfile = R"(model: llama3-8b
serving:
  tensor_parallel: 1
  decode_batch: [1, 2, 4, 8, 16, 32, 64, 128, 256]
  prefill_tokens: [128, 512, 1024, 2048, 4096, 8192]
  kv_page_size: 16
  max_context: 8192
)";

} // namespace

TEST(HfConfig, LlamaMatchesTheShippedCatalog) {
  Result<Catalog> hf = catalogFromHfConfig(kLlamaConfig, "config.json", kProfile, "profile.yaml");
  ASSERT_TRUE(hf.ok()) << hf.error().format();
  Result<Catalog> shipped = loadCatalog(std::string(ARGUS_SHAPES_DIR) + "/llama3-8b.yaml");
  ASSERT_TRUE(shipped.ok()) << shipped.error().format();
  EXPECT_EQ(hf->dtype, Dtype::BF16);
  EXPECT_EQ(hf->arch.head_dim, 128);
  EXPECT_EQ(hf->content_hash, shipped->content_hash);
  std::vector<OpConfig> a = expand(hf.value()), b = expand(shipped.value());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].key(), b[i].key());
}

// DeepSeek-V2-Lite's config.json (abridged): its q_lora_rank is null (no query latent).
TEST(HfConfig, DeepSeekV2LiteMatchesTheShippedCatalog) {
  const char *config = R"({"architectures": ["DeepseekV2ForCausalLM"], "hidden_size": 2048,
    "intermediate_size": 10944, "moe_intermediate_size": 1408, "num_hidden_layers": 27,
    "num_attention_heads": 16, "num_key_value_heads": 16, "n_routed_experts": 64, "n_shared_experts": 2,
    "num_experts_per_tok": 6, "first_k_dense_replace": 1, "kv_lora_rank": 512, "q_lora_rank": null,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 102400,
    "norm_topk_prob": false, "topk_method": "greedy", "torch_dtype": "bfloat16"})";
  const char *profile = R"(model: deepseek-v2-lite
serving:
  tensor_parallel: 1
  decode_batch: [1, 2, 4, 8, 16, 32, 64, 128, 256]
  prefill_tokens: [128, 512, 1024, 2048, 4096, 8192]
  kv_page_size: 16
  max_context: 32768
)";
  Result<Catalog> hf = catalogFromHfConfig(config, "config.json", profile, "profile.yaml");
  ASSERT_TRUE(hf.ok()) << hf.error().format();
  Result<Catalog> shipped = loadCatalog(std::string(ARGUS_SHAPES_DIR) + "/deepseek-v2-lite.yaml");
  ASSERT_TRUE(shipped.ok()) << shipped.error().format();
  EXPECT_EQ(hf->content_hash, shipped->content_hash);
  std::vector<OpConfig> a = expand(hf.value()), b = expand(shipped.value());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].key(), b[i].key());
}

TEST(HfConfig, MixtralAndDefaults) {
  const char *config = R"({"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 32000, "head_dim": null,
    "num_local_experts": 8, "num_experts_per_tok": 2, "torch_dtype": "bfloat16",
    "router_aux_loss_coef": 0.02})";
  Result<Catalog> c = catalogFromHfConfig(config, "mixtral/config.json",
                                          "model: mixtral-8x7b\ndtype: f16\n"
                                          "serving: {decode_batch: [1], prefill_tokens: [64],"
                                          " kv_page_size: 16, max_context: 32768}\n",
                                          "p.yaml");
  ASSERT_TRUE(c.ok()) << c.error().format();
  EXPECT_EQ(c->dtype, Dtype::F16) << "the profile's dtype wins over torch_dtype";
  EXPECT_FALSE(c->arch.head_dim_explicit) << "null head_dim is absent";
  ASSERT_TRUE(c->arch.moe.has_value());
  EXPECT_EQ(c->arch.moe->num_experts, 8);
  EXPECT_EQ(expand(c.value()).back().key(), "attn_decode.h32.kv8.d128.page16.ctx32768.f16");

  // No num_key_value_heads: HF default is num_attention_heads (no GQA).
  const char *mha = R"({"hidden_size": 256, "intermediate_size": 512, "num_attention_heads": 4,
    "num_hidden_layers": 2, "vocab_size": 1000, "torch_dtype": "float32"})";
  Result<Catalog> m = catalogFromHfConfig(mha, "c.json", kProfile, "p.yaml");
  ASSERT_TRUE(m.ok()) << m.error().format();
  EXPECT_EQ(m->arch.num_key_value_heads, 4);
  EXPECT_EQ(m->dtype, Dtype::F32);
}

TEST(HfConfig, TextConfigOfMultimodalModels) {
  const char *config = R"({"model_type": "mistral3", "text_config": {"hidden_size": 5120,
    "intermediate_size": 32768, "num_attention_heads": 32, "num_hidden_layers": 40,
    "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 131072},
    "vision_config": {"hidden_size": 1024}, "torch_dtype": "bfloat16"})";
  Result<Catalog> c = catalogFromHfConfig(config, "c.json", kProfile, "p.yaml");
  ASSERT_TRUE(c.ok()) << c.error().format();
  EXPECT_EQ(c->arch.hidden_size, 5120);
  EXPECT_TRUE(c->arch.head_dim_explicit);
  EXPECT_EQ(expand(c.value())[1].key(), "gemm.o.n5120.k4096.bf16");
}

TEST(HfConfig, Errors) {
  struct Case {
    const char *config;
    const char *profile;
    const char *file;
    int line;
    const char *key;
    const char *message;
  };
  const Case cases[] = {
      {"{\"hidden_size\": 4096,\n \"vocab_size\": }", kProfile, "config.json", 2, "",
       "invalid JSON"},
      {"[1, 2]", kProfile, "config.json", 1, "", "config.json must hold a JSON object; found array"},
      {R"({"hidden_size": "4096", "intermediate_size": 1, "num_attention_heads": 1,
          "num_hidden_layers": 1, "vocab_size": 1, "torch_dtype": "bfloat16"})",
       kProfile, "config.json", 0, "architecture.hidden_size",
       "architecture.hidden_size must be an integer; found \"4096\" in config.json"},
      {R"({"hidden_size": 18446744073709551615, "intermediate_size": 1,
          "num_attention_heads": 1, "num_hidden_layers": 1, "vocab_size": 1})",
       kProfile, "config.json", 0, "architecture.hidden_size",
       "architecture.hidden_size = 18446744073709551615 is out of range"},
      {R"({"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
          "num_hidden_layers": 32, "torch_dtype": "bfloat16"})",
       kProfile, "config.json", 0, "architecture.vocab_size",
       "missing required key 'vocab_size' in architecture"},
      {R"({"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
          "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 100,
          "torch_dtype": "float8_e4m3fn"})",
       kProfile, "profile.yaml", 1, "dtype", "torch_dtype is \"float8_e4m3fn\""},
      {kLlamaConfig, "model: x\narchitecture: {hidden_size: 1}\n", "profile.yaml", 2,
       "architecture", "a serving profile takes the architecture from config.json"},
      {kLlamaConfig, "model: llama3-8b\nserving: {tensor_parallel: 16, decode_batch: [1],"
                     " prefill_tokens: [1], kv_page_size: 16, max_context: 64}\n",
       "profile.yaml", 2, "serving.tensor_parallel",
       "num_key_value_heads (8) is not divisible by tensor_parallel (16)"},
      {kLlamaConfig, "serving: {decode_batch: [1], prefill_tokens: [1], kv_page_size: 16,"
                     " max_context: 64}\n",
       "profile.yaml", 1, "model", "missing required key 'model' at top level"},
  };
  for (const Case &c : cases) {
    Result<Catalog> r = catalogFromHfConfig(c.config, "config.json", c.profile, "profile.yaml");
    ASSERT_FALSE(r.ok()) << c.message;
    EXPECT_EQ(r.error().file, c.file) << r.error().format();
    EXPECT_EQ(r.error().line, c.line) << r.error().format();
    EXPECT_EQ(r.error().key, c.key) << r.error().format();
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << "expected: " << c.message << "\n got: " << r.error().format();
  }
}
