//===- argus_attention_dispatch.cpp - attention tables and launches -------===//
#include "argus_attention_dispatch.h"

#include "argus_checks.h"
#include "argus_error.h"
#include "argus_tensor_view.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <vector>

#include <omp.h>

namespace argus_rt {
namespace {

bool sameConfig(const argus_attention_kernel &k, argus_dtype dtype, int64_t headDim, int64_t vHeadDim,
                int64_t group) {
  return k.dtype == dtype && k.head_dim == headDim && k.v_head_dim == vHeadDim && k.group == group;
}

const argus_attention_kernel *find(const argus_attention_kernel *table, int32_t count, argus_dtype dtype,
                                   int64_t headDim, int64_t vHeadDim, int64_t group, int64_t pageSize) {
  for (int32_t i = 0; i < count; ++i)
    if (sameConfig(table[i], dtype, headDim, vHeadDim, group) && table[i].page_size == pageSize)
      return &table[i];
  return nullptr;
}

/// For a decode page size with no kernel of its own: the kernel of the same
/// configuration whose page size divides it (its group's, else group 1's;
/// the largest such page), which then reads each page as that many
/// consecutive pages of its own size: a page's tokens lie one after another
/// in the caches.
const argus_attention_kernel *findDividingPage(const argus_attention_kernel *table, int32_t count, argus_dtype dtype,
                                               int64_t headDim, int64_t vHeadDim, int64_t group, int64_t pageSize) {
  for (int64_t g : {group, int64_t(1)}) {
    const argus_attention_kernel *best = nullptr;
    for (int32_t i = 0; i < count; ++i) {
      const argus_attention_kernel &k = table[i];
      if (sameConfig(k, dtype, headDim, vHeadDim, g) && k.page_size > 0 && k.page_size < pageSize &&
          pageSize % k.page_size == 0 && (!best || k.page_size > best->page_size))
        best = &k;
    }
    if (best) return best;
  }
  return nullptr;
}

/// " and v_head_dim N" when values differ from keys in width, else "".
const char *valueDimNote(int64_t headDim, int64_t vHeadDim, char (&buffer)[48]) {
  if (headDim == vHeadDim) return "";
  std::snprintf(buffer, sizeof buffer, ", v_head_dim %lld", static_cast<long long>(vHeadDim));
  return buffer;
}

argus_status plan(const char *function, const argus_attention_kernel *table, int32_t count, argus_dtype dtype,
                  int64_t heads, int64_t kvHeads, int64_t headDim, int64_t vHeadDim, int64_t pageSize,
                  const Config &config, AttentionPlan *out) {
  *out = AttentionPlan();
  const int64_t group = heads / kvHeads;
  char note[48];
  const argus_attention_kernel *exact = find(table, count, dtype, headDim, vHeadDim, group, pageSize);
  if (exact && exact->in_catalog) {
    out->kernel = exact;
    return ARGUS_OK;
  }
  // Not tuned for this configuration: a generic kernel of the same group,
  // else the group-1 kernel once per KV head.
  const argus_attention_kernel *generic =
      exact ? exact : find(table, count, dtype, headDim, vHeadDim, 1, pageSize);
  if (!generic && pageSize > 0)
    generic = findDividingPage(table, count, dtype, headDim, vHeadDim, group, pageSize);
  if (!generic) {
    char pageNote[48] = "";
    if (pageSize > 0)
      std::snprintf(pageNote, sizeof pageNote, " and page_size %lld", static_cast<long long>(pageSize));
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "%s: no kernel for %s, head_dim %lld%s%s in this library (argus_manifest_json() lists its "
                "attention kernels; decode pages whose size a kernel's page size divides run on that kernel)",
                function, dtypeName(dtype), static_cast<long long>(headDim), valueDimNote(headDim, vHeadDim, note),
                pageNote);
  }
  if (config.strict)
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "%s: ARGUS_STRICT is set and %s, head_dim %lld%s, %lld heads / %lld KV heads is not in this "
                "library's catalog; it would run the generic kernel '%s'",
                function, dtypeName(dtype), static_cast<long long>(headDim), valueDimNote(headDim, vHeadDim, note),
                static_cast<long long>(heads), static_cast<long long>(kvHeads), generic->name);
  out->kernel = generic;
  out->perKvHead = generic->group != group;
  out->pieces = pageSize > 0 ? pageSize / generic->page_size : 1;
  return ARGUS_OK;
}

