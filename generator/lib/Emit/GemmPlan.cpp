//===- GemmPlan.cpp - GEMM kernel instances for a catalog -----------------===//
#include "argus/Emit/GemmPlan.h"

#include "argus/Emit/KernelInstance.h"


#include <algorithm>
#include <map>
#include <tuple>

namespace argus::emit {

lowering::Specialization GemmKernel::specialization() const {
  lowering::Specialization s;
  s.constants["TA"] = types.a;
  s.constants["TC"] = types.c;
  s.constants["BM"] = tiles.bm;
  s.constants["BN"] = tiles.bn;
  s.constants["BK"] = tiles.bk;
  if (n > 0) s.dims["N"] = n;
  if (k > 0) s.dims["K"] = k;
  return s;
}

namespace {

/// The most rows a tile may have: operands computed in f32 (f16, and bf16
/// without AVX512_BF16) fit the stack budget of a program instance only in
/// 128-row tiles.
int64_t tallestTile(const GemmTypes &types, bool bf16InF32) {
  return types.a == "f16" || (types.a == "bf16" && bf16InF32) ? 128 : 256;
}

} // namespace

int64_t cpuGemmKStep(int64_t bm, const GemmTypes &types) {
  // Short tiles take mma's inner-product form (up to 16 rows; bf16 up to 32
  // where AMX does not run), which reduces each accumulator horizontally once
  // per k-step: long k-steps amortise that and keep each weight row a long
  // sequential read (f32, M = 16: 1.25x over 128-long k-steps, one thread;
  // bf16 on Zen 4, two threads, 8 and 16 rows: 1.33-1.45x over 256-long,
  // 1024-long 0.5-0.7x: a's 16 rows outgrow L1). 32 rows keep the shorter
  // step (a dense copy of a's rows per step stays in L1); f32 runs them
  // packed, now that those prefetch their next operands (1.15-1.2x, one
  // thread, N x K = 14336 x 4096 and 4096 x 14336). Keep in step with
  // inner_product_fits in argus_cpu_mma.h. (On AVX2 every element type takes
  // that form up to 32 rows when K >= 256, inner_product_fits_avx2, but
  // tiles of 5-32 rows of f32 and 9-32 of bf16, which take the lanes form:
  // lanes_fit8; its f32 tiles of 32 rows take 256-long steps: targetKStep.)
  const int64_t innerProductRows = types.a == "f32" || types.a == "bf16" ? 16 : 4;
  if (bm <= innerProductRows)
    return 512;
  return types.a == "f32" ? 128 : 256;
}

namespace {

/// cpuGemmKStep on the target: cpu-avx2 (the target that widens bf16) runs
/// f32 tiles of up to 32 rows in the lanes form (lanes_fit8 in
/// argus_cpu_mma_avx2_lanes.h), which needs k-steps of 256 or more, where
/// cpu-avx512 runs 32 rows packed in 128-long steps.
int64_t targetKStep(int64_t bm, const GemmTypes &types, bool bf16InF32) {
  const int64_t step = cpuGemmKStep(bm, types);
  return bf16InF32 && types.a == "f32" && bm <= 32 ? std::max<int64_t>(step, 256) : step;
}

/// Bytes of stack a tile configuration needs, conservatively: mma's packed
/// copy of b, the f32 accumulator and epilogue tiles, and c's tile; operands
/// mma computes in f32 (f16, and bf16 on a target without AVX512_BF16) add
/// their widened copies. (Copies of the a and b tiles, made only when a tile
/// is not a plain window, live in the thread's arena: argus_cpu_arena.h.)
/// The CPU backend counts exactly and refuses more than 512 KiB (bf16
/// 256 x 64 x 512 tiles need 279 KiB; this says 288).
int64_t estimatedStackBytes(const GemmTiles &t, const GemmTypes &types, bool bf16InF32) {
  const int64_t operand = types.a == "f32" ? 4 : 2, result = types.c == "f32" ? 4 : 2;
  const bool widened = types.a == "f16" || (types.a == "bf16" && bf16InF32);
  return t.bn * t.bk * operand + t.bm * t.bn * (3 * 4 + result) + (widened ? (t.bm + t.bn) * t.bk * 4 : 0);
}

constexpr int64_t kStackBudget = 512 * 1024;

} // namespace

// f32 and bf16 on cpu-avx512, the target that computes bf16 natively;
// cpu-avx2 refuses packing.
bool weightsMayComePacked(const GemmTypes &types, bool bf16InF32) {
  return !bf16InF32 && (types.a == "f32" || types.a == "bf16");
}

namespace {

/// A k-step longer than 256 that leaves a partial last step of a known K
/// is halved until it divides K: the partial step cannot be read in place,
/// so its tile is gathered and computed at full length (bf16, one row,
/// N x K = 4608 x 3584, two threads: 2048-long steps 32.5 GFLOP/s, 512-long
/// 48; at K = 4096 both 48-49).
int64_t kStepDividingK(int64_t bk, int64_t k) {
  while (k > bk && k % bk != 0 && bk > 256)
    bk /= 2;
  return bk;
}

} // namespace

GemmTiles chooseCpuGemmTiles(int64_t m, int64_t /*n*/, int64_t k, const GemmTypes &types, bool bf16InF32) {
  // Decode buckets (few tokens) are bandwidth-bound: a tile as tall as the
  // bucket avoids computing padding rows. Prefill buckets use tiles of up to
  // 256 rows: instances walk N fastest, so every M tile streams the whole
  // weight matrix once, and each instance packs its B tile once per k-step;
  // taller tiles do both less often (bf16 on AMX: 1.35x at M = 512,
  // K = N = 4096 over 128 rows, measured with one thread).
  const int64_t tallest = tallestTile(types, bf16InF32);
  int64_t bm = 1;
  while (bm < m && bm < tallest)
    bm *= 2;
  if (bm >= 128 && types.a == "bf16" && !bf16InF32 && k > 0 && k % 512 == 0)
    // On AMX each 32 x 32 block of C leaves the tile registers once a
    // k-step, which drains the tile unit; 512-long steps halve that (two
    // threads, plain weights: 128 x 4096 x 4096 1.07x, 128 x 28672 x 4096 and
    // 128 x 4096 x 14336 from memory 1.12x; without AMX 1.03x; 256-row tiles,
    // 512 x 4096 x 4096: 1.075-1.09x). Only where they divide K: a generic
    // kernel's partial last step is gathered (96 x 2048 x 768: 0.79x).
    return {bm, 64, 512};
  if (bm > 1)
    return {bm, 64, kStepDividingK(targetKStep(bm, types, bf16InF32), k)};
  // Single-token decode streams each weight row once: 16 rows of 8 KiB per
  // k-step keep the prefetchers on fewer, longer streams than 64 rows of
  // 2 KiB (Llama-3-8B's GEMMs on AVX2, two threads: 1.2-1.4x, bf16 gate_up
  // even). Where the weights may come packed in 32-row panels, a 16-column
  // tile would read half of each panel row (f32 and bf16, N = K = 4096, two
  // threads: 0.7x); 32 columns stream whole panel rows, and plain weights as
  // fast (bf16) or within 7% (f32, when the stack budget halved its k-step;
  // 2048 against 1024: plain 1.06x, pre-packed 1.02x, Zen 4, two threads). A
  // short known K takes a shorter step, and one that the step does not
  // divide a step that does.
  GemmTiles t{1, weightsMayComePacked(types, bf16InF32) ? 32 : 16, 2048};
  while (estimatedStackBytes(t, types, bf16InF32) > kStackBudget)
    t.bk /= 2;
  while (k > 0 && t.bk > 32 && t.bk >= 2 * k)
    t.bk /= 2;
  t.bk = kStepDividingK(t.bk, k);
  return t;
}


std::vector<GemmTiles> cpuGemmCandidates(int64_t m, int64_t n, int64_t k, const GemmTypes &types, int budget,
                                         bool bf16InF32) {
  return cpuGemmCandidates(chooseCpuGemmTiles(m, n, k, types, bf16InF32), m, n, k, types, budget, false, bf16InF32);
}

std::vector<GemmTiles> cpuGemmCandidates(const GemmTiles &rule, int64_t m, int64_t n, int64_t k,
                                         const GemmTypes &types, int budget, bool rowsFixed, bool bf16InF32) {
  const int64_t tallest = tallestTile(types, bf16InF32);
  auto legal = [&](const GemmTiles &t) {
    // A tile up to twice the bucket: bf16 tiles of 16 rows run on AMX, which
    // can beat an 8-row tile of the same bucket on vdpbf16ps.
    return t.bm >= 1 && t.bm <= tallest && t.bm <= 2 * std::max<int64_t>(m, 1) &&
           t.bn >= 16 && (n == 0 || t.bn < 2 * n) &&                   // no column tile twice N
           !(t.bn < 32 && weightsMayComePacked(types, bf16InF32)) && // whole panel rows (the decode rule)
           t.bk >= 32 && t.bk % 32 == 0 && (k == 0 || t.bk < 2 * k) && // no k-step twice K
           estimatedStackBytes(t, types, bf16InF32) <= kStackBudget;
  };
  // Neighbours by how far they move from the rule: column width first (it
  // sets the weight stream per instance and the instance count), then the
  // k-step, then the row count; one parameter before two.
  const int64_t bms[] = {rule.bm, rule.bm * 2, rule.bm / 2};
  const int64_t bns[] = {rule.bn, rule.bn * 2, rule.bn / 2};
  const int64_t bks[] = {rule.bk, rule.bk * 2, rule.bk / 2};
  struct Ranked {
    int changes, order;
    GemmTiles tiles;
  };
  std::vector<Ranked> ranked = {{0, 0, rule}}; // the rule even where a limit above would drop it
  for (int i = 0; i < (rowsFixed ? 1 : 3); ++i)
    for (int j = 0; j < 3; ++j)
      for (int l = 0; l < 3; ++l) {
        GemmTiles t{bms[i], bns[j], bks[l]};
        if ((i || j || l) && legal(t))
          ranked.push_back({(i > 0) + (j > 0) + (l > 0), i * 9 + l * 3 + j, t});
      }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked &a, const Ranked &b) {
    return a.changes != b.changes ? a.changes < b.changes : a.order < b.order;
  });
  std::vector<GemmTiles> out;
  for (const Ranked &r : ranked)
    if (int(out.size()) < budget)
      out.push_back(r.tiles);
  return out;
}

