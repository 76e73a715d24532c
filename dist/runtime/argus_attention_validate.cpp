//===- argus_attention_validate.cpp - attention argument checks -----------===//
#include "argus_attention_validate.h"

#include "argus_checks.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace argus_rt {
namespace {

/// Where the structs of older headers ended: before v_head_dim, and (prefill)
/// before total_q.
template <class Args> constexpr size_t olderEnd(int version) {
  if (version == 0) return offsetof(Args, v_head_dim);
  if constexpr (std::is_same_v<Args, argus_attention_prefill_args>) return offsetof(Args, total_q);
  return offsetof(Args, v_head_dim);
}

/// The argument struct as this runtime reads it: a caller's struct that ends
/// where an older header's did is copied, and the fields it lacks are 0.
template <class Args> argus_status readArgs(const Checker &check, const Args *args, Args *out) {
  if (!args) return check.fail(ARGUS_ERROR_INVALID_ARGUMENT, "args is NULL");
  // Exactly the struct of an older header, or at least this one: a size in
  // between cuts a field.
  if (args->struct_size != olderEnd<Args>(0) && args->struct_size != olderEnd<Args>(1))
    if (auto s = check.structSize(args->struct_size, sizeof(Args))) return s;
  *out = Args();
  std::memcpy(static_cast<void *>(out), args, std::min(args->struct_size, sizeof(Args)));
  if (auto s = check.nonNegative("v_head_dim", out->v_head_dim)) return s;
  if (out->v_head_dim == 0) out->v_head_dim = out->head_dim;
  return ARGUS_OK;
}

argus_status checkHeads(const Checker &check, int64_t numHeads, int64_t numKvHeads,
                        int64_t headDim) {
  if (auto s = check.positive("num_heads", numHeads)) return s;
  if (auto s = check.positive("num_kv_heads", numKvHeads)) return s;
  if (auto s = check.positive("head_dim", headDim)) return s;
  if (numHeads % numKvHeads != 0)
    return check.fail(ARGUS_ERROR_INVALID_ARGUMENT,
                      "num_heads (%lld) must be a multiple of num_kv_heads (%lld)",
                      static_cast<long long>(numHeads), static_cast<long long>(numKvHeads));
  return ARGUS_OK;
}

argus_status checkDtype(const Checker &check, argus_dtype dtype) {
  if (auto s = check.knownDtype("dtype", dtype)) return s;
  if (dtype == ARGUS_DTYPE_FP8_E4M3)
    return check.fail(ARGUS_ERROR_UNSUPPORTED,
                      "dtype fp8_e4m3 is not supported (expected f32, f16 or bf16)");
  return ARGUS_OK;
}

argus_status checkScale(const Checker &check, float scale) {
  if (std::isfinite(scale)) return ARGUS_OK;
  return check.fail(ARGUS_ERROR_INVALID_ARGUMENT,
                    "scale (%g) must be finite (0 means 1/sqrt(head_dim))",
                    static_cast<double>(scale));
}

} // namespace

