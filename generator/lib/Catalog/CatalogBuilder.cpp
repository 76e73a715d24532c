//===- CatalogBuilder.cpp - semantic checks of a catalog ------------------===//
//
// Every rule of the catalog contract that is about values rather than syntax
// lives here, once, for both the YAML and the HF config.json paths:
//
//   - the required keys are present (head_dim and tensor_parallel are not
//     required; MoE keys come as a group);
//   - sizes are positive and not absurd (architecture sizes <= 2^24, serving
//     sizes <= 2^31 - 1, so every product the expansion forms fits in int64);
//   - bucket lists are non-empty and strictly increasing;
//   - num_attention_heads % num_key_value_heads == 0, and without an explicit
//     head_dim hidden_size % num_attention_heads == 0;
//   - multi-head latent attention keys come as a group (kv_lora_rank,
//     qk_nope_head_dim, qk_rope_head_dim, v_head_dim; q_lora_rank optional),
//     and an explicit head_dim must equal qk_nope + qk_rope;
//   - num_experts_per_tok <= the number of experts; one name for the expert
//     count and one for the shared expert's size; first_k_dense_replace in
//     [0, num_hidden_layers];
//   - heads, KV heads, the (expert and shared-expert) intermediate sizes and
//     vocab_size are divisible by tensor_parallel.
//
// Errors are reported in that order, each at the key that has to change (for
// tensor-parallel divisibility: tensor_parallel).
//
//===----------------------------------------------------------------------===//
#include "RawCatalog.h"

#include "argus/Catalog/CatalogHash.h"

#include <algorithm>
#include <iterator>
#include <optional>

namespace argus::catalog::detail {
namespace {

constexpr int64_t kMaxArchitectureSize = int64_t(1) << 24;
constexpr int64_t kMaxServingSize = (int64_t(1) << 31) - 1;

/// "num_experts" of "architecture.num_experts".
std::string leafOf(std::string_view key) {
  size_t dot = key.rfind('.');
  return std::string(dot == std::string_view::npos ? key : key.substr(dot + 1));
}

class Builder {
public:
  explicit Builder(const RawCatalog &raw) : raw_(raw) {}

  Result<Catalog> build() {
    if (auto err = checkTopLevel()) return *err;
    if (auto err = checkArchitecture()) return *err;
    if (auto err = checkServing()) return *err;
    if (auto err = checkTensorParallel()) return *err;
    catalog_.path = raw_.path;
    catalog_.content_hash = catalogHash(catalog_);
    return std::move(catalog_);
  }

private:
  CatalogError error(const std::string &key, std::string message) const {
    return makeError(raw_.locOf(key), key, std::move(message));
  }

  std::optional<CatalogError> requireKeys(std::string_view section,
                                          std::initializer_list<std::string_view> names) const {
    for (std::string_view name : names) {
      std::string path = dottedPath(section, name);
      if (raw_.has(path)) continue;
      std::string where = section.empty() ? "at top level" : "in " + std::string(section);
      return makeError(raw_.locOf(std::string(section)), path,
                       "missing required key '" + std::string(name) + "' " + where);
    }
    return std::nullopt;
  }

  /// Reads raw int `key` into `out` if present, checking 1 <= value <= max.
  std::optional<CatalogError> sizeField(const std::string &key, int64_t max, int64_t &out) const {
    auto it = raw_.ints.find(key);
    if (it == raw_.ints.end()) return std::nullopt;
    if (it->second <= 0)
      return error(key, key + " must be positive; found " + std::to_string(it->second));
    if (it->second > max)
      return error(key, key + " = " + std::to_string(it->second) + " is too large (at most " +
                            std::to_string(max) + ")");
    out = it->second;
    return std::nullopt;
  }

