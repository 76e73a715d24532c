//===- CatalogErrorsTest.cpp - every loader diagnostic, pinned ------------===//
//
// Table-driven: each case edits one line of a valid catalog (or gives a whole
// text) and states the line, column, key and message the loader must report.
// A case that loads, or reports anything else, fails.
//
//===----------------------------------------------------------------------===//
#include "argus/Catalog/Catalog.h"

#include <gtest/gtest.h>

using namespace argus::catalog;

namespace {

// Line numbers below refer to this text.
const char *const kBase = R"(model: test-model
dtype: bf16
architecture:
  hidden_size: 4096
  intermediate_size: 14336
  num_hidden_layers: 32
  num_attention_heads: 32
  num_key_value_heads: 8
  vocab_size: 128256
serving:
  tensor_parallel: 1
  decode_batch: [1, 2, 4, 8]
  prefill_tokens: [128, 512]
  kv_page_size: 16
  max_context: 8192
)";

struct ErrorCase {
  const char *name;
  const char *from; // text of kBase to replace ("" = replace all of kBase)
  const char *to;
  int line;
  int column;
  const char *key;
  const char *message; // substring of CatalogError::message
  const char *from2 = nullptr; // optional second edit
  const char *to2 = nullptr;
};

std::string replaceOnce(std::string text, const std::string &from, const std::string &to) {
  size_t at = text.find(from);
  if (at == std::string::npos) return "<edit '" + from + "' does not apply>";
  return text.replace(at, from.size(), to);
}

std::string apply(const ErrorCase &c) {
  if (std::string(c.from).empty()) return c.to;
  std::string text = replaceOnce(kBase, c.from, c.to);
  return c.from2 ? replaceOnce(text, c.from2, c.to2) : text;
}

const char *const kMoe = "  vocab_size: 128256\n";

