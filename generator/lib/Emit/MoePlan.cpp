//===- MoePlan.cpp - MoE kernel instances for a catalog -------------------===//
#include "argus/Emit/MoePlan.h"

#include "argus/Emit/KernelInstance.h"
#include "argus/Emit/GemmPlan.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>

namespace argus::emit {

namespace {

// Groups take tiles about as tall as the group: one row (every expert of a
// batch-1 decode step), up to kMoeDecodeRows, up to 16, up to 32, then
// 64-row tiles. Tiles padded to more rows than the group compute and copy
// the padding (a 1-row down projection runs 1.37x faster on a 1-row tile
// than on a 4-row one, Qwen3-30B-A3B shapes, one thread); each row block
// streams the expert's weights once, so large groups take tall blocks (f32
// 64 x 14336 x 4096, two threads: 64-row tiles 1.10-1.15x over 32-row ones).
constexpr int64_t kTierRows[] = {1, kMoeDecodeRows, 16, 32}, kLargeBlockM = 64, kBlockN = 64;

MoeEntry makeEntry(const std::string &dtype, int64_t hidden, int64_t intermediate, bool inCatalog) {
  MoeEntry e;
  e.dtype = dtype;
  e.hidden = hidden;
  e.intermediate = intermediate;
  e.inCatalog = inCatalog;
  e.name = dtype + (hidden > 0 ? "_h" + std::to_string(hidden) + "_i" + std::to_string(intermediate) : "_generic");
  return e;
}

/// The rule's kernel for plain weights of a tier `rows` tall, where its
/// tiles differ from those for either layout (else an empty symbol).
MoeKernel plainKernel(MoeRole role, const MoeEntry &e, int64_t rows) {
  const GemmTiles plain = chooseCpuMoeTiles(role, e.dtype, rows, true), any = chooseCpuMoeTiles(role, e.dtype, rows);
  if (plain.bn == any.bn && plain.bk == any.bk)
    return {};
  MoeKernel k = moeKernel(role, e, plain);
  k.symbol += "_plain";
  return k;
}

void addTiers(MoeEntry &e, const MoeTileChooser &choose, bool bf16InF32) {
  const bool mayComePacked = weightsMayComePacked(GemmTypes{e.dtype, e.dtype}, bf16InF32);
  std::vector<int64_t> rows = moeTierBlockRows();
  for (size_t i = 0; i < rows.size(); ++i) {
    auto tiles = [&](MoeRole role) {
      GemmTiles t = choose && e.inCatalog ? choose(role, e, rows[i])
                                          : chooseCpuMoeTilesOnTarget(role, e.dtype, rows[i], bf16InF32);
      t.bm = rows[i]; // the tier's contract with the runtime
      return t;
    };
    int64_t maxRows = i + 1 < rows.size() ? rows[i] : INT64_MAX;
    MoeTier tier{maxRows, moeKernel(MoeRole::GateUp, e, tiles(MoeRole::GateUp)),
                 moeKernel(MoeRole::Down, e, tiles(MoeRole::Down)), rows[i]};
    // Tiles by rule may differ for plain weights; tuned tiles were measured
    // on plain weights and serve both.
    if (mayComePacked && !(choose && e.inCatalog)) {
      tier.gateUpPlain = plainKernel(MoeRole::GateUp, e, rows[i]);
      tier.downPlain = plainKernel(MoeRole::Down, e, rows[i]);
    }
    // Kernels that read panels can take the rows packed instead of plain weights.
    if (mayComePacked && i + 1 == rows.size()) {
      tier.gateUpTransposed = moeTransposedKernel(MoeRole::GateUp, e);
      tier.downTransposed = moeTransposedKernel(MoeRole::Down, e);
    }
    e.tiers.push_back(tier);
  }
}

} // namespace

GemmTiles chooseCpuMoeTiles(MoeRole, const std::string &dtype, int64_t rows, bool plainWeights) {
  // The k-step a 64-column GEMM tile of this dtype and height takes. f32
  // tiles in the packed form (over 16 rows) that pack plain weights per call
  // take 256-long k-steps: the weight rows of a k-step then are 1 KiB reads,
  // not 512 B, from 64 weight rows a row length apart (Mixtral experts, two
  // threads: gate/up 1.1-1.35x at 24-64 rows, down 1.0-1.13x). On pre-packed
  // panels the longer step runs 0.9-1.0x (a step's two panels outgrow L1),
  // so those keep 128.
  const GemmTypes types{dtype, dtype};
  const int64_t step = cpuGemmKStep(rows, types);
  const bool packedForm = dtype == "f32" && step == 128;
  return {rows, kBlockN, plainWeights && packedForm ? 2 * step : step};
}

GemmTiles chooseCpuMoeTilesOnTarget(MoeRole role, const std::string &dtype, int64_t rows, bool bf16InF32) {
  return chooseCpuMoeTiles(role, dtype, rows, !weightsMayComePacked(GemmTypes{dtype, dtype}, bf16InF32));
}

bool moeKernelsSkipPaddingRows(const std::string &dtype, const std::string &target) {
  return (dtype == "f32" || dtype == "bf16") && target == "cpu-avx512";
}

std::vector<int64_t> moeTierBlockRows() {
  std::vector<int64_t> rows(std::begin(kTierRows), std::end(kTierRows));
  rows.push_back(kLargeBlockM);
  return rows;
}

MoeKernel moeKernel(MoeRole role, const MoeEntry &e, const GemmTiles &tiles) {
  MoeKernel k;
  bool gateUp = role == MoeRole::GateUp;
  k.templatePath = !tiles.kernel.empty() ? tiles.kernel : gateUp ? "templates/moe/moe_gate_up.argus" : kGemmTemplatePath;
  k.symbol = std::string(gateUp ? "argusk_moe_gate_up_" : "argusk_moe_down_") + e.name + "_m" + std::to_string(tiles.bm) +
             replacementSymbolSuffix(tiles.kernel);
  if (gateUp) {
    k.spec.constants["T"] = e.dtype;
  } else {
    k.spec.constants["TA"] = e.dtype;
    k.spec.constants["TC"] = std::string("f32"); // f32 rows for the combine
  }
  k.spec.constants["BM"] = tiles.bm;
  k.spec.constants["BN"] = tiles.bn;
  k.spec.constants["BK"] = tiles.bk;
  if (e.hidden > 0) {
    k.spec.dims["N"] = gateUp ? e.intermediate : e.hidden;
    k.spec.dims["K"] = gateUp ? e.hidden : e.intermediate;
  }
  return k;
}

MoeKernel moeTransposedKernel(MoeRole role, const MoeEntry &e) {
  // Tiles of weight rows by the last tier's block of tokens. 128 rows, not
  // the dense transposed GEMM's 256: an expert's tiles are its threads' work
  // (Qwen3-30B-A3B's 768 rows: 6 tiles, not 3, for two threads).
  constexpr int64_t kWeightRows = 128;
  const bool gateUp = role == MoeRole::GateUp;
  MoeKernel k;
  k.templatePath = gateUp ? "templates/moe/moe_gate_up_t.argus" : kGemmTemplatePath;
  k.symbol = std::string(gateUp ? "argusk_moe_gate_up_t_" : "argusk_moe_down_t_") + e.name;
  if (gateUp) {
    k.spec.constants["T"] = e.dtype;
  } else {
    k.spec.constants["TA"] = e.dtype;
    k.spec.constants["TC"] = std::string("f32");
  }
  k.spec.constants["BM"] = kWeightRows;
  k.spec.constants["BN"] = kLargeBlockM;
  k.spec.constants["BK"] = cpuGemmKStep(kWeightRows, GemmTypes{e.dtype, e.dtype});
  if (e.hidden > 0) { // gate/up: Wg (N x K) = intermediate x hidden; down: H (N x K) = rows x intermediate
    if (gateUp)
      k.spec.dims["N"] = e.intermediate;
    k.spec.dims["K"] = gateUp ? e.hidden : e.intermediate;
  }
  return k;
}

std::vector<const MoeKernel *> MoeEntry::kernels() const {
  std::vector<const MoeKernel *> all;
  for (const MoeTier &t : tiers)
    for (const MoeKernel *k :
         {&t.gateUp, &t.down, &t.gateUpPlain, &t.downPlain, &t.gateUpTransposed, &t.downTransposed})
      if (!k->symbol.empty())
        all.push_back(k);
  return all;
}

std::vector<MoeEntry> planMoe(const std::vector<catalog::OpConfig> &configs, const MoeTileChooser &choose,
                              bool bf16InF32) {
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
      addTiers(e, choose, bf16InF32);
      entries.push_back(e);
    } else if (std::find(same->ops.begin(), same->ops.end(), c.name) == same->ops.end()) {
      same->ops.push_back(c.name);
    }
  }
  for (const char *dtype : {"bf16", "f32"}) {
    entries.push_back(makeEntry(dtype, 0, 0, false));
    addTiers(entries.back(), nullptr, bf16InF32);
  }
  return entries;
}

} // namespace argus::emit