  std::optional<CatalogError> checkTopLevel() {
    if (auto err = requireKeys("", {"model", "dtype", "architecture", "serving"})) return err;
    const std::string &model = raw_.strings.at("model");
    bool valid = !model.empty() && model.size() <= 64 &&
                 model.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") ==
                     std::string::npos &&
                 model.front() != '.' && model.front() != '-';
    if (!valid)
      return error("model", "model name '" + model +
                                "' is not a valid package name (expected 1 to 64 characters of "
                                "a-z, 0-9, '.', '-', starting with a letter or digit)");
    catalog_.model = model;

    const std::string &dtype = raw_.strings.at("dtype");
    std::optional<Dtype> parsed = parseDtype(dtype);
    if (!parsed) {
      std::string message = "unknown dtype '" + dtype + "' (expected bf16, f16 or f32)";
      static const std::pair<std::string_view, std::string_view> aliases[] = {
          {"bfloat16", "bf16"}, {"float16", "f16"}, {"half", "f16"},
          {"float32", "f32"},   {"float", "f32"},   {"fp16", "f16"},
          {"fp32", "f32"},      {"bf_16", "bf16"}};
      for (auto [alias, name] : aliases)
        if (dtype == alias) message = "unknown dtype '" + dtype + "' (did you mean '" +
                                      std::string(name) + "'?)";
      return error("dtype", message);
    }
    catalog_.dtype = *parsed;
    return std::nullopt;
  }

  std::optional<CatalogError> checkArchitecture() {
    Architecture &a = catalog_.arch;
    if (auto err = requireKeys("architecture",
                               {"hidden_size", "intermediate_size", "num_hidden_layers",
                                "num_attention_heads", "num_key_value_heads", "vocab_size"}))
      return err;
    const std::pair<const char *, int64_t *> fields[] = {
        {"architecture.hidden_size", &a.hidden_size},
        {"architecture.intermediate_size", &a.intermediate_size},
        {"architecture.num_hidden_layers", &a.num_hidden_layers},
        {"architecture.num_attention_heads", &a.num_attention_heads},
        {"architecture.num_key_value_heads", &a.num_key_value_heads},
        {"architecture.head_dim", &a.head_dim},
        {"architecture.vocab_size", &a.vocab_size}};
    for (auto [key, out] : fields)
      if (auto err = sizeField(key, kMaxArchitectureSize, *out)) return err;

    if (a.num_attention_heads % a.num_key_value_heads != 0)
      return error("architecture.num_key_value_heads",
                   "num_attention_heads (" + std::to_string(a.num_attention_heads) +
                       ") is not divisible by num_key_value_heads (" +
                       std::to_string(a.num_key_value_heads) + ")");
    a.head_dim_explicit = raw_.has("architecture.head_dim");
    if (auto err = checkMla()) return err;
    if (a.mla) return checkMoe();
    if (!a.head_dim_explicit) {
      if (a.hidden_size % a.num_attention_heads != 0)
        return error("architecture.num_attention_heads",
                     "hidden_size (" + std::to_string(a.hidden_size) +
                         ") is not divisible by num_attention_heads (" +
                         std::to_string(a.num_attention_heads) +
                         "); give head_dim explicitly when hidden_size != num_attention_heads * "
                         "head_dim");
      a.head_dim = a.hidden_size / a.num_attention_heads;
    }
    a.v_head_dim = a.head_dim;
    return checkMoe();
  }

  /// Multi-head latent attention: its keys as a group; head_dim follows.
  std::optional<CatalogError> checkMla() {
    static constexpr std::string_view kRank = "architecture.kv_lora_rank";
    static constexpr std::string_view kGroup[] = {"architecture.qk_nope_head_dim", "architecture.qk_rope_head_dim",
                                                  "architecture.v_head_dim"};
    auto has = [&](std::string_view k) { return raw_.has(std::string(k)); };
    const bool any = has(kRank) || has("architecture.q_lora_rank") ||
                     std::any_of(std::begin(kGroup), std::end(kGroup), has);
    if (!any) return std::nullopt;
    if (!has(kRank))
      return makeError(raw_.locOf("architecture"), std::string(kRank),
                       "missing required key 'kv_lora_rank' in architecture: the keys of multi-head latent "
                       "attention (qk_nope_head_dim, qk_rope_head_dim, v_head_dim, q_lora_rank) come with it");
    for (std::string_view k : kGroup)
      if (!has(k))
        return makeError(raw_.locOf("architecture"), std::string(k),
                         "missing required key '" + leafOf(k) +
                             "' in architecture: kv_lora_rank makes this multi-head latent attention");
    MlaArchitecture mla;
    const std::pair<std::string_view, int64_t *> fields[] = {{kRank, &mla.kv_lora_rank},
                                                             {"architecture.q_lora_rank", &mla.q_lora_rank},
                                                             {kGroup[0], &mla.qk_nope_head_dim},
                                                             {kGroup[1], &mla.qk_rope_head_dim},
                                                             {kGroup[2], &mla.v_head_dim}};
    for (auto [key, out] : fields)
      if (auto err = sizeField(std::string(key), kMaxArchitectureSize, *out)) return err;
    Architecture &a = catalog_.arch;
    const int64_t qk = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
    if (a.head_dim_explicit && a.head_dim != qk)
      return error("architecture.head_dim", "head_dim (" + std::to_string(a.head_dim) +
                                                ") must equal qk_nope_head_dim + qk_rope_head_dim (" +
                                                std::to_string(qk) + ") under multi-head latent attention");
    a.head_dim = qk;
    a.v_head_dim = mla.v_head_dim;
    a.mla = mla;
    return std::nullopt;
  }

