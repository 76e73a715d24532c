//===- LibraryTestSupport.h - data for tests of generated libraries -------===//
#ifndef ARGUS_TEST_LIBRARY_SUPPORT_H
#define ARGUS_TEST_LIBRARY_SUPPORT_H

#include "LibraryLoader.h"

#include "argus/Reference/References.h"
#include "argus_numerics.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace argus_test {

/// An attention kernel the library's catalog asked for (its manifest entry).
struct CatalogAttentionKernel {
  argus_dtype dtype;
  int64_t group, headDim, vHeadDim, pageSize;
  std::string entry; // the manifest entry, for messages
};

/// The catalog (not generic) kernels of `op` ("attention_prefill" or
/// "attention_decode") that the library's argus_manifest_json() lists.
inline std::vector<CatalogAttentionKernel> catalogAttentionKernels(const GeneratedLibrary &lib, const char *op) {
  std::vector<CatalogAttentionKernel> kernels;
  auto manifestJson = lib.symbol<decltype(argus_manifest_json)>("argus_manifest_json");
  if (!manifestJson) return kernels;
  const nlohmann::json manifest = nlohmann::json::parse(manifestJson()); // outlives the loop below
  for (const nlohmann::json &k : manifest.at("attention_kernels")) {
    if (k.at("op") != op || k.contains("generic")) continue;
    const std::string dtype = k.at("dtype");
    kernels.push_back({dtype == "f32" ? ARGUS_DTYPE_F32 : dtype == "f16" ? ARGUS_DTYPE_F16 : ARGUS_DTYPE_BF16,
                       k.at("group"), k.at("head_dim"), k.at("v_head_dim"), k.value("page_size", int64_t(0)),
                       k.dump()});
  }
  return kernels;
}

/// A buffer of `n` elements of `dtype` and its decoded doubles.
struct Tensor {
  argus_dtype dtype;
  std::vector<uint8_t> bytes;
  std::vector<double> values;

  Tensor(argus_dtype t, int64_t n, std::mt19937_64 &rng, double range) : dtype(t) {
    bytes.resize(size_t(n) * bytesPer(t) + kGuard);
    values.resize(size_t(n));
    std::uniform_real_distribution<float> dist(float(-range), float(range));
    for (int64_t i = 0; i < n; ++i) set(i, dist(rng));
    std::memset(bytes.data() + n * bytesPer(t), 0x5a, kGuard);
  }
  static constexpr size_t kGuard = 64;
  static size_t bytesPer(argus_dtype t) { return t == ARGUS_DTYPE_F32 ? 4 : 2; }
  /// Stores `x` rounded to the dtype; values[i] holds what was stored.
  void set(int64_t i, float x) {
    if (dtype == ARGUS_DTYPE_F32) {
      std::memcpy(&bytes[i * 4], &x, 4);
      values[i] = x;
    } else {
      uint16_t h = dtype == ARGUS_DTYPE_BF16 ? argus_num::f32_to_bf16(x) : argus_num::f32_to_f16(x);
      std::memcpy(&bytes[i * 2], &h, 2);
      values[i] = get(i);
    }
  }
  double get(int64_t i) const {
    if (dtype == ARGUS_DTYPE_F32) {
      float x;
      std::memcpy(&x, &bytes[i * 4], 4);
      return x;
    }
    uint16_t h;
    std::memcpy(&h, &bytes[i * 2], 2);
    return dtype == ARGUS_DTYPE_BF16 ? argus_num::bf16_to_f32(h) : argus_num::f16_to_f32(h);
  }
  void poison(int64_t n) {
    for (int64_t i = 0; i < n; ++i) set(i, NAN);
  }
  bool guardIntact(int64_t n) const {
    for (size_t i = 0; i < kGuard; ++i)
      if (bytes[n * bytesPer(dtype) + i] != 0x5a) return false;
    return true;
  }
};

inline argus::ref::ElementType elementType(argus_dtype t) {
  return t == ARGUS_DTYPE_F32 ? argus::ref::ElementType::F32
         : t == ARGUS_DTYPE_BF16 ? argus::ref::ElementType::BF16 : argus::ref::ElementType::F16;
}

/// Every element of `got` within `tol` * scale of `expected`: scale is the
/// element's `magnitude` (the sum of |terms| it adds up, whose rounding the
/// tolerance bounds; argus::ref::attention*F64 compute it), or else
/// |expected| + rms(expected). Failures name (token, head, column) of a
/// [tokens, heads, dim] tensor.
inline void expectClose(const Tensor &got, const std::vector<double> &expected, double tol, int64_t heads,
                        int64_t dim, const std::vector<double> *magnitude = nullptr) {
  const int64_t n = static_cast<int64_t>(expected.size());
  double sumSq = 0;
  for (double e : expected) sumSq += e * e;
  const double rms = n ? std::sqrt(sumSq / n) : 0;
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double value = got.get(i), want = expected[i];
    const double scale = magnitude ? (*magnitude)[i] : std::fabs(want) + rms;
    if (!(std::fabs(value - want) <= tol * scale) && bad++ < 3)
      ADD_FAILURE() << "element [" << i / (heads * dim) << ", head " << i / dim % heads << ", " << i % dim
                    << "] = " << value << ", expected " << want << " (tolerance " << tol << ")";
  }
  EXPECT_EQ(bad, 0) << "of " << n << " elements";
}

} // namespace argus_test

#endif // ARGUS_TEST_LIBRARY_SUPPORT_H
