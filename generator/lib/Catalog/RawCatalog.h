//===- RawCatalog.h - catalog fields before validation ---------*- C++ -*-===//
//
// Internal to ArgusCatalog. A catalog reaches us as YAML (CatalogParser.cpp)
// or as an HF config.json plus a serving profile (HfConfig.cpp). Both readers
// check only syntax and types and fill a RawCatalog: every field by dotted
// path, with where it was found. buildCatalog() then does every semantic check
// (required keys, positive sizes, sorted buckets, head and tensor-parallel
// divisibility) once, for both, and resolves defaults.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_CATALOG_RAWCATALOG_H
#define ARGUS_LIB_CATALOG_RAWCATALOG_H

#include "argus/Catalog/Catalog.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace argus::catalog::detail {

/// Where a value was found. line/column 1-based, 0 when unknown.
struct Loc {
  std::string file;
  int line = 0;
  int column = 0;
};

enum class FieldType { String, Int, IntList, Section };

/// One key of the schema. section is "" for top-level keys.
struct FieldSpec {
  std::string_view section;
  std::string_view name;
  FieldType type;
};

/// Every key a catalog may contain, in document order.
const std::vector<FieldSpec> &catalogSchema();
/// The known keys of one section ("" = top level).
std::vector<std::string_view> keysOfSection(std::string_view section);
/// The section that has a key named `name`, or nullopt.
std::optional<std::string_view> sectionOfKey(std::string_view name);
/// "architecture.hidden_size", or "model" for a top-level key.
std::string dottedPath(std::string_view section, std::string_view name);

/// The closest of `candidates` to `word` when it is plausibly a typo
/// (Levenshtein distance <= max(2, |word| / 4)), else "".
std::string_view closestMatch(std::string_view word,
                              const std::vector<std::string_view> &candidates);

/// Fields by dotted path. `locs` has an entry for every key present, for the
/// sections themselves ("architecture"), for the document ("") and for list
/// elements ("serving.decode_batch[2]").
struct RawCatalog {
  std::map<std::string, std::string> strings;
  std::map<std::string, int64_t> ints;
  std::map<std::string, std::vector<int64_t>> lists;
  std::map<std::string, Loc> locs;
  std::string path; // becomes Catalog::path

  bool has(const std::string &key) const { return locs.count(key) != 0; }
  /// The location of `key`, else of its section, else of the document.
  Loc locOf(const std::string &key) const;
};

CatalogError makeError(const Loc &loc, std::string key, std::string message);

/// Semantic checks and defaults; the only way a Catalog is made.
Result<Catalog> buildCatalog(const RawCatalog &raw);

} // namespace argus::catalog::detail

#endif // ARGUS_LIB_CATALOG_RAWCATALOG_H