  std::optional<CatalogError> checkMoe() {
    static constexpr std::string_view kLocal = "architecture.num_local_experts";
    static constexpr std::string_view kExperts = "architecture.num_experts";
    static constexpr std::string_view kTopK = "architecture.num_experts_per_tok";
    static constexpr std::string_view kMoeInter = "architecture.moe_intermediate_size";
    static constexpr std::string_view kShared = "architecture.shared_expert_intermediate_size";
    static constexpr std::string_view kRouted = "architecture.n_routed_experts";
    static constexpr std::string_view kSharedCount = "architecture.n_shared_experts";
    static constexpr std::string_view kDense = "architecture.first_k_dense_replace";
    auto has = [&](std::string_view k) { return raw_.has(std::string(k)); };
    const std::string_view moeKeys[] = {kLocal, kExperts, kRouted, kTopK, kMoeInter, kShared, kSharedCount, kDense};
    const std::string_view *present = std::find_if(std::begin(moeKeys), std::end(moeKeys), has);
    if (present == std::end(moeKeys)) return std::nullopt;

    MoeArchitecture moe;
    const int namesOfCount = int(has(kLocal)) + int(has(kExperts)) + int(has(kRouted));
    if (namesOfCount > 1)
      return error(std::string(has(kRouted) ? kRouted : kExperts),
                   "give only one of num_local_experts, num_experts and n_routed_experts (each names the "
                   "number of routed experts)");
    std::string expertsKey(has(kLocal) ? kLocal : has(kExperts) ? kExperts : kRouted);
    if (namesOfCount == 0)
      return makeError(raw_.locOf("architecture"), "architecture.num_local_experts",
                       "missing required key 'num_local_experts' (or 'num_experts', 'n_routed_experts') in "
                       "architecture: " + leafOf(*present) + " makes this a MoE model");
    if (has(kShared) && has(kSharedCount))
      return error(std::string(kSharedCount),
                   "give only one of shared_expert_intermediate_size and n_shared_experts (both size the "
                   "shared expert)");
    if (!has(kTopK))
      return makeError(raw_.locOf("architecture"), std::string(kTopK),
                       "missing required key 'num_experts_per_tok' in architecture: " +
                           leafOf(expertsKey) + " makes this a MoE model");
    moe.moe_intermediate_size = catalog_.arch.intermediate_size;
    const std::pair<std::string, int64_t *> fields[] = {
        {expertsKey, &moe.num_experts},
        {std::string(kTopK), &moe.num_experts_per_tok},
        {std::string(kMoeInter), &moe.moe_intermediate_size},
        {std::string(kShared), &moe.shared_expert_intermediate_size}};
    for (auto &[key, out] : fields)
      if (auto err = sizeField(key, kMaxArchitectureSize, *out)) return err;
    int64_t sharedExperts = 0;
    if (auto err = sizeField(std::string(kSharedCount), kMaxArchitectureSize, sharedExperts)) return err;
    if (sharedExperts) moe.shared_expert_intermediate_size = sharedExperts * moe.moe_intermediate_size;
    if (auto it = raw_.ints.find(std::string(kDense)); it != raw_.ints.end()) {
      if (it->second < 0 || it->second > catalog_.arch.num_hidden_layers)
        return error(std::string(kDense), "first_k_dense_replace (" + std::to_string(it->second) +
                                              ") must be in [0, num_hidden_layers = " +
                                              std::to_string(catalog_.arch.num_hidden_layers) + "]");
      moe.first_k_dense_replace = it->second;
    }
    if (moe.num_experts_per_tok > moe.num_experts)
      return error(std::string(kTopK),
                   "num_experts_per_tok (" + std::to_string(moe.num_experts_per_tok) +
                       ") exceeds the number of experts (" + std::to_string(moe.num_experts) + ")");
    catalog_.arch.moe = moe;
    return std::nullopt;
  }