const ErrorCase kCases[] = {
    // --- keys
    {"UnknownKeyTypo", "  hidden_size: 4096", "  hiden_size: 4096", 4, 3, "architecture.hiden_size",
     "unknown key 'hiden_size' in architecture (did you mean 'hidden_size'?)"},
    {"UnknownServingKeyTypo", "  kv_page_size: 16", "  kv_page_sise: 16", 14, 3,
     "serving.kv_page_sise", "unknown key 'kv_page_sise' in serving (did you mean 'kv_page_size'?)"},
    {"UnknownTopLevelKey", "model: test-model\n", "model: test-model\nrevision: 3\n", 2, 1,
     "revision", "unknown key 'revision' at top level; expected one of model, dtype, architecture, serving"},
    {"KeyInWrongSection", kMoe, "  vocab_size: 128256\n  tensor_parallel: 2\n", 10, 3,
     "architecture.tensor_parallel",
     "unknown key 'tensor_parallel' in architecture (it belongs in serving)"},
    {"TopLevelKeyInSection", kMoe, "  vocab_size: 128256\n  dtype: bf16\n", 10, 3,
     "architecture.dtype", "unknown key 'dtype' in architecture (it is a top-level key)"},
    {"DuplicateKey", kMoe, "  vocab_size: 128256\n  hidden_size: 2048\n", 10, 3,
     "architecture.hidden_size", "duplicate key 'hidden_size' in architecture (first at line 4)"},
    {"NonScalarKey", kMoe, "  vocab_size: 128256\n  [a, b]: 1\n", 10, 3, "architecture",
     "keys must be plain names; found a list as a key in architecture"},
    // --- required keys
    {"MissingArchitectureField", kMoe, "", 3, 1, "architecture.vocab_size",
     "missing required key 'vocab_size' in architecture"},
    {"MissingNumKvHeads", "  num_key_value_heads: 8\n", "", 3, 1,
     "architecture.num_key_value_heads", "missing required key 'num_key_value_heads' in architecture"},
    {"MissingServingField", "  max_context: 8192\n", "", 10, 1, "serving.max_context",
     "missing required key 'max_context' in serving"},
    {"MissingDtype", "dtype: bf16\n", "", 1, 1, "dtype", "missing required key 'dtype' at top level"},
    {"MissingServingSection",
     "serving:\n  tensor_parallel: 1\n  decode_batch: [1, 2, 4, 8]\n  prefill_tokens: [128, 512]\n"
     "  kv_page_size: 16\n  max_context: 8192\n",
     "", 1, 1, "serving", "missing required key 'serving' at top level"},
    // --- types
    {"StringForInt", "  hidden_size: 4096", "  hidden_size: big", 4, 16, "architecture.hidden_size",
     "architecture.hidden_size must be an integer; found 'big'"},
    {"QuotedInt", "  hidden_size: 4096", "  hidden_size: \"4096\"", 4, 16, "architecture.hidden_size",
     "must be an integer; found the quoted string \"4096\""},
    {"FloatForInt", "  num_hidden_layers: 32", "  num_hidden_layers: 32.5", 6, 22,
     "architecture.num_hidden_layers", "must be an integer; found '32.5'"},
    {"BoolForInt", "  tensor_parallel: 1", "  tensor_parallel: true", 11, 20,
     "serving.tensor_parallel", "serving.tensor_parallel must be an integer; found 'true'"},
    {"ListForScalar", "  kv_page_size: 16", "  kv_page_size: [16]", 14, 17, "serving.kv_page_size",
     "serving.kv_page_size must be an integer; found a list"},
    {"MappingForScalar", "  kv_page_size: 16", "  kv_page_size: {size: 16}", 14, 17,
     "serving.kv_page_size", "must be an integer; found a mapping"},
    {"NullForScalar", "  max_context: 8192", "  max_context:", 15, 3, "serving.max_context",
     "serving.max_context must be an integer; found no value"},
    {"ScalarForList", "  decode_batch: [1, 2, 4, 8]", "  decode_batch: 8", 12, 17,
     "serving.decode_batch", "serving.decode_batch must be a list of integers; found '8'"},
    {"NonIntInList", "  decode_batch: [1, 2, 4, 8]", "  decode_batch: [1, 2, x, 8]", 12, 24,
     "serving.decode_batch", "serving.decode_batch[2] must be an integer; found 'x'"},
    {"IntegerOutOfRange", "  vocab_size: 128256", "  vocab_size: 99999999999999999999", 9, 15,
     "architecture.vocab_size", "architecture.vocab_size = 99999999999999999999 is out of range"},
    {"ModelIsAList", "model: test-model", "model: [a, b]", 1, 8, "model",
     "model must be a string; found a list"},
    {"SectionIsAScalar",
     "serving:\n  tensor_parallel: 1\n  decode_batch: [1, 2, 4, 8]\n  prefill_tokens: [128, 512]\n"
     "  kv_page_size: 16\n  max_context: 8192\n",
     "serving: 16\n", 10, 10, "serving", "serving must be a mapping; found '16'"},
    // --- values
    {"ZeroSize", "  hidden_size: 4096", "  hidden_size: 0", 4, 16, "architecture.hidden_size",
     "architecture.hidden_size must be positive; found 0"},
    {"NegativeSize", "  num_hidden_layers: 32", "  num_hidden_layers: -2", 6, 22,
     "architecture.num_hidden_layers", "architecture.num_hidden_layers must be positive; found -2"},
    {"NegativeServingSize", "  kv_page_size: 16", "  kv_page_size: -16", 14, 17,
     "serving.kv_page_size", "serving.kv_page_size must be positive; found -16"},
    {"TooLarge", "  vocab_size: 128256", "  vocab_size: 100000000", 9, 15, "architecture.vocab_size",
     "architecture.vocab_size = 100000000 is too large (at most 16777216)"},
    {"ServingSizeTooLarge", "  max_context: 8192", "  max_context: 2147483648", 15, 16,
     "serving.max_context", "serving.max_context = 2147483648 is too large (at most 2147483647)"},
    {"BucketTooLarge", "  prefill_tokens: [128, 512]", "  prefill_tokens: [128, 3000000000]", 13,
     25, "serving.prefill_tokens",
     "serving.prefill_tokens entry 3000000000 is too large (at most 2147483647)"},
    {"ZeroTensorParallel", "  tensor_parallel: 1", "  tensor_parallel: 0", 11, 20,
     "serving.tensor_parallel", "serving.tensor_parallel must be positive; found 0"},
    {"EmptyBucketList", "  decode_batch: [1, 2, 4, 8]", "  decode_batch: []", 12, 17,
     "serving.decode_batch", "serving.decode_batch must not be empty"},
    {"UnsortedBuckets", "  decode_batch: [1, 2, 4, 8]", "  decode_batch: [1, 4, 2, 8]", 12, 24,
     "serving.decode_batch",
     "serving.decode_batch must be sorted in increasing order; found 2 after 4"},
    {"DuplicateBucket", "  prefill_tokens: [128, 512]", "  prefill_tokens: [128, 512, 512]", 13,
     30, "serving.prefill_tokens", "duplicate bucket 512 in serving.prefill_tokens"},
    {"ZeroBucket", "  prefill_tokens: [128, 512]", "  prefill_tokens: [0, 128, 512]", 13, 20,
     "serving.prefill_tokens", "serving.prefill_tokens must hold positive sizes; found 0"},
    {"BlockListUnsorted", "  prefill_tokens: [128, 512]", "  prefill_tokens:\n    - 512\n    - 128",
     15, 7, "serving.prefill_tokens", "found 128 after 512"},
    {"UnknownDtype", "dtype: bf16", "dtype: fp8", 2, 8, "dtype",
     "unknown dtype 'fp8' (expected bf16, f16 or f32)"},
    {"DtypeAlias", "dtype: bf16", "dtype: bfloat16", 2, 8, "dtype",
     "unknown dtype 'bfloat16' (did you mean 'bf16'?)"},
    {"BadModelName", "model: test-model", "model: Llama 3 8B", 1, 8, "model",
     "model name 'Llama 3 8B' is not a valid package name"},
    // --- relations between fields
    {"HeadsNotDivisibleByKvHeads", "  num_key_value_heads: 8", "  num_key_value_heads: 5", 8, 24,
     "architecture.num_key_value_heads",
     "num_attention_heads (32) is not divisible by num_key_value_heads (5)"},
    {"MoreKvHeadsThanHeads", "  num_key_value_heads: 8", "  num_key_value_heads: 64", 8, 24,
     "architecture.num_key_value_heads",
     "num_attention_heads (32) is not divisible by num_key_value_heads (64)"},
    {"HiddenNotDivisibleByHeads", "  hidden_size: 4096", "  hidden_size: 4100", 7, 24,
     "architecture.num_attention_heads",
     "hidden_size (4100) is not divisible by num_attention_heads (32); give head_dim explicitly"},
    {"KvHeadsNotDivisibleByTp", "  tensor_parallel: 1", "  tensor_parallel: 16", 11, 20,
     "serving.tensor_parallel", "num_key_value_heads (8) is not divisible by tensor_parallel (16)"},
    {"HeadsNotDivisibleByTp", "  tensor_parallel: 1", "  tensor_parallel: 3", 11, 20,
     "serving.tensor_parallel", "num_attention_heads (32) is not divisible by tensor_parallel (3)"},
    {"VocabNotDivisibleByTp", "  vocab_size: 128256\nserving:\n  tensor_parallel: 1",
     "  vocab_size: 128255\nserving:\n  tensor_parallel: 2", 11, 20, "serving.tensor_parallel",
     "vocab_size (128255) is not divisible by tensor_parallel (2)"},
    {"IntermediateNotDivisibleByTp", "  intermediate_size: 14336", "  intermediate_size: 14337", 11,
     20, "serving.tensor_parallel", "intermediate_size (14337) is not divisible by tensor_parallel (2)",
     "  tensor_parallel: 1", "  tensor_parallel: 2"},
    // --- MoE
    {"TopKExceedsExperts", kMoe, "  vocab_size: 128256\n  num_local_experts: 8\n  num_experts_per_tok: 9\n",
     11, 24, "architecture.num_experts_per_tok",
     "num_experts_per_tok (9) exceeds the number of experts (8)"},
    {"TopKWithoutExperts", kMoe, "  vocab_size: 128256\n  num_experts_per_tok: 2\n", 3, 1,
     "architecture.num_local_experts",
     "missing required key 'num_local_experts' (or 'num_experts', 'n_routed_experts') in architecture"},
    {"ExpertsWithoutTopK", kMoe, "  vocab_size: 128256\n  num_experts: 8\n", 3, 1,
     "architecture.num_experts_per_tok", "missing required key 'num_experts_per_tok' in architecture"},
    {"BothExpertCounts", kMoe,
     "  vocab_size: 128256\n  num_local_experts: 8\n  num_experts: 8\n  num_experts_per_tok: 2\n", 11,
     16, "architecture.num_experts", "give only one of num_local_experts, num_experts and n_routed_experts"},
    {"LocalAndRoutedExpertCounts", kMoe,
     "  vocab_size: 128256\n  num_local_experts: 8\n  n_routed_experts: 8\n  num_experts_per_tok: 2\n", 11, 21,
     "architecture.n_routed_experts", "give only one of num_local_experts, num_experts and n_routed_experts"},
    {"BothSharedExpertSizes", kMoe,
     "  vocab_size: 128256\n  num_experts: 8\n  num_experts_per_tok: 2\n"
     "  shared_expert_intermediate_size: 1024\n  n_shared_experts: 2\n",
     13, 21, "architecture.n_shared_experts",
     "give only one of shared_expert_intermediate_size and n_shared_experts"},
    {"DenseLayersBeyondTheModel", kMoe,
     "  vocab_size: 128256\n  num_experts: 8\n  num_experts_per_tok: 2\n  first_k_dense_replace: 33\n", 12, 26,
     "architecture.first_k_dense_replace", "first_k_dense_replace (33) must be in [0, num_hidden_layers = 32]"},
    // --- multi-head latent attention
    {"LatentKeysWithoutRank", kMoe, "  vocab_size: 128256\n  qk_nope_head_dim: 128\n", 3, 1,
     "architecture.kv_lora_rank", "missing required key 'kv_lora_rank' in architecture"},
    {"LatentWithoutValueDim", kMoe,
     "  vocab_size: 128256\n  kv_lora_rank: 512\n  qk_nope_head_dim: 128\n  qk_rope_head_dim: 64\n", 3, 1,
     "architecture.v_head_dim",
     "missing required key 'v_head_dim' in architecture: kv_lora_rank makes this multi-head latent attention"},
    {"LatentHeadDimMismatch", kMoe,
     "  vocab_size: 128256\n  head_dim: 128\n  kv_lora_rank: 512\n  qk_nope_head_dim: 128\n"
     "  qk_rope_head_dim: 64\n  v_head_dim: 128\n",
     10, 13, "architecture.head_dim",
     "head_dim (128) must equal qk_nope_head_dim + qk_rope_head_dim (192) under multi-head latent attention"},
    {"ZeroLatentRank", kMoe,
     "  vocab_size: 128256\n  kv_lora_rank: 0\n  qk_nope_head_dim: 128\n  qk_rope_head_dim: 64\n"
     "  v_head_dim: 128\n",
     10, 17, "architecture.kv_lora_rank", "architecture.kv_lora_rank must be positive"},
    {"ZeroExperts", kMoe, "  vocab_size: 128256\n  num_local_experts: 0\n  num_experts_per_tok: 2\n",
     10, 22, "architecture.num_local_experts", "architecture.num_local_experts must be positive"},
    {"MoeIntermediateNotDivisibleByTp", kMoe,
     "  vocab_size: 128256\n  num_experts: 8\n  num_experts_per_tok: 2\n  moe_intermediate_size: 1407\n",
     14, 20, "serving.tensor_parallel",
     "moe_intermediate_size (1407) is not divisible by tensor_parallel (2)", "  tensor_parallel: 1",
     "  tensor_parallel: 2"},
    {"SharedExpertNotDivisibleByTp", kMoe,
     "  vocab_size: 128256\n  num_experts: 8\n  num_experts_per_tok: 2\n"
     "  shared_expert_intermediate_size: 1407\n",
     14, 20, "serving.tensor_parallel",
     "shared_expert_intermediate_size (1407) is not divisible by tensor_parallel (2)",
     "  tensor_parallel: 1", "  tensor_parallel: 2"},
    // --- documents
    {"MalformedFlowList", "  decode_batch: [1, 2, 4, 8]", "  decode_batch: [1, 2, 4, 8", 13, 17, "",
     "invalid YAML: end of sequence flow not found"},
    {"BadIndentation", "  intermediate_size: 14336", "    intermediate_size: 14336", 5, 22, "",
     "invalid YAML: illegal map value"},
    {"RootIsAList", "", "- model: x\n- dtype: bf16\n", 1, 1, "",
     "a catalog must be a mapping with keys model, dtype, architecture, serving; found a list"},
    {"StrayLeadingComma", "model: test-model", ",model: test-model", 1, 1, "",
     "invalid YAML: unexpected token before the first key"},
    {"StrayCommaAfterComment", "", "# header\n\n  , model: x\n", 3, 3, "",
     "invalid YAML: unexpected token before the first key"},
    {"EmptyDocument", "", "# nothing but a comment\n", 1, 1, "", "the catalog is empty"},
    {"TwoDocuments", "", "model: a\n---\nmodel: b\n", 2, 1, "",
     "a catalog is one YAML document; found a second one"},
};

