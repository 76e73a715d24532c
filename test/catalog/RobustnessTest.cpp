//===- RobustnessTest.cpp - the loader never crashes ----------------------===//
//
// Garbage and mutated catalogs must produce a result (a Catalog, or an error
// with a position inside the text), never a crash, a hang or an exception.
//
//===----------------------------------------------------------------------===//
#include "argus/Catalog/Catalog.h"
#include "argus/Catalog/OpConfig.h"

#include <gtest/gtest.h>

#include <random>

using namespace argus::catalog;

namespace {

const char *const kValid = R"(model: fuzz
dtype: f16
architecture:
  hidden_size: 512
  intermediate_size: 1024
  num_hidden_layers: 2
  num_attention_heads: 8
  num_key_value_heads: 2
  vocab_size: 1000
  num_experts: 4
  num_experts_per_tok: 2
serving:
  tensor_parallel: 2
  decode_batch: [1, 2, 4, 8]
  prefill_tokens: [16, 100]
  kv_page_size: 16
  max_context: 256
)";

int countLines(const std::string &text) {
  return 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

void expectWellFormed(const std::string &text) {
  Result<Catalog> r = parseCatalog(text, "fuzz.yaml");
  if (r.ok()) {
    // Whatever loads must satisfy the invariants expand() relies on.
    for (const OpConfig &op : expand(r.value())) {
      EXPECT_FALSE(op.m_buckets.empty()) << op.key();
      if (op.kind == OpKind::Gemm) {
        EXPECT_GT(op.gemm().n, 0) << op.key();
        EXPECT_GT(op.gemm().k, 0) << op.key();
      }
    }
    return;
  }
  const CatalogError &e = r.error();
  EXPECT_EQ(e.file, "fuzz.yaml");
  EXPECT_FALSE(e.message.empty());
  EXPECT_GE(e.line, 0);
  EXPECT_LE(e.line, countLines(text) + 1) << e.format() << "\n" << text;
}

} // namespace

TEST(Robustness, Garbage) {
  const std::string inputs[] = {
      "",
      "\n\n\n",
      "~",
      "42",
      "\"just a string\"",
      std::string("\0\1\2\3 binary", 12),
      "\xff\xfe\xfd",
      "model: [",
      "{{{{",
      std::string(5000, '[') + std::string(5000, ']'),
      std::string(5000, '-') ,
      "a: &x [1, 2]\nb: *x\n",
      "model: *undefined_alias\n",
      "model: !!binary aGVsbG8=\n",
      "\tmodel: x\n",
      "? [complex, key]\n: value\n",
      "model: x\narchitecture: &a {hidden_size: 1}\nserving: *a\n",
  };
  for (const std::string &text : inputs) {
    Result<Catalog> r = parseCatalog(text, "fuzz.yaml");
    EXPECT_FALSE(r.ok()) << text.substr(0, 60);
    if (!r.ok()) EXPECT_FALSE(r.error().message.empty());
  }
}

TEST(Robustness, AliasesAreResolved) {
  Result<Catalog> r = parseCatalog(
      "model: aliased\ndtype: f32\narchitecture:\n  hidden_size: &h 256\n  intermediate_size: 512\n"
      "  num_hidden_layers: 1\n  num_attention_heads: 4\n  num_key_value_heads: 4\n"
      "  vocab_size: *h\nserving:\n  decode_batch: &b [1, 2]\n  prefill_tokens: *b\n"
      "  kv_page_size: 16\n  max_context: 64\n",
      "alias.yaml");
  ASSERT_TRUE(r.ok()) << r.error().format();
  EXPECT_EQ(r->arch.vocab_size, 256);
  EXPECT_EQ(r->serving.prefill_tokens, (std::vector<int64_t>{1, 2}));
}

TEST(Robustness, MutatedCatalogs) {
  ASSERT_TRUE(parseCatalog(kValid, "fuzz.yaml").ok());
  std::mt19937 rng(12345);
  const std::string alphabet = "0123456789-:[],{}#\"' \n\tabxyz_.&*!";
  int rejected = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    std::string text = kValid;
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % text.size();
      switch (rng() % 3) {
      case 0: text.erase(at, 1 + rng() % 4); break;
      case 1: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      default: text[at] = alphabet[rng() % alphabet.size()]; break;
      }
      if (text.empty()) text = "x";
    }
    expectWellFormed(text);
    rejected += !parseCatalog(text, "fuzz.yaml").ok();
  }
  // Most random edits break something; the loader must notice.
  EXPECT_GT(rejected, 1500);
}
