//===- Catalog.h - model shape catalogs ------------------------*- C++ -*-===//
//
// A shape catalog says which model a kernel library is generated for and how a
// serving engine will run it (DESIGN.md, "Shape catalogs"). It is the first
// input of the pipeline: the sweep expands it into op configurations
// (OpConfig.h) and the emitter records its content hash in the manifest.
//
//   model: llama3-8b
//   dtype: bf16
//   architecture:            # Hugging Face config.json field names
//     hidden_size: 4096
//     ...
//   serving:
//     tensor_parallel: 1
//     decode_batch: [1, 2, 4, 8]
//     ...
//
// The loader is strict: an unknown key, a missing field, a value of the wrong
// type, a non-positive size, an unsorted bucket list or a shape that cannot be
// split across the tensor-parallel ranks is an error naming the file, the line
// and column (1-based) and the key. Nothing here throws; nothing depends on
// LLVM or MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_CATALOG_CATALOG_H
#define ARGUS_CATALOG_CATALOG_H

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace argus::catalog {

/// Element type of activations and weights.
enum class Dtype { F32, F16, BF16 };

/// "f32", "f16" or "bf16": the spelling used in catalogs and in op keys.
std::string_view dtypeName(Dtype dtype);
/// Inverse of dtypeName; nullopt for anything else (no aliases).
std::optional<Dtype> parseDtype(std::string_view name);

/// Mixture-of-experts part of an architecture (HF names in comments).
struct MoeArchitecture {
  int64_t num_experts = 0;           // num_local_experts (Mixtral) or num_experts (Qwen-MoE)
  int64_t num_experts_per_tok = 0;   // top-k; 1 <= top-k <= num_experts
  int64_t moe_intermediate_size = 0; // per-expert FFN width; intermediate_size when not given
  int64_t shared_expert_intermediate_size = 0; // 0 when the model has no shared expert
                                               // (DeepSeek: n_shared_experts * moe_intermediate_size)
  int64_t first_k_dense_replace = 0; // leading layers with a dense MLP of intermediate_size (DeepSeek)
};

/// Multi-head latent attention (DeepSeek-V2/V3, HF names). Keys and values
/// come from a compressed latent: kv_a projects the hidden state to
/// kv_lora_rank + qk_rope_head_dim, kv_b expands the latent to every head's
/// no-position key part and value. Attention itself runs per head with
/// queries and keys of qk_nope_head_dim + qk_rope_head_dim and values of
/// v_head_dim (the un-absorbed form).
struct MlaArchitecture {
  int64_t kv_lora_rank = 0;
  int64_t q_lora_rank = 0;      // 0: queries projected from the hidden state directly
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;
};

/// The model's shapes, with the field names of its Hugging Face config.json.
/// Invariants after a successful load: every size is positive,
/// num_attention_heads % num_key_value_heads == 0, and head_dim is either
/// explicit or hidden_size / num_attention_heads (exactly).
struct Architecture {
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t num_hidden_layers = 0;
  int64_t num_attention_heads = 0;
  int64_t num_key_value_heads = 0;
  int64_t head_dim = 0;            // of queries and keys, resolved: explicit value, MLA's
                                   // qk_nope + qk_rope, or hidden / heads
  int64_t v_head_dim = 0;          // of values, resolved: MLA's v_head_dim, else head_dim
  bool head_dim_explicit = false;  // whether the catalog gave head_dim
  int64_t vocab_size = 0;
  std::optional<MoeArchitecture> moe; // present iff the model is MoE
  std::optional<MlaArchitecture> mla; // present iff the model uses multi-head latent attention
};

/// What the serving engine will run. Invariants after a successful load:
/// bucket lists are non-empty and strictly increasing; the per-rank head,
/// KV-head, intermediate and vocab sizes are whole numbers.
struct Serving {
  int64_t tensor_parallel = 1;         // optional in the file, default 1
  std::vector<int64_t> decode_batch;   // tokens per decode step
  std::vector<int64_t> prefill_tokens; // tokens per prefill step
  int64_t kv_page_size = 0;
  int64_t max_context = 0;
};

struct Catalog {
  std::string path;  // the file it came from (as given to the loader)
  std::string model; // [a-z0-9][a-z0-9.-]*: becomes part of the package name
  Dtype dtype = Dtype::BF16;
  Architecture arch;
  Serving serving;
  /// SHA-256 (64 lowercase hex digits) of canonicalText(*this): see
  /// CatalogHash.h. Key order, comments, formatting, which HF alias named the
  /// expert count and an explicit head_dim equal to the derived one do not
  /// change it; any value that does change the catalog does.
  std::string content_hash;
};

/// A user error in a catalog. line/column are 1-based; 0 when the error has no
/// position (the file cannot be read, or a JSON field in an HF config).
/// `key` is the dotted path of the offending key ("architecture.hidden_size",
/// "serving.decode_batch"), empty for syntax errors.
struct CatalogError {
  std::string file;
  int line = 0;
  int column = 0;
  std::string key;
  std::string message;

  /// "file:line:column: error: message" (position left out when unknown).
  std::string format() const;
};

/// Either a value or a CatalogError. Check ok() before value().
template <typename T>
class Result {
public:
  Result(T value) : storage_(std::move(value)) {}
  Result(CatalogError error) : storage_(std::move(error)) {}

  bool ok() const { return storage_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T &value() const & { assert(ok() && "value() of a failed Result"); return std::get<0>(storage_); }
  T &value() & { assert(ok() && "value() of a failed Result"); return std::get<0>(storage_); }
  T &&value() && { assert(ok() && "value() of a failed Result"); return std::get<0>(std::move(storage_)); }
  const CatalogError &error() const { assert(!ok() && "error() of a successful Result"); return std::get<1>(storage_); }

  const T *operator->() const { return &value(); }
  const T &operator*() const { return value(); }

private:
  std::variant<T, CatalogError> storage_;
};

/// Parses catalog YAML text; `path` is only used in diagnostics and
/// Catalog::path.
Result<Catalog> parseCatalog(std::string_view yamlText, std::string_view path);

/// Reads and parses a catalog file.
Result<Catalog> loadCatalog(const std::string &path);

/// Builds a catalog from a Hugging Face config.json plus a serving profile.
/// The profile is YAML with the keys of a catalog minus `architecture`:
///
///   model: llama3-8b        # required
///   dtype: bf16             # optional: else from config.json's torch_dtype
///   serving: {tensor_parallel: 1, decode_batch: [...], ...}
///
/// Unknown keys in config.json are ignored (it has many that do not shape
/// kernels); num_key_value_heads defaults to num_attention_heads as in HF.
/// Errors in config.json carry its path and the key, without a line.
Result<Catalog> catalogFromHfConfig(std::string_view configJson,
                                    std::string_view configPath,
                                    std::string_view profileYaml,
                                    std::string_view profilePath);

} // namespace argus::catalog

#endif // ARGUS_CATALOG_CATALOG_H