void PrintTo(const ErrorCase &c, std::ostream *os) { *os << c.name; }

class CatalogErrors : public ::testing::TestWithParam<ErrorCase> {};

} // namespace

TEST_P(CatalogErrors, ReportsFileLineColumnKeyAndMessage) {
  const ErrorCase &c = GetParam();
  std::string text = apply(c);
  Result<Catalog> result = parseCatalog(text, "shapes/bad.yaml");
  ASSERT_FALSE(result.ok()) << "loaded without error:\n" << text;
  const CatalogError &e = result.error();
  EXPECT_EQ(e.file, "shapes/bad.yaml");
  EXPECT_EQ(e.line, c.line) << e.format() << "\n" << text;
  EXPECT_EQ(e.column, c.column) << e.format() << "\n" << text;
  EXPECT_EQ(e.key, c.key) << e.format();
  EXPECT_NE(e.message.find(c.message), std::string::npos)
      << "expected message containing: " << c.message << "\n got: " << e.format();
  EXPECT_EQ(e.format().rfind("shapes/bad.yaml:" + std::to_string(c.line) + ":" +
                                 std::to_string(c.column) + ": error: ",
                             0),
            0u)
      << e.format();
}

INSTANTIATE_TEST_SUITE_P(Table, CatalogErrors, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ErrorCase> &info) {
                           return std::string(info.param.name);
                         });

TEST(CatalogErrorsBase, BaseCatalogIsValid) {
  Result<Catalog> result = parseCatalog(kBase, "base.yaml");
  ASSERT_TRUE(result.ok()) << result.error().format();
  EXPECT_EQ(result->arch.head_dim, 128);
}

TEST(CatalogErrorsBase, AtLeastTwentyCases) {
  EXPECT_GE(sizeof(kCases) / sizeof(kCases[0]), 20u);
}

TEST(CatalogErrorsBase, FormatWithoutPosition) {
  CatalogError e{"f.yaml", 0, 0, "", "cannot read file: no such file"};
  EXPECT_EQ(e.format(), "f.yaml: error: cannot read file: no such file");
  CatalogError f{"f.yaml", 3, 5, "serving", "boom"};
  EXPECT_EQ(f.format(), "f.yaml:3:5: error: boom");
}
