//===- MoePlan.cpp - MoE kernel instances for a catalog -------------------===//
#include "argus/Emit/MoePlan.h"
#include "argus/Emit/GemmPlan.h"

#include <algorithm>
#include <cstdint>

namespace argus::emit {

namespace {

// Groups take tiles about as tall as the group: one row (every expert of a
// batch-1 decode step), up to kMoeDecodeRows, up to 16, then 32-row tiles.
// Tiles padded to more rows than the group compute and copy the padding (a
// 1-row down projection runs 1.37x faster on a 1-row tile than on a 4-row
// one, Qwen3-30B-A3B shapes, one thread).
constexpr int64_t kTierRows[] = {1, kMoeDecodeRows, 16}, kLargeBlockM = 32, kBlockN = 64;

/// The k-step a GEMM of this dtype and tile height takes (GemmPlan's rule).
int64_t blockK(const std::string &dtype, int64_t bm) {
  return chooseCpuGemmTiles(bm, 0, 0, GemmTypes{dtype, dtype}).bk;
}

MoeKernel gateUp(const MoeEntry &e, int64_t bm) {
  MoeKernel k;
  k.templatePath = "templates/moe/moe_gate_up.argus";
  k.symbol = "argusk_moe_gate_up_" + e.name + "_m" + std::to_string(bm);
  k.spec.constants["T"] = e.dtype;
  k.spec.constants["BM"] = bm;
  k.spec.constants["BN"] = kBlockN;
  k.spec.constants["BK"] = blockK(e.dtype, bm);
  if (e.hidden > 0) {
    k.spec.dims["N"] = e.intermediate;
    k.spec.dims["K"] = e.hidden;
  }
  return k;
}

MoeKernel down(const MoeEntry &e, int64_t bm) {
  MoeKernel k;
  k.templatePath = "templates/gemm/gemm_tn.argus";
  k.symbol = "argusk_moe_down_" + e.name + "_m" + std::to_string(bm);
  k.spec.constants["TA"] = e.dtype;
  k.spec.constants["TC"] = std::string("f32");
  k.spec.constants["BM"] = bm;
  k.spec.constants["BN"] = kBlockN;
  k.spec.constants["BK"] = blockK(e.dtype, bm);
  if (e.hidden > 0) {
    k.spec.dims["N"] = e.hidden;
    k.spec.dims["K"] = e.intermediate;
  }
  return k;
}

MoeEntry makeEntry(const std::string &dtype, int64_t hidden, int64_t intermediate, bool inCatalog) {
  MoeEntry e;
  e.dtype = dtype;
  e.hidden = hidden;
  e.intermediate = intermediate;
  e.inCatalog = inCatalog;
  e.name = dtype + (hidden > 0 ? "_h" + std::to_string(hidden) + "_i" + std::to_string(intermediate) : "_generic");
  for (int64_t rows : kTierRows)
    e.tiers.push_back({rows, gateUp(e, rows), down(e, rows)});
  e.tiers.push_back({INT64_MAX, gateUp(e, kLargeBlockM), down(e, kLargeBlockM)});
  return e;
}

} // namespace

std::vector<const MoeKernel *> MoeEntry::kernels() const {
  std::vector<const MoeKernel *> all;
  for (const MoeTier &t : tiers) {
    all.push_back(&t.gateUp);
    all.push_back(&t.down);
  }
  return all;
}

std::vector<MoeEntry> planMoe(const std::vector<catalog::OpConfig> &configs) {
  std::vector<MoeEntry> entries;
  for (const catalog::OpConfig &c : configs) {
    if (c.kind != catalog::OpKind::Moe)
      continue;
    MoeEntry e = makeEntry(std::string(catalog::dtypeName(c.dtype)), c.moe().hidden, c.moe().intermediate, true);
    e.numExperts = c.moe().num_experts;
    e.topK = c.moe().top_k;
    auto same = std::find_if(entries.begin(), entries.end(), [&](const MoeEntry &x) { return x.name == e.name; });
    if (same == entries.end()) {
      e.ops = {c.name};
      entries.push_back(e);
    } else if (std::find(same->ops.begin(), same->ops.end(), c.name) == same->ops.end()) {
      same->ops.push_back(c.name);
    }
  }
  for (const char *dtype : {"bf16", "f32"})
    entries.push_back(makeEntry(dtype, 0, 0, false));
  return entries;
}

} // namespace argus::emit
