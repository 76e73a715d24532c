//===- CatalogHashTest.cpp - SHA-256 and the catalog content hash ---------===//
//
// The manifest's catalog hash must not move when only the presentation of a
// catalog changes, and must move when any value does.
//
//===----------------------------------------------------------------------===//
#include "argus/Catalog/Catalog.h"
#include "argus/Catalog/CatalogHash.h"

#include <gtest/gtest.h>

#include <set>

using namespace argus::catalog;

namespace {

const char *const kCatalog = R"(model: hash-model
dtype: bf16
architecture:
  hidden_size: 2048
  intermediate_size: 8192
  num_hidden_layers: 16
  num_attention_heads: 16
  num_key_value_heads: 4
  vocab_size: 32000
serving:
  tensor_parallel: 1
  decode_batch: [1, 2, 4]
  prefill_tokens: [128, 256]
  kv_page_size: 16
  max_context: 4096
)";

std::string hashOf(const std::string &text) {
  Result<Catalog> result = parseCatalog(text, "hash.yaml");
  if (!result.ok()) {
    ADD_FAILURE() << result.error().format();
    return "";
  }
  EXPECT_EQ(result->content_hash, catalogHash(result.value()));
  return result->content_hash;
}

std::string edit(std::string text, const std::string &from, const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

} // namespace

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the padding spills into a second block.
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Exactly one block of data (64 bytes) and 55 bytes (padding fits exactly).
  EXPECT_EQ(sha256Hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
  EXPECT_EQ(sha256Hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
}

TEST(CatalogHash, CanonicalText) {
  Result<Catalog> c = parseCatalog(kCatalog, "hash.yaml");
  ASSERT_TRUE(c.ok()) << c.error().format();
  EXPECT_EQ(canonicalText(c.value()), R"(argus-catalog-v1
model=hash-model
dtype=bf16
architecture.hidden_size=2048
architecture.intermediate_size=8192
architecture.num_hidden_layers=16
architecture.num_attention_heads=16
architecture.num_key_value_heads=4
architecture.head_dim=128
architecture.vocab_size=32000
serving.tensor_parallel=1
serving.decode_batch=1,2,4
serving.prefill_tokens=128,256
serving.kv_page_size=16
serving.max_context=4096
)");
}

TEST(CatalogHash, PresentationDoesNotChangeTheHash) {
  const std::string base = hashOf(kCatalog);
  ASSERT_EQ(base.size(), 64u);
  // Comments, blank lines, flow style, key order, quoting of strings,
  // default values written out, head_dim equal to its derived value.
  const std::string reordered = R"(# a comment
serving:
  max_context: 4096     # trailing comment
  kv_page_size: 16
  prefill_tokens:
    - 128
    - 256
  decode_batch: [1,2,4]

architecture: {vocab_size: 32000, num_key_value_heads: 4, num_attention_heads: 16,
               num_hidden_layers: 16, intermediate_size: 8192, hidden_size: 2048, head_dim: 128}
dtype: "bf16"
model: 'hash-model'
)";
  EXPECT_EQ(hashOf(reordered), base);
  EXPECT_EQ(hashOf(edit(kCatalog, "  tensor_parallel: 1\n", "")), base);
  // The HF alias used for the expert count does not matter.
  const std::string moeA = edit(kCatalog, "  vocab_size: 32000\n",
                                "  vocab_size: 32000\n  num_local_experts: 8\n  num_experts_per_tok: 2\n");
  const std::string moeB = edit(kCatalog, "  vocab_size: 32000\n",
                                "  vocab_size: 32000\n  num_experts: 8\n  num_experts_per_tok: 2\n");
  EXPECT_EQ(hashOf(moeA), hashOf(moeB));
  EXPECT_NE(hashOf(moeA), base);
  // Path is not content.
  Result<Catalog> other = parseCatalog(kCatalog, "elsewhere/other-name.yaml");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->content_hash, base);
}

TEST(CatalogHash, EveryValueChangesTheHash) {
  const std::string base = hashOf(kCatalog);
  const std::pair<const char *, const char *> edits[] = {
      {"model: hash-model", "model: hash-model2"},
      {"dtype: bf16", "dtype: f16"},
      {"hidden_size: 2048", "hidden_size: 4096"},
      {"intermediate_size: 8192", "intermediate_size: 8194"},
      {"num_hidden_layers: 16", "num_hidden_layers: 17"},
      {"num_attention_heads: 16", "num_attention_heads: 32"},
      {"num_key_value_heads: 4", "num_key_value_heads: 8"},
      {"vocab_size: 32000", "vocab_size: 32001"},
      {"vocab_size: 32000", "vocab_size: 32000\n  head_dim: 64"},
      {"tensor_parallel: 1", "tensor_parallel: 2"},
      {"decode_batch: [1, 2, 4]", "decode_batch: [1, 2, 4, 8]"},
      {"decode_batch: [1, 2, 4]", "decode_batch: [1, 2, 5]"},
      {"prefill_tokens: [128, 256]", "prefill_tokens: [128, 257]"},
      {"kv_page_size: 16", "kv_page_size: 32"},
      {"max_context: 4096", "max_context: 4097"},
      // multi-head latent attention, shared experts and dense layers (absent above)
      {"vocab_size: 32000", "vocab_size: 32000\n  kv_lora_rank: 512\n  qk_nope_head_dim: 128\n"
                            "  qk_rope_head_dim: 64\n  v_head_dim: 128"},
      {"vocab_size: 32000", "vocab_size: 32000\n  kv_lora_rank: 512\n  qk_nope_head_dim: 128\n"
                            "  qk_rope_head_dim: 64\n  v_head_dim: 96"},
      {"vocab_size: 32000", "vocab_size: 32000\n  kv_lora_rank: 512\n  q_lora_rank: 1536\n  qk_nope_head_dim: 128\n"
                            "  qk_rope_head_dim: 64\n  v_head_dim: 128"},
      {"vocab_size: 32000", "vocab_size: 32000\n  num_experts: 8\n  num_experts_per_tok: 2\n  n_shared_experts: 1"},
      {"vocab_size: 32000", "vocab_size: 32000\n  num_experts: 8\n  num_experts_per_tok: 2\n  first_k_dense_replace: 1"},
  };
  std::set<std::string> seen = {base};
  for (auto [from, to] : edits) {
    std::string h = hashOf(edit(kCatalog, from, to));
    EXPECT_TRUE(seen.insert(h).second) << "hash did not change (or collided) for: " << to;
  }
  // Moving a bucket from decode to prefill is a different catalog.
  std::string moved = edit(edit(kCatalog, "decode_batch: [1, 2, 4]", "decode_batch: [1, 2]"),
                           "prefill_tokens: [128, 256]", "prefill_tokens: [4, 128, 256]");
  EXPECT_TRUE(seen.insert(hashOf(moved)).second);
}