/// cu_seqlens must start at 0 or more, never decrease, give no sequence
/// longer than `maxLen`, and (when `total` is given) end within it.
argus_status checkCuSeqlens(const char *name, const int32_t *cu, int64_t batch, int64_t maxLen, const char *totalName,
                            int64_t total) {
  if (cu[0] < 0)
    return fail(ARGUS_ERROR_INVALID_ARGUMENT, "argus_attention_prefill: %s[0] is %d (must be >= 0)", name, cu[0]);
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t len = int64_t(cu[b + 1]) - cu[b];
    if (len < 0 || len > maxLen)
      return fail(ARGUS_ERROR_INVALID_ARGUMENT,
                  "argus_attention_prefill: sequence %lld has %lld tokens by %s (must be in [0, %lld], the "
                  "max_seqlen given)",
                  static_cast<long long>(b), static_cast<long long>(len), name, static_cast<long long>(maxLen));
  }
  if (total > 0 && cu[batch] > total)
    return fail(ARGUS_ERROR_INVALID_ARGUMENT,
                "argus_attention_prefill: %s[batch] is %d, past %s (%lld rows)", name, cu[batch], totalName,
                static_cast<long long>(total));
  return ARGUS_OK;
}

float effectiveScale(float scale, int64_t headDim) {
  return scale != 0.0f ? scale : 1.0f / std::sqrt(static_cast<float>(headDim));
}

} // namespace

argus_status planPrefill(const argus_attention_prefill_args &a, const Config &config, AttentionPlan *out) {
  return plan("argus_attention_prefill", argus_prefill_kernels, argus_prefill_kernel_count, a.dtype, a.num_heads,
              a.num_kv_heads, a.head_dim, a.v_head_dim, 0, config, out);
}

argus_status planDecode(const argus_attention_decode_args &a, const Config &config, AttentionPlan *out) {
  return plan("argus_attention_decode", argus_decode_kernels, argus_decode_kernel_count, a.dtype, a.num_heads,
              a.num_kv_heads, a.head_dim, a.v_head_dim, a.page_size, config, out);
}

argus_status runPrefill(const argus_attention_prefill_args &a, const AttentionPlan &plan, int numThreads) {
  if (auto s = checkCuSeqlens("cu_seqlens_q", a.cu_seqlens_q, a.batch, a.max_seqlen_q, "total_q", a.total_q))
    return s;
  if (auto s = checkCuSeqlens("cu_seqlens_kv", a.cu_seqlens_kv, a.batch, a.max_seqlen_kv, "total_kv", a.total_kv))
    return s;
  const int64_t H = a.num_heads, KVH = a.num_kv_heads, D = a.head_dim, DV = a.v_head_dim, G = H / KVH;
  argus_cpu_arg args[ARGUS_PREFILL_KERNEL_ARGS] = {};
  args[4].f = effectiveScale(a.scale, D);
  args[5].i = a.causal ? 1 : 0;
  for (int64_t b = 0; b < a.batch; ++b) {
    const int64_t q0 = a.cu_seqlens_q[b], sq = a.cu_seqlens_q[b + 1] - q0;
    const int64_t k0 = a.cu_seqlens_kv[b], skv = a.cu_seqlens_kv[b + 1] - k0;
    if (sq == 0) continue;
    const void *q = offsetBy(a.q, q0 * H * D, a.dtype), *o = offsetBy(a.o, q0 * H * DV, a.dtype);
    const void *k = offsetBy(a.k, k0 * KVH * D, a.dtype), *v = offsetBy(a.v, k0 * KVH * DV, a.dtype);
    if (!plan.perKvHead) {
      args[0].tensor = tensorView(q, {sq, H, D}, {H * D, D, 1});
      args[1].tensor = tensorView(k, {skv, KVH, D}, {KVH * D, D, 1});
      args[2].tensor = tensorView(v, {skv, KVH, DV}, {KVH * DV, DV, 1});
      args[3].tensor = tensorView(o, {sq, H, DV}, {H * DV, DV, 1});
      plan.kernel->kernel(args, numThreads);
      continue;
    }
    // The G query heads of KV head g against that head broadcast G times.
    for (int64_t g = 0; g < KVH; ++g) {
      args[0].tensor = tensorView(offsetBy(q, g * G * D, a.dtype), {sq, G, D}, {H * D, D, 1});
      args[1].tensor = tensorView(offsetBy(k, g * D, a.dtype), {skv, G, D}, {KVH * D, 0, 1});
      args[2].tensor = tensorView(offsetBy(v, g * DV, a.dtype), {skv, G, DV}, {KVH * DV, 0, 1});
      args[3].tensor = tensorView(offsetBy(o, g * G * DV, a.dtype), {sq, G, DV}, {H * DV, DV, 1});
      plan.kernel->kernel(args, numThreads);
    }
  }
  return ARGUS_OK;
}

