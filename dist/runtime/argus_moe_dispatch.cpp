//===- argus_moe_dispatch.cpp - routing, grouping, expert launches, combine -===//
#include "argus_moe_dispatch.h"

#include "argus_checks.h"
#include "argus_error.h"
#include "argus_moe_transposed.h"
#include "argus_moe_validate.h"
#include "argus_tensor_view.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace argus_rt {
namespace {

/// Where each array lives in the workspace (byte offsets, 64-byte aligned).
struct MoeLayout {
  size_t counts = 0, next = 0, route = 0, weight = 0, slot = 0, xp = 0, h = 0, yp = 0, total = 0;
};

bool addRegion(size_t &cursor, size_t &at, int64_t elements, size_t elementBytes) {
  size_t bytes;
  if (elements < 0 || __builtin_mul_overflow(size_t(elements), elementBytes, &bytes)) return false;
  at = cursor;
  bytes = (bytes + 63) & ~size_t(63);
  return !__builtin_add_overflow(cursor, bytes, &cursor);
}

bool layoutFor(const argus_moe_args &a, MoeLayout &l) {
  int64_t routes, xpElems, hElems;
  if (__builtin_mul_overflow(a.num_tokens, a.top_k, &routes) ||
      __builtin_mul_overflow(routes, a.hidden, &xpElems) || __builtin_mul_overflow(routes, a.intermediate, &hElems))
    return false;
  const size_t el = size_t(elementBytes(a.dtype));
  size_t cursor = 0;
  bool ok = addRegion(cursor, l.counts, a.num_experts + 1, sizeof(int64_t)) && // expert offsets
            addRegion(cursor, l.next, a.num_experts, sizeof(int64_t)) &&       // sort cursor, then active experts
            addRegion(cursor, l.route, routes, sizeof(int32_t)) &&             // route -> expert
            addRegion(cursor, l.weight, routes, sizeof(float)) &&              // route -> weight
            addRegion(cursor, l.slot, routes, sizeof(int64_t)) &&              // route -> grouped row
            addRegion(cursor, l.xp, xpElems, el) && addRegion(cursor, l.h, hElems, el) &&
            addRegion(cursor, l.yp, xpElems, sizeof(float));
  l.total = cursor;
  return ok;
}

template <class T> T *at(void *workspace, size_t offset) {
  return reinterpret_cast<T *>(static_cast<char *>(workspace) + offset);
}

/// Steps 1 and 2: route -> expert and weight, and the grouped row of each route.
void routeAndGroup(const argus_moe_args &a, const MoeLayout &l, int threads) {
  const int64_t E = a.num_experts, K = a.top_k;
  int64_t *offsets = at<int64_t>(a.workspace, l.counts);
  int32_t *expertOf = at<int32_t>(a.workspace, l.route);
  float *weightOf = at<float>(a.workspace, l.weight);
  int64_t *slotOf = at<int64_t>(a.workspace, l.slot);
  int64_t *next = at<int64_t>(a.workspace, l.next);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t t = 0; t < a.num_tokens; ++t) {
    const float *logits = a.router_logits + t * E;
    float top = logits[0];
    for (int64_t e = 1; e < E; ++e) top = std::max(top, logits[e]);
    double sum = 0;
    for (int64_t e = 0; e < E; ++e) sum += std::exp(double(logits[e]) - top);
    double chosenSum = 0;
    for (int64_t j = 0; j < K; ++j) {
      // The largest logit not chosen yet; equal logits prefer the lower index.
      int64_t best = -1;
      for (int64_t e = 0; e < E; ++e) {
        bool taken = false;
        for (int64_t i = 0; i < j && !taken; ++i) taken = expertOf[t * K + i] == e;
        if (!taken && (best < 0 || logits[e] > logits[best])) best = e;
      }
      expertOf[t * K + j] = int32_t(best);
      const double w = std::exp(double(logits[best]) - top) / sum;
      weightOf[t * K + j] = float(w);
      chosenSum += w;
    }
    if (a.renormalize)
      for (int64_t j = 0; j < K; ++j) weightOf[t * K + j] = float(weightOf[t * K + j] / chosenSum);
  }
  // Counting sort by expert; routes keep token order inside an expert.
  std::memset(offsets, 0, sizeof(int64_t) * size_t(E + 1));
  const int64_t routes = a.num_tokens * K;
  for (int64_t r = 0; r < routes; ++r) ++offsets[expertOf[r] + 1];
  for (int64_t e = 0; e < E; ++e) offsets[e + 1] += offsets[e];
  std::memcpy(next, offsets, sizeof(int64_t) * size_t(E));
  for (int64_t r = 0; r < routes; ++r) slotOf[r] = next[expertOf[r]]++;
}

} // namespace