  std::optional<CatalogError> checkBuckets(const std::string &key, std::vector<int64_t> &out) {
    const std::vector<int64_t> &list = raw_.lists.at(key);
    if (list.empty()) return error(key, key + " must not be empty (give at least one bucket)");
    for (size_t i = 0; i < list.size(); ++i) {
      std::string element = key + "[" + std::to_string(i) + "]";
      auto at = [&](std::string message) {
        return makeError(raw_.locOf(element), key, std::move(message));
      };
      if (list[i] <= 0)
        return at(key + " must hold positive sizes; found " + std::to_string(list[i]));
      if (list[i] > kMaxServingSize)
        return at(key + " entry " + std::to_string(list[i]) + " is too large (at most " +
                  std::to_string(kMaxServingSize) + ")");
      if (i > 0 && list[i] == list[i - 1])
        return at("duplicate bucket " + std::to_string(list[i]) + " in " + key);
      if (i > 0 && list[i] < list[i - 1])
        return at(key + " must be sorted in increasing order; found " + std::to_string(list[i]) +
                  " after " + std::to_string(list[i - 1]));
    }
    out = list;
    return std::nullopt;
  }

  std::optional<CatalogError> checkServing() {
    Serving &s = catalog_.serving;
    if (auto err = requireKeys("serving",
                               {"decode_batch", "prefill_tokens", "kv_page_size", "max_context"}))
      return err;
    if (auto err = sizeField("serving.tensor_parallel", kMaxServingSize, s.tensor_parallel))
      return err;
    if (auto err = checkBuckets("serving.decode_batch", s.decode_batch)) return err;
    if (auto err = checkBuckets("serving.prefill_tokens", s.prefill_tokens)) return err;
    if (auto err = sizeField("serving.kv_page_size", kMaxServingSize, s.kv_page_size)) return err;
    if (auto err = sizeField("serving.max_context", kMaxServingSize, s.max_context)) return err;
    return std::nullopt;
  }

  std::optional<CatalogError> checkTensorParallel() {
    const Architecture &a = catalog_.arch;
    const int64_t tp = catalog_.serving.tensor_parallel;
    std::vector<std::pair<const char *, int64_t>> split = {
        {"num_attention_heads", a.num_attention_heads},
        {"num_key_value_heads", a.num_key_value_heads}};
    if (a.moe) {
      split.push_back({raw_.has("architecture.moe_intermediate_size") ? "moe_intermediate_size"
                                                                        : "intermediate_size",
                       a.moe->moe_intermediate_size});
      if (a.moe->shared_expert_intermediate_size)
        split.push_back({"shared_expert_intermediate_size", a.moe->shared_expert_intermediate_size});
      if (a.moe->first_k_dense_replace) split.push_back({"intermediate_size", a.intermediate_size});
    } else {
      split.push_back({"intermediate_size", a.intermediate_size});
    }
    split.push_back({"vocab_size", a.vocab_size});
    for (auto [name, value] : split)
      if (value % tp != 0)
        return error("serving.tensor_parallel",
                     std::string(name) + " (" + std::to_string(value) +
                         ") is not divisible by tensor_parallel (" + std::to_string(tp) + ")");
    return std::nullopt;
  }

  const RawCatalog &raw_;
  Catalog catalog_;
};

} // namespace

Result<Catalog> buildCatalog(const RawCatalog &raw) { return Builder(raw).build(); }

} // namespace argus::catalog::detail