std::vector<GemmTypes> fallbackGemmTypes() {
  return {{"f32", "f32"}, {"bf16", "bf16"}, {"bf16", "f32"}, {"f16", "f16"}, {"f16", "f32"}};
}

std::string gemmKernelSymbol(const GemmKernel &k) {
  std::string s = "argusk_gemm_" + k.types.a + "_" + k.types.c + "_";
  s += k.n > 0 ? "n" + std::to_string(k.n) + "_k" + std::to_string(k.k) : std::string("generic");
  s += "_m" + std::to_string(k.tiles.bm) + "n" + std::to_string(k.tiles.bn) + "k" + std::to_string(k.tiles.bk);
  return s + replacementSymbolSuffix(k.tiles.kernel);
}

GemmPlan planGemms(const std::vector<catalog::OpConfig> &configs, const GemmTileChooser &chooser, bool bf16InF32) {
  const GemmTileChooser choose = chooser ? chooser : [bf16InF32](int64_t m, int64_t n, int64_t k, const GemmTypes &t) {
    return chooseCpuGemmTiles(m, n, k, t, bf16InF32);
  };
  GemmPlan plan;
  std::map<std::string, size_t> bySymbol;
  auto addKernel = [&](GemmKernel k, const std::string &op) {
    k.symbol = gemmKernelSymbol(k);
    auto [it, inserted] = bySymbol.try_emplace(k.symbol, plan.kernels.size());
    if (inserted)
      plan.kernels.push_back(k);
    GemmKernel &stored = plan.kernels[it->second];
    if (!op.empty() && std::find(stored.ops.begin(), stored.ops.end(), op) == stored.ops.end())
      stored.ops.push_back(op);
    return it->second;
  };

  // Ops with the same (n, k, dtype) share one group (e.g. o and down in
  // some models): their kernels are identical, and so are their buckets
  // (every GEMM of a catalog takes the catalog's token buckets).
  std::map<std::tuple<int64_t, int64_t, std::string>, size_t> groupIndex;
  for (const catalog::OpConfig &c : configs) {
    if (c.kind != catalog::OpKind::Gemm)
      continue;
    std::string dtype(catalog::dtypeName(c.dtype));
    GemmTypes types{dtype, dtype};
    auto key = std::make_tuple(c.gemm().n, c.gemm().k, dtype);
    auto found = groupIndex.find(key);
    if (found != groupIndex.end()) {
      plan.groups[found->second].ops.push_back(c.name);
      for (size_t ki : plan.groups[found->second].kernelPerBucket) {
        auto &ops = plan.kernels[ki].ops;
        if (std::find(ops.begin(), ops.end(), c.name) == ops.end())
          ops.push_back(c.name);
      }
      continue;
    }
    GemmGroup g;
    g.n = c.gemm().n;
    g.k = c.gemm().k;
    g.types = types;
    g.ops = {c.name};
    g.bucketBounds = c.m_buckets;
    std::sort(g.bucketBounds.begin(), g.bucketBounds.end());
    g.bucketBounds.erase(std::unique(g.bucketBounds.begin(), g.bucketBounds.end()), g.bucketBounds.end());
    for (int64_t m : g.bucketBounds) {
      GemmKernel k;
      k.n = g.n;
      k.k = g.k;
      k.types = types;
      k.tiles = choose(m, g.n, g.k, types);
      g.kernelPerBucket.push_back(addKernel(k, c.name));
    }
    groupIndex[key] = plan.groups.size();
    plan.groups.push_back(std::move(g));
  }

  // Generic kernels: a 1-row tile for single-token decode (the commonest
  // shape outside a catalog: an f32 model served from a bf16 catalog, say;
  // a 4-row tile would do 4x its FMAs there), 4-row tiles up to m = 4,
  // then 16, 32, 128 and 256 rows, so a shape outside the catalog computes
  // at most 2x its rows from m = 2 up to 256.
  for (const GemmTypes &t : fallbackGemmTypes()) {
    GemmGroup fb;
    fb.types = t;
    fb.ops = {"fallback"};
    fb.bucketBounds = {1, 4, 16, 32, 128, 256};
    for (int64_t m : fb.bucketBounds) {
      GemmKernel k;
      k.types = t;
      k.tiles = chooseCpuGemmTiles(m, 0, 0, t, bf16InF32);
      fb.kernelPerBucket.push_back(addKernel(k, "fallback"));
    }
    plan.fallbacks.push_back(std::move(fb));
  }
  return plan;
}

} // namespace argus::emit