size_t moeWorkspaceBytes(const argus_moe_args &a) {
  if (a.num_tokens == 0) return 0; // nothing runs
  MoeLayout l;
  return layoutFor(a, l) ? l.total : std::numeric_limits<size_t>::max();
}

argus_status planMoe(const argus_moe_args &a, const Config &config, const argus_moe_kernel **out) {
  *out = nullptr;
  const argus_moe_kernel *generic = nullptr;
  for (int32_t i = 0; i < argus_moe_kernel_count; ++i) {
    const argus_moe_kernel &k = argus_moe_kernels[i];
    if (k.dtype != a.dtype) continue;
    if (k.hidden == a.hidden && k.intermediate == a.intermediate) {
      *out = &k;
      return ARGUS_OK;
    }
    if (k.hidden == 0) generic = &k;
  }
  if (!generic)
    return fail(ARGUS_ERROR_UNSUPPORTED, "argus_moe: no kernel for %s experts in this library", dtypeName(a.dtype));
  if (config.strict)
    return fail(ARGUS_ERROR_UNSUPPORTED,
                "argus_moe: ARGUS_STRICT is set and %s experts of hidden %lld, intermediate %lld are not in this "
                "library's catalog; they would run the generic kernels '%s'",
                dtypeName(a.dtype), static_cast<long long>(a.hidden), static_cast<long long>(a.intermediate),
                generic->name);
  *out = generic;
  return ARGUS_OK;
}

argus_status openMoeWeights(const argus_moe_args &a, MoeWeights *w) {
  if (const void *p = moePackedGateUp(a)) {
    w->gateUpPacked = true;
    if (auto s = openPackedWeights(p, 2 * a.num_experts, a.intermediate, a.hidden, a.dtype, "argus_moe",
                                   "w_gate_up_packed", &w->gateUp))
      return s;
  }
  if (const void *p = moePackedDown(a)) {
    w->downPacked = true;
    if (auto s = openPackedWeights(p, a.num_experts, a.hidden, a.intermediate, a.dtype, "argus_moe", "w_down_packed",
                                   &w->down))
      return s;
  }
  return ARGUS_OK;
}