/// Reads `args` into `a` (v_head_dim resolved) and checks it.
argus_status validatePrefill(const argus_attention_prefill_args *args, argus_attention_prefill_args &a) {
  Checker check("argus_attention_prefill");
  if (auto s = readArgs(check, args, &a)) return s;
  if (auto s = check.nonNegative("batch", a.batch)) return s;
  if (auto s = checkHeads(check, a.num_heads, a.num_kv_heads, a.head_dim)) return s;
  if (auto s = check.nonNegative("max_seqlen_q", a.max_seqlen_q)) return s;
  if (auto s = check.nonNegative("max_seqlen_kv", a.max_seqlen_kv)) return s;
  int64_t qElems = 0, kElems = 0, vElems = 0, oElems = 0;
  const int64_t qDims[] = {a.batch, a.max_seqlen_q, a.num_heads, a.head_dim};
  const int64_t kDims[] = {a.batch, a.max_seqlen_kv, a.num_kv_heads, a.head_dim};
  const int64_t vDims[] = {a.batch, a.max_seqlen_kv, a.num_kv_heads, a.v_head_dim};
  const int64_t oDims[] = {a.batch, a.max_seqlen_q, a.num_heads, a.v_head_dim};
  if (auto s = check.product("batch*max_seqlen_q*num_heads*head_dim", qDims, 4, &qElems)) return s;
  if (auto s = check.product("batch*max_seqlen_kv*num_kv_heads*head_dim", kDims, 4, &kElems)) return s;
  if (auto s = check.product("batch*max_seqlen_kv*num_kv_heads*v_head_dim", vDims, 4, &vElems)) return s;
  if (auto s = check.product("batch*max_seqlen_q*num_heads*v_head_dim", oDims, 4, &oElems)) return s;
  if (auto s = checkDtype(check, a.dtype)) return s;
  if (auto s = checkScale(check, a.scale)) return s;
  if (auto s = check.pointer("q", a.q, qElems)) return s;
  if (auto s = check.pointer("k", a.k, kElems)) return s;
  if (auto s = check.pointer("v", a.v, vElems)) return s;
  if (auto s = check.pointer("o", a.o, oElems)) return s;
  if (auto s = check.pointer("cu_seqlens_q", a.cu_seqlens_q, a.batch)) return s;
  if (auto s = check.pointer("cu_seqlens_kv", a.cu_seqlens_kv, a.batch)) return s;
  if (auto s = check.nonNegative("total_q", a.total_q)) return s;
  if (auto s = check.nonNegative("total_kv", a.total_kv)) return s;
  return ARGUS_OK;
}

/// Reads `args` into `a` (v_head_dim resolved) and checks it.
argus_status validateDecode(const argus_attention_decode_args *args, argus_attention_decode_args &a) {
  Checker check("argus_attention_decode");
  if (auto s = readArgs(check, args, &a)) return s;
  if (auto s = check.nonNegative("batch", a.batch)) return s;
  if (auto s = checkHeads(check, a.num_heads, a.num_kv_heads, a.head_dim)) return s;
  if (auto s = check.positive("page_size", a.page_size)) return s;
  if (auto s = check.positive("max_pages_per_seq", a.max_pages_per_seq)) return s;
  int64_t qElems = 0, oElems = 0, tableElems = 0, pageElems = 0;
  const int64_t qDims[] = {a.batch, a.num_heads, a.head_dim};
  const int64_t oDims[] = {a.batch, a.num_heads, a.v_head_dim};
  const int64_t pageDims[] = {a.page_size, a.num_kv_heads, std::max(a.head_dim, a.v_head_dim)};
  if (auto s = check.product("batch*num_heads*head_dim", qDims, 3, &qElems)) return s;
  if (auto s = check.product("batch*num_heads*v_head_dim", oDims, 3, &oElems)) return s;
  if (auto s = check.product("batch*max_pages_per_seq", a.batch, a.max_pages_per_seq,
                             &tableElems))
    return s;
  if (auto s = check.product("page_size*num_kv_heads*head_dim", pageDims, 3, &pageElems))
    return s;
  if (auto s = checkDtype(check, a.dtype)) return s;
  if (auto s = checkScale(check, a.scale)) return s;
  int64_t used = a.batch > 0 ? 1 : 0; // the caches are read only for a non-empty batch
  if (auto s = check.pointer("q", a.q, qElems)) return s;
  if (auto s = check.pointer("k_cache", a.k_cache, used)) return s;
  if (auto s = check.pointer("v_cache", a.v_cache, used)) return s;
  if (auto s = check.pointer("block_table", a.block_table, tableElems)) return s;
  if (auto s = check.pointer("seqlens_kv", a.seqlens_kv, a.batch)) return s;
  if (auto s = check.pointer("o", a.o, oElems)) return s;
  return ARGUS_OK;
}


} // namespace argus_rt
