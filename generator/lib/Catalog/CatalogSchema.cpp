//===- CatalogSchema.cpp - the keys a catalog may contain -----------------===//
//
// One table names every key of the catalog format (DESIGN.md, "Shape
// catalogs") with its type. The YAML reader checks keys and types against it;
// unknown keys get a "did you mean" from the same table. Also here: the small
// vocabulary shared by the rest of the library (dtype names, error format).
//
//===----------------------------------------------------------------------===//
#include "RawCatalog.h"

#include <algorithm>
#include <optional>

namespace argus::catalog {

std::string_view dtypeName(Dtype dtype) {
  switch (dtype) {
  case Dtype::F32: return "f32";
  case Dtype::F16: return "f16";
  case Dtype::BF16: return "bf16";
  }
  return "?";
}

std::optional<Dtype> parseDtype(std::string_view name) {
  if (name == "f32") return Dtype::F32;
  if (name == "f16") return Dtype::F16;
  if (name == "bf16") return Dtype::BF16;
  return std::nullopt;
}

std::string CatalogError::format() const {
  std::string out = file.empty() ? std::string("<catalog>") : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  out += ": error: " + message;
  return out;
}

namespace detail {

const std::vector<FieldSpec> &catalogSchema() {
  static const std::vector<FieldSpec> schema = {
      {"", "model", FieldType::String},
      {"", "dtype", FieldType::String},
      {"", "architecture", FieldType::Section},
      {"", "serving", FieldType::Section},
      {"architecture", "hidden_size", FieldType::Int},
      {"architecture", "intermediate_size", FieldType::Int},
      {"architecture", "num_hidden_layers", FieldType::Int},
      {"architecture", "num_attention_heads", FieldType::Int},
      {"architecture", "num_key_value_heads", FieldType::Int},
      {"architecture", "head_dim", FieldType::Int},
      {"architecture", "vocab_size", FieldType::Int},
      {"architecture", "num_local_experts", FieldType::Int},
      {"architecture", "num_experts", FieldType::Int},
      {"architecture", "num_experts_per_tok", FieldType::Int},
      {"architecture", "moe_intermediate_size", FieldType::Int},
      {"architecture", "shared_expert_intermediate_size", FieldType::Int},
      {"architecture", "n_routed_experts", FieldType::Int},
      {"architecture", "n_shared_experts", FieldType::Int},
      {"architecture", "first_k_dense_replace", FieldType::Int},
      {"architecture", "kv_lora_rank", FieldType::Int},
      {"architecture", "q_lora_rank", FieldType::Int},
      {"architecture", "qk_nope_head_dim", FieldType::Int},
      {"architecture", "qk_rope_head_dim", FieldType::Int},
      {"architecture", "v_head_dim", FieldType::Int},
      {"serving", "tensor_parallel", FieldType::Int},
      {"serving", "decode_batch", FieldType::IntList},
      {"serving", "prefill_tokens", FieldType::IntList},
      {"serving", "kv_page_size", FieldType::Int},
      {"serving", "max_context", FieldType::Int},
  };
  return schema;
}

std::vector<std::string_view> keysOfSection(std::string_view section) {
  std::vector<std::string_view> keys;
  for (const FieldSpec &f : catalogSchema())
    if (f.section == section) keys.push_back(f.name);
  return keys;
}

std::optional<std::string_view> sectionOfKey(std::string_view name) {
  for (const FieldSpec &f : catalogSchema())
    if (f.name == name) return f.section;
  return std::nullopt;
}

std::string dottedPath(std::string_view section, std::string_view name) {
  if (section.empty()) return std::string(name);
  return std::string(section) + "." + std::string(name);
}

static size_t levenshtein(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string_view closestMatch(std::string_view word,
                              const std::vector<std::string_view> &candidates) {
  size_t limit = std::max<size_t>(2, word.size() / 4);
  std::string_view best;
  size_t bestDistance = limit + 1;
  for (std::string_view c : candidates) {
    size_t d = levenshtein(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

Loc RawCatalog::locOf(const std::string &key) const {
  for (std::string k = key;;) {
    auto it = locs.find(k);
    if (it != locs.end()) return it->second;
    if (k.empty()) return Loc{path, 0, 0};
    size_t dot = k.rfind('.');
    k = dot == std::string::npos ? std::string() : k.substr(0, dot);
  }
}

CatalogError makeError(const Loc &loc, std::string key, std::string message) {
  return CatalogError{loc.file, loc.line, loc.column, std::move(key), std::move(message)};
}

} // namespace detail
} // namespace argus::catalog