void runMoe(const argus_moe_args &a, const argus_moe_kernel &kernels, int numThreads, const MoeWeights &weights) {
  MoeLayout l;
  layoutFor(a, l);
  // The runtime's own loops honour ARGUS_NUM_THREADS like the kernels.
#ifdef _OPENMP
  const int threads = numThreads > 0 ? numThreads : omp_get_max_threads();
#else
  const int threads = 1;
  (void)numThreads;
#endif
  routeAndGroup(a, l, threads);
  const int64_t E = a.num_experts, K = a.top_k, H = a.hidden, I = a.intermediate, routes = a.num_tokens * K;
  const int64_t el = elementBytes(a.dtype);
  const int64_t *offsets = at<int64_t>(a.workspace, l.counts);
  const float *weightOf = at<float>(a.workspace, l.weight);
  const int64_t *slotOf = at<int64_t>(a.workspace, l.slot);
  char *xp = at<char>(a.workspace, l.xp), *h = at<char>(a.workspace, l.h);
  float *yp = at<float>(a.workspace, l.yp);

  // 3. Gather the routed rows, grouped by expert.
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t r = 0; r < routes; ++r)
    std::memcpy(xp + slotOf[r] * H * el, static_cast<const char *>(a.x) + (r / K) * H * el, size_t(H * el));

  // 4. The experts that received tokens (listed where the sort cursor was).
  int64_t *active = at<int64_t>(a.workspace, l.next), activeCount = 0, mostRows = 0;
  for (int64_t e = 0; e < E; ++e)
    if (offsets[e + 1] > offsets[e]) {
      active[activeCount++] = e;
      mostRows = std::max(mostRows, offsets[e + 1] - offsets[e]);
    }
  auto tierFor = [&](int64_t rows) {
    const argus_moe_tier *tier = kernels.tiers;
    while (rows > tier->max_rows) ++tier; /* the last tier takes any rows */
    return tier;
  };
  // Plain weights in the last tier run transposed where the kernels read panels (argus_moe_transposed.h).
  const bool transposable = panelsServed(a.dtype);
  auto runRows = [&](int64_t e, const argus_moe_tier *tier, int64_t row0, int64_t rows, int kernelThreads) {
    const void *wg = offsetBy(a.w_gate_up, e * 2 * I * H, a.dtype), *wu = offsetBy(wg, I * H, a.dtype);
    const void *wd = offsetBy(a.w_down, e * H * I, a.dtype);
    char *x = xp + row0 * H * el, *hr = h + row0 * I * el;
    const bool transposed = transposable && tier->gate_up_transposed && tier->down_transposed; /* the last tier */
    if (weights.gateUpPacked || !transposed ||
        !runGateUpTransposed(tier->gate_up_transposed, a.dtype, x, rows, H, I, wg, wu, hr, kernelThreads)) {
      argus_cpu_arg up[ARGUS_MOE_GATE_UP_KERNEL_ARGS] = {};
      up[0].tensor = matrixView(x, rows, H, H);
      up[1].tensor = weights.gateUpPacked ? weights.gateUp.matrix(2 * e) : matrixView(wg, I, H, H);
      up[2].tensor = weights.gateUpPacked ? weights.gateUp.matrix(2 * e + 1) : matrixView(wu, I, H, H);
      up[3].tensor = matrixView(hr, rows, I, I);
      (weights.gateUpPacked || !tier->gate_up_plain ? tier->gate_up : tier->gate_up_plain)(up, kernelThreads);
    }
    if (weights.downPacked || !transposed ||
        !runDownTransposed(tier->down_transposed, a.dtype, hr, rows, I, H, wd, yp + row0 * H, kernelThreads)) {
      argus_cpu_arg down[ARGUS_GEMM_KERNEL_ARGS] = {};
      down[0].tensor = matrixView(hr, rows, I, I);
      down[1].tensor = weights.downPacked ? weights.down.matrix(e) : matrixView(wd, H, I, I);
      down[2].tensor = matrixView(yp + row0 * H, rows, H, H);
      down[3].tensor = tensorView(nullptr, {H}, {1});
      down[4].f = 1.0;
      (weights.downPacked || !tier->down_plain ? tier->down : tier->down_plain)(down, kernelThreads);
    }
  };
  // The last tier runs blocks of block_rows rows. Where the kernels skip a
  // block's padding rows (skips_padding_rows) a partial last block runs
  // there too. Elsewhere a last block less than
  // 3/4 full would mostly compute padding, so its rows go elsewhere: past
  // whole blocks to the tiers that fit them, and short of one block to the
  // tier before the last (one of its blocks) and then to the tier that fits
  // the rest. With blocks of 1, 4, 16, 32 and 64 rows: 45 = 32 + 13,
  // 59 = one padded 64-row block, 100 = 64 + 32 + 4.
  const argus_moe_tier *last = kernels.tiers + kernels.num_tiers - 1;
  auto runExpert = [&](int64_t e, int kernelThreads) {
    int64_t row0 = offsets[e], rows = offsets[e + 1] - row0;
    while (rows > 0) {
      const argus_moe_tier *tier = tierFor(rows);
      const int64_t block = tier->block_rows, partial = rows % block;
      const bool split = tier == last && kernels.num_tiers > 1 && partial > 0 && 4 * partial < 3 * block &&
                         !kernels.skips_padding_rows;
      const argus_moe_tier *head = !split ? tier : rows > block ? tier : last - 1;
      const int64_t headRows = !split ? rows : rows > block ? rows - partial : std::min(head->block_rows, rows);
      runRows(e, head, row0, headRows, kernelThreads);
      row0 += headRows, rows -= headRows;
    }
  };
  // Decode-sized groups are many small GEMMs with a few tiles each: whole
  // experts go to threads, their kernels single-threaded. So do larger
  // groups when there are many of them (kWholeExpertsPerThread a thread):
  // no fork and join per kernel, and a thread streams one expert's weights
  // at a time (Qwen3-30B-A3B, 128 experts, two threads, bf16, both orders:
  // plain 16-512 tokens 1.03-1.11x, pre-packed 1.01-1.14x). A few large
  // groups (Mixtral-8x7B's 8 experts, skewed) would leave threads idle
  // (0.88-0.94x): their tiles use every thread inside each kernel.
  constexpr int64_t kWholeExpertsPerThread = 16;
  const bool wholeExperts = mostRows <= kernels.decode_rows ? activeCount >= threads
                                                              : activeCount >= kWholeExpertsPerThread * threads;
  if (threads > 1 && wholeExperts) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t i = 0; i < activeCount; ++i) runExpert(active[i], 1);
  } else {
    for (int64_t i = 0; i < activeCount; ++i) runExpert(active[i], numThreads);
  }

  // 5. Weighted sum of each token's expert rows, rounded once to the dtype.
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t t = 0; t < a.num_tokens; ++t) {
    for (int64_t c = 0; c < H; ++c) {
      float sum = 0;
      for (int64_t j = 0; j < K; ++j) sum += weightOf[t * K + j] * yp[slotOf[t * K + j] * H + c];
      storeRounded(a.out, t * H + c, sum, a.dtype);
    }
  }
}

} // namespace argus_rt
