//===- CatalogHash.h - content hash of a shape catalog ---------*- C++ -*-===//
//
// The manifest of a generated library records which catalog it was tuned for.
// The hash must identify the catalog's meaning, not its bytes: reordering keys,
// editing comments or spelling `num_local_experts` as `num_experts` must not
// change it, and a changed value must. So we hash a canonical text: one
// `key=value` line per field, in a fixed order, with resolved defaults.
//
//   argus-catalog-v1
//   model=llama3-8b
//   dtype=bf16
//   architecture.hidden_size=4096
//   ...
//   serving.decode_batch=1,2,4,8
//
// Hash: SHA-256 of that text, as 64 lowercase hex digits.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_CATALOG_CATALOGHASH_H
#define ARGUS_CATALOG_CATALOGHASH_H

#include "argus/Catalog/Catalog.h"

#include <string>
#include <string_view>

namespace argus::catalog {

/// The normalised text the content hash is computed over (format above;
/// `path` and `content_hash` are not part of it).
std::string canonicalText(const Catalog &catalog);

/// SHA-256 of `data` as 64 lowercase hex digits (FIPS 180-4).
/// sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".
std::string sha256Hex(std::string_view data);

/// sha256Hex(canonicalText(catalog)).
std::string catalogHash(const Catalog &catalog);

} // namespace argus::catalog

#endif // ARGUS_CATALOG_CATALOGHASH_H