/// seqlens_kv within [0, max_pages_per_seq * page_size] and the block-table
/// entries in use >= 0; `pages` gets the largest page index used + 1.
argus_status checkPagedKv(const argus_attention_decode_args &a, int64_t *pages) {
  *pages = 1;
  const int64_t capacity = a.max_pages_per_seq * a.page_size;
  for (int64_t b = 0; b < a.batch; ++b) {
    const int64_t len = a.seqlens_kv[b];
    if (len < 0 || len > capacity)
      return fail(ARGUS_ERROR_INVALID_ARGUMENT,
                  "argus_attention_decode: seqlens_kv[%lld] is %lld (must be in [0, %lld] = max_pages_per_seq * "
                  "page_size)",
                  static_cast<long long>(b), static_cast<long long>(len), static_cast<long long>(capacity));
    for (int64_t p = 0; p * a.page_size < len; ++p) {
      const int32_t page = a.block_table[b * a.max_pages_per_seq + p];
      if (page < 0)
        return fail(ARGUS_ERROR_INVALID_ARGUMENT, "argus_attention_decode: block_table[%lld][%lld] is %d (a page index must be >= 0)",
                    static_cast<long long>(b), static_cast<long long>(p), page);
      *pages = std::max<int64_t>(*pages, int64_t(page) + 1);
    }
  }
  return ARGUS_OK;
}

namespace {

// A split's pages of the KV heads one instance walks (K and V) stay within
// this many bytes. Since each step prefetches only its own head's rows, this
// sets the split count, not an L2 working set: 1 MiB beat 256 KiB (more
// partials to write and merge) and 4 MiB (fewer instances to balance) by
// 3-33% (generated decode kernel alone, 2 threads, Sapphire Rapids VM).
constexpr int64_t kDecodeSplitBytes = int64_t(1) << 20;

/// Splits of the context (flash-decoding): enough for two instances per
/// thread when there are few sequences, and few enough pages per split to
/// fit kDecodeSplitBytes. `pages` is the longest sequence's page count.
int64_t decodeSplits(int64_t pages, int64_t batch, int64_t pageBytes, int numThreads) {
  const int64_t threads = numThreads > 0 ? numThreads : omp_get_max_threads();
  const int64_t fitL2 = std::max<int64_t>(1, kDecodeSplitBytes / pageBytes);
  const int64_t wanted = (2 * threads + batch - 1) / batch;
  const int64_t perSplit = std::clamp<int64_t>((pages + wanted - 1) / wanted, 1, fitL2);
  return (pages + perSplit - 1) / perSplit;
}

/// Per-thread storage of the partial results, grown to the largest call.
/// The block table of a kernel whose pages are 1/pieces of the caller's, for
/// `usedPages` of them per sequence: kernel page i of a sequence is piece
/// i % pieces of its page i / pieces. Entries past a sequence are 0 (never read).
const int32_t *kernelPages(const argus_attention_decode_args &a, int64_t pieces, int64_t usedPages) {
  thread_local std::vector<int32_t> table;
  table.assign(size_t(a.batch * usedPages), 0);
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t i = 0; i * (a.page_size / pieces) < a.seqlens_kv[b]; ++i)
      table[size_t(b * usedPages + i)] =
          int32_t(int64_t(a.block_table[b * a.max_pages_per_seq + i / pieces]) * pieces + i % pieces);
  return table.data();
}

float *decodePartials(size_t floats) {
  thread_local std::vector<float> partials;
  if (partials.size() < floats) partials.resize(floats);
  return partials.data();
}

/// O[b, h] = sum_s w_s Op[b, s, h] / sum_s w_s, w_s = exp(Lse[b, s, h] - max_s Lse);
/// a head whose splits saw no token (every Lse -1e30) gets zeros.
/// Each head's rows of all splits are summed whole (D floats a split, one
/// weight each), vectorised: chunks of 64 columns, each split's weight taken
/// again per chunk, made the merge 7% of decode at 8 x 16384 tokens (64 splits).
void mergeSplits(const argus_attention_decode_args &a, int64_t splits, const float *op, const float *lse,
                 int numThreads) {
  const int64_t H = a.num_heads, D = a.v_head_dim;
  const int threads = numThreads > 0 ? numThreads : omp_get_max_threads();
#pragma omp parallel num_threads(threads) if (a.batch * H * splits * D > 65536)
  {
    std::vector<float> sum(static_cast<size_t>(D));
#pragma omp for schedule(static)
    for (int64_t bh = 0; bh < a.batch * H; ++bh) {
      const int64_t b = bh / H, h = bh % H;
      auto at = [&](int64_t s) { return (b * splits + s) * H + h; };
      float top = -1e30f;
      for (int64_t s = 0; s < splits; ++s) top = std::max(top, lse[at(s)]);
      std::fill(sum.begin(), sum.end(), 0.0f);
      float *acc = sum.data(), total = 0;
      for (int64_t s = 0; s < splits; ++s) {
        if (lse[at(s)] <= -1e29f) continue; // no token in this split
        const float w = std::exp(lse[at(s)] - top);
        const float *row = op + at(s) * D;
        total += w;
#pragma omp simd
        for (int64_t d = 0; d < D; ++d) acc[d] += w * row[d];
      }
      for (int64_t d = 0; d < D; ++d) storeRounded(a.o, bh * D + d, total > 0 ? acc[d] / total : 0.0f, a.dtype);
    }
  }
}

} // namespace

