//===- CatalogParser.h - YAML reader shared with the HF importer -*- C++ -*-===//
//
// Internal to ArgusCatalog: the YAML reader of CatalogParser.cpp, also used
// for the serving profile that accompanies an HF config.json.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_CATALOG_CATALOGPARSER_H
#define ARGUS_LIB_CATALOG_CATALOGPARSER_H

#include "RawCatalog.h"

#include <optional>
#include <string>
#include <string_view>

namespace argus::catalog::detail {

/// Reads one YAML document into `raw` (syntax, keys and types). A profile
/// (isProfile) is a catalog without `architecture`.
std::optional<CatalogError> readYaml(std::string_view text, std::string_view path,
                                     RawCatalog &raw, bool isProfile);

/// Reads a whole regular file (at most 16 MiB).
std::optional<CatalogError> readTextFile(const std::string &path, std::string &out);

} // namespace argus::catalog::detail

#endif // ARGUS_LIB_CATALOG_CATALOGPARSER_H
