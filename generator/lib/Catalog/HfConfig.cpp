//===- HfConfig.cpp - a catalog from an HF config.json --------------------===//
//
// `argus-gen --hf-config config.json --profile serving.yaml`: the architecture
// comes from the model's Hugging Face config.json, the rest from a serving
// profile (a catalog without `architecture`). config.json has many keys that
// do not shape kernels (rope_theta, rms_norm_eps, ...): we read the ones in
// the catalog schema and ignore the others. Multimodal configs keep the
// language model under `text_config`; we look there when the top level has no
// hidden_size. The merged fields go through the same buildCatalog() as YAML.
//
// nlohmann::json keeps no per-key positions, so errors about a config.json
// value name the file and the key only; syntax errors get a line and column
// computed from the byte offset the parser reports.
//
//===----------------------------------------------------------------------===//
#include "CatalogParser.h"
#include "RawCatalog.h"

#include <nlohmann/json.hpp>

namespace argus::catalog {
namespace {

using nlohmann::json;

detail::Loc offsetToLoc(const std::string &file, std::string_view text, size_t offset) {
  detail::Loc loc{file, 1, 1};
  for (size_t i = 0; i + 1 < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

std::optional<Dtype> dtypeFromTorch(const std::string &name) {
  if (name == "bfloat16") return Dtype::BF16;
  if (name == "float16") return Dtype::F16;
  if (name == "float32") return Dtype::F32;
  return std::nullopt;
}

} // namespace

Result<Catalog> catalogFromHfConfig(std::string_view configJson, std::string_view configPath,
                                    std::string_view profileYaml, std::string_view profilePath) {
  const std::string configFile(configPath);
  detail::RawCatalog raw;
  raw.path = configFile;
  if (auto err = detail::readYaml(profileYaml, profilePath, raw, /*isProfile=*/true)) return *err;

  json config;
  try {
    config = json::parse(configJson.begin(), configJson.end());
  } catch (const json::parse_error &e) {
    return detail::makeError(offsetToLoc(configFile, configJson, e.byte), "",
                             std::string("invalid JSON: ") + e.what());
  } catch (const std::exception &e) {
    return detail::makeError(detail::Loc{configFile, 0, 0}, "",
                             std::string("invalid JSON: ") + e.what());
  }
  if (!config.is_object())
    return detail::makeError(detail::Loc{configFile, 1, 1}, "",
                             "config.json must hold a JSON object; found " +
                                 std::string(config.type_name()));
  const json *arch = &config;
  if (!config.contains("hidden_size") && config.contains("text_config") &&
      config["text_config"].is_object())
    arch = &config["text_config"];

  const detail::Loc at{configFile, 0, 0};
  raw.locs["architecture"] = at;
  for (std::string_view name : detail::keysOfSection("architecture")) {
    auto it = arch->find(std::string(name));
    if (it == arch->end() || it->is_null()) continue;
    std::string key = detail::dottedPath("architecture", name);
    if (!it->is_number_integer())
      return detail::makeError(at, key,
                               key + " must be an integer; found " + it->dump() + " in config.json");
    if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(INT64_MAX))
      return detail::makeError(at, key, key + " = " + it->dump() + " is out of range");
    raw.ints[key] = it->get<int64_t>();
    raw.locs[key] = at;
  }
  // HF's default (LlamaConfig and most others): no GQA unless stated.
  if (!raw.has("architecture.num_key_value_heads") &&
      raw.has("architecture.num_attention_heads")) {
    raw.ints["architecture.num_key_value_heads"] = raw.ints["architecture.num_attention_heads"];
    raw.locs["architecture.num_key_value_heads"] = at;
  }
  if (!raw.has("dtype")) {
    auto it = config.find("torch_dtype");
    if (it == config.end()) it = config.find("dtype");
    std::optional<Dtype> dtype;
    if (it != config.end() && it->is_string()) dtype = dtypeFromTorch(it->get<std::string>());
    if (!dtype)
      return detail::makeError(raw.locOf(""), "dtype",
                               "missing required key 'dtype' at top level of the serving profile "
                               "(config.json's torch_dtype is " +
                                   (it == config.end() ? std::string("absent") : it->dump()) +
                                   ", not bfloat16, float16 or float32)");
    raw.strings["dtype"] = std::string(dtypeName(*dtype));
    raw.locs["dtype"] = detail::Loc{configFile, 0, 0};
  }
  return detail::buildCatalog(raw);
}

} // namespace argus::catalog