argus_status runDecode(const argus_attention_decode_args &a, const AttentionPlan &plan, int numThreads) {
  int64_t pages = 0;
  if (auto s = checkPagedKv(a, &pages)) return s;
  const int64_t B = a.batch, H = a.num_heads, KVH = a.num_kv_heads, D = a.head_dim, DV = a.v_head_dim, G = H / KVH;
  // A kernel of smaller pages (plan.pieces of them to a page) reads the caches
  // as pages of its size, through a block table of those (kernelPages below).
  const int64_t PAGE = a.page_size / plan.pieces;
  if (pages * plan.pieces > INT32_MAX)
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "argus_attention_decode: page indices up to %lld of %lld tokens are too many for this library's "
                "kernel of pages of %lld tokens (it indexes them with 32 bits)",
                static_cast<long long>(pages - 1), static_cast<long long>(a.page_size), static_cast<long long>(PAGE));
  pages *= plan.pieces;
  // Only the pages the longest sequence uses are split (seqlens were checked against MP).
  int64_t usedPages = 1;
  for (int64_t b = 0; b < B; ++b) usedPages = std::max<int64_t>(usedPages, (a.seqlens_kv[b] + PAGE - 1) / PAGE);
  const int64_t MP = plan.pieces > 1 ? usedPages : a.max_pages_per_seq;
  const int32_t *table = plan.pieces > 1 ? kernelPages(a, plan.pieces, usedPages) : a.block_table;
  const int64_t headsPerCall = plan.perKvHead ? 1 : KVH;
  const int64_t S = decodeSplits(usedPages, B, PAGE * headsPerCall * (D + DV) * elementBytes(a.dtype), numThreads);
  float *op = decodePartials(size_t(B * S * H * (DV + 1)));
  float *lse = op + B * S * H * DV;

  argus_cpu_arg args[ARGUS_DECODE_KERNEL_ARGS] = {};
  args[3].tensor = tensorView(table, {B, usedPages}, {MP, 1});
  args[4].tensor = tensorView(a.seqlens_kv, {B}, {1});
  args[7].f = effectiveScale(a.scale, D);
  const int64_t kPage = PAGE * KVH * D, kRow = KVH * D, vPage = PAGE * KVH * DV, vRow = KVH * DV;
  if (!plan.perKvHead) {
    args[0].tensor = tensorView(a.q, {B, H, D}, {H * D, D, 1});
    args[1].tensor = tensorView(a.k_cache, {pages, PAGE, KVH, D}, {kPage, kRow, D, 1});
    args[2].tensor = tensorView(a.v_cache, {pages, PAGE, KVH, DV}, {vPage, vRow, DV, 1});
    args[5].tensor = tensorView(op, {B, S, H, DV}, {S * H * DV, H * DV, DV, 1});
    args[6].tensor = tensorView(lse, {B, S, H}, {S * H, H, 1});
    plan.kernel->kernel(args, numThreads);
  } else {
    // The G query heads of KV head g against that head broadcast G times.
    for (int64_t g = 0; g < KVH; ++g) {
      args[0].tensor = tensorView(offsetBy(a.q, g * G * D, a.dtype), {B, G, D}, {H * D, D, 1});
      args[1].tensor = tensorView(offsetBy(a.k_cache, g * D, a.dtype), {pages, PAGE, G, D}, {kPage, kRow, 0, 1});
      args[2].tensor = tensorView(offsetBy(a.v_cache, g * DV, a.dtype), {pages, PAGE, G, DV}, {vPage, vRow, 0, 1});
      args[5].tensor = tensorView(op + g * G * DV, {B, S, G, DV}, {S * H * DV, H * DV, DV, 1});
      args[6].tensor = tensorView(lse + g * G, {B, S, G}, {S * H, H, 1});
      plan.kernel->kernel(args, numThreads);
    }
  }
  mergeSplits(a, S, op, lse, numThreads);
  return ARGUS_OK;
}

} // namespace argus_rt
