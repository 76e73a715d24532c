//===- Sweep.cpp - tune a catalog's kernels into the tuning database ------===//
#include "argus/Tuning/Sweep.h"

#include "SweepEngine.h"

#include "argus/Tuning/GemmMeasure.h"
#include "argus/Tuning/KernelMeasure.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <thread>

namespace argus::tuning {

using emit::GemmGroup;
using emit::GemmTiles;
using emit::GemmTypes;
using namespace detail;

int64_t gemmProbeRows(int64_t m, int64_t n, int64_t k, double maxProbeFlops) {
  double perRow = 2.0 * double(n) * double(k);
  int64_t cap = std::max<int64_t>(1, int64_t(maxProbeFlops / std::max(perRow, 1.0)));
  return std::min(m, cap);
}

std::string gemmShapeKey(const GemmTypes &types, int64_t n, int64_t k, int64_t probeM) {
  return types.a + "->" + types.c + " N=" + std::to_string(n) + " K=" + std::to_string(k) + " M=" +
         std::to_string(probeM);
}

std::string gemmParameters(const GemmTiles &t) {
  return "BK=" + std::to_string(t.bk) + ",BM=" + std::to_string(t.bm) + ",BN=" + std::to_string(t.bn);
}

namespace {

/// Parses "A=1,B=2" into `out`, which names every parameter expected (each
/// must appear, positive, and nothing else may).
bool parseParameters(const std::string &text, const std::map<std::string, int64_t *> &out) {
  std::optional<agent::Point> point = parametersPoint(text);
  if (!point || point->size() != out.size() || size_t(std::count(text.begin(), text.end(), ',')) + 1 != out.size())
    return false;
  for (auto &[name, slot] : out)
    if (!point->count(name)) return false;
  for (auto &[name, slot] : out) *slot = point->at(name);
  return true;
}

} // namespace

bool parseGemmParameters(const std::string &text, GemmTiles &tiles) {
  GemmTiles t;
  if (!parseParameters(text, {{"BM", &t.bm}, {"BN", &t.bn}, {"BK", &t.bk}})) return false;
  tiles = t;
  return true;
}

std::string attentionShapeKey(const emit::AttentionKernel &k) {
  return k.dtype + " D=" + std::to_string(k.headDim) + " DV=" + std::to_string(k.vHeadDim) + " GROUP=" +
         std::to_string(k.group) + " S=" + std::to_string(kAttentionProbeTokens) + " causal";
}

std::string attentionParameters(const emit::AttentionTiles &t) {
  return "BKV=" + std::to_string(t.bkv) + ",BQ=" + std::to_string(t.bq);
}

bool parseAttentionParameters(const std::string &text, emit::AttentionTiles &tiles) {
  emit::AttentionTiles t;
  if (!parseParameters(text, {{"BQ", &t.bq}, {"BKV", &t.bkv}})) return false;
  tiles = t;
  return true;
}

int64_t moeProbeRows(int64_t tileRows) { return tileRows <= emit::kMoeDecodeRows ? tileRows : std::max<int64_t>(tileRows, 128); }

std::string moeShapeKey(emit::MoeRole role, const emit::MoeEntry &e, int64_t tileRows) {
  int64_t n = role == emit::MoeRole::GateUp ? e.intermediate : e.hidden;
  int64_t k = role == emit::MoeRole::GateUp ? e.hidden : e.intermediate;
  return e.dtype + " N=" + std::to_string(n) + " K=" + std::to_string(k) + " M=" +
         std::to_string(moeProbeRows(tileRows)) + " BM=" + std::to_string(tileRows) +
         (tileRows <= emit::kMoeDecodeRows ? " one thread" : "");
}

namespace {

/// Threads a timed call uses: the features' THREADS.
double sweepThreads(const SweepOptions &opt) {
  return opt.threads > 0 ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
}

double elementBytes(const std::string &dtype) { return dtype == "f32" ? 4 : 2; }

agent::Point gemmPoint(const GemmTiles &t) { return {{"BM", t.bm}, {"BN", t.bn}, {"BK", t.bk}}; }
GemmTiles gemmTilesAt(const agent::Point &p) { return {p.at("BM"), p.at("BN"), p.at("BK")}; }

} // namespace

const char *moeOp(emit::MoeRole role) { return role == emit::MoeRole::GateUp ? "moe_gate_up" : "moe_down"; }

namespace {

/// GEMMs: a group per catalog shape, a configuration per probe row count
/// (buckets sharing a capped probe share it), the buckets' candidates.
SweepGroup gemmGroup(const GemmGroup &g, const SweepOptions &opt) {
  SweepGroup group;
  auto candidateAt = [g](const GemmTiles &t) {
    emit::GemmKernel kernel;
    kernel.n = g.n;
    kernel.k = g.k;
    kernel.types = g.types;
    kernel.tiles = t;
    return CandidateSource{kGemmTemplate, kernel.specialization(), emit::gemmKernelSymbol(kernel), gemmParameters(t)};
  };
  std::string ops;
  for (const std::string &op : g.ops) ops += (ops.empty() ? "" : ",") + op;
  std::map<int64_t, SweepConfig> byProbe;
  for (int64_t bound : g.bucketBounds) {
    int64_t probe = gemmProbeRows(bound, g.n, g.k, opt.maxProbeFlops);
    SweepConfig &c = byProbe[probe];
    c.op = "gemm";
    c.key = gemmShapeKey(g.types, g.n, g.k, probe);
    c.label = ops + " M=" + std::to_string(probe);
    if (c.rule.empty()) { // the first bucket measured at this probe
      c.features = {{"M", double(probe)}, {"N", double(g.n)}, {"K", double(g.k)},
                    {"ELEM", elementBytes(g.types.a)}, {"THREADS", sweepThreads(opt)}};
      c.rule = gemmPoint(emit::chooseCpuGemmTiles(bound, g.n, g.k, g.types, codegen::cpuTargetWidensBf16(opt.target)));
    }
    if (opt.agent != "rule") continue; // the agent proposes the candidates
    for (const GemmTiles &t :
         emit::cpuGemmCandidates(bound, g.n, g.k, g.types, opt.budget, codegen::cpuTargetWidensBf16(opt.target))) {
      CandidateSource source = candidateAt(t);
      auto it = std::find_if(group.candidates.begin(), group.candidates.end(),
                             [&](const CandidateSource &s) { return s.symbol == source.symbol; });
      size_t index = size_t(it - group.candidates.begin());
      if (it == group.candidates.end()) group.candidates.push_back(std::move(source));
      if (std::find(c.candidates.begin(), c.candidates.end(), index) == c.candidates.end())
        c.candidates.push_back(index);
    }
  }
  std::vector<int64_t> probeRows;
  for (auto &[probe, c] : byProbe) {
    group.configs.push_back(std::move(c));
    probeRows.push_back(probe);
  }
  group.space = "gemm-cpu";
  group.candidateAt = [candidateAt](const agent::Point &p) { return candidateAt(gemmTilesAt(p)); };
  group.measure = [g, probeRows, threads = opt.threads](const std::vector<ProbeRef> &refs, const ResultSink &sink) {
    std::vector<GemmProbe> probes;
    for (const ProbeRef &r : refs) probes.push_back({r.library, r.symbol, probeRows[r.config]});
    MeasureOptions mo;
    mo.threads = threads;
    return measureGemms(g.n, g.k, g.types, probes, mo, sink);
  };
  return group;
}

/// Measures a group's probes with the harness: the arguments described once
/// from the first candidate (the candidates differ in tiles only).
std::function<std::string(const std::vector<ProbeRef> &, const ResultSink &)>
harnessMeasure(const std::string &homeDir, const CandidateSource &first, std::map<std::string, int64_t> sizes,
               std::map<std::string, double> scalars, int threads) {
  return [=](const std::vector<ProbeRef> &refs, const ResultSink &sink) -> std::string {
    auto described = describeKernel(homeDir, first, sizes, scalars);
    if (auto *why = std::get_if<std::string>(&described)) return "describing " + first.symbol + ": " + *why;
    const DescribedKernel &d = std::get<DescribedKernel>(described);
    std::vector<KernelProbe> probes;
    for (const ProbeRef &r : refs) probes.push_back({r.library, r.symbol});
    MeasureOptions mo;
    mo.threads = threads;
    return measureKernels(*d.reference, d.args, probes, mo, sink);
  };
}

/// Attention: a group per catalog prefill kernel, measured causal at
/// kAttentionProbeTokens tokens with one KV head and its GROUP query heads.
SweepGroup attentionGroup(const emit::AttentionKernel &kernel, const SweepOptions &opt) {
  SweepGroup group;
  SweepConfig c;
  c.op = "attention_prefill";
  c.key = attentionShapeKey(kernel);
  c.label = "attention " + kernel.symbol.substr(std::string("argusk_attn_").size());
  auto candidateAt = [kernel](const emit::AttentionTiles &t) {
    emit::AttentionKernel k = kernel;
    k.tiles = t;
    return CandidateSource{k.templatePath(), k.specialization(),
                           k.symbol + "_bq" + std::to_string(t.bq) + "_bkv" + std::to_string(t.bkv),
                           attentionParameters(t)};
  };
  const emit::AttentionTiles rule = emit::chooseCpuAttentionTiles(kernel);
  c.features = {{"SQ", double(kAttentionProbeTokens)}, {"SKV", double(kAttentionProbeTokens)},
                {"D", double(kernel.headDim)},        {"GROUP", double(kernel.group)},
                {"ELEM", elementBytes(kernel.dtype)}, {"THREADS", sweepThreads(opt)}};
  c.rule = {{"BQ", rule.bq}, {"BKV", rule.bkv}};
  group.space = "attention-prefill-cpu";
  group.candidateAt = [candidateAt](const agent::Point &p) { return candidateAt({p.at("BQ"), p.at("BKV")}); };
  if (opt.agent == "rule")
    for (const emit::AttentionTiles &t : emit::cpuAttentionCandidates(kernel, opt.budget)) {
      c.candidates.push_back(group.candidates.size());
      group.candidates.push_back(candidateAt(t));
    }
  group.configs.push_back(c);
  const int64_t s = kAttentionProbeTokens;
  group.measure = harnessMeasure(opt.homeDir, candidateAt(rule), // candidates differ in tiles only
                                 {{"SQ", s}, {"SKV", s}, {"H", kernel.group}, {"KVH", 1}},
                                 {{"scale", 1.0 / std::sqrt(double(kernel.headDim))}, {"causal", 1}}, opt.threads);
  return group;
}

/// MoE: a group per catalog entry, tier and role, measured at the tier's
/// rows (single-threaded for decode tiers, as the runtime runs them).
SweepGroup moeGroup(const emit::MoeEntry &e, int64_t tileRows, emit::MoeRole role, const SweepOptions &opt) {
  SweepGroup group;
  SweepConfig c;
  c.op = moeOp(role);
  c.key = moeShapeKey(role, e, tileRows);
  c.label = std::string(role == emit::MoeRole::GateUp ? "moe gate/up " : "moe down ") + e.name + " BM=" +
            std::to_string(tileRows);
  int64_t n = role == emit::MoeRole::GateUp ? e.intermediate : e.hidden;
  int64_t k = role == emit::MoeRole::GateUp ? e.hidden : e.intermediate;
  GemmTiles rule = emit::chooseCpuMoeTilesOnTarget(role, e.dtype, tileRows, codegen::cpuTargetWidensBf16(opt.target));
  auto candidateAt = [role, e](const GemmTiles &t) {
    emit::MoeKernel kernel = emit::moeKernel(role, e, t);
    return CandidateSource{kernel.templatePath, kernel.spec,
                           kernel.symbol + "_n" + std::to_string(t.bn) + "_k" + std::to_string(t.bk), gemmParameters(t)};
  };
  int threads = tileRows <= emit::kMoeDecodeRows ? 1 : opt.threads;
  c.features = {{"M", double(tileRows)}, {"N", double(n)}, {"K", double(k)}, {"ELEM", elementBytes(e.dtype)},
                {"THREADS", threads > 0 ? double(threads) : sweepThreads(opt)}};
  c.rule = gemmPoint(rule);
  group.space = role == emit::MoeRole::GateUp ? "moe-gate-up-cpu" : "moe-down-cpu";
  group.candidateAt = [candidateAt](const agent::Point &p) { return candidateAt(gemmTilesAt(p)); };
  if (opt.agent == "rule")
    for (const GemmTiles &t :
         emit::cpuGemmCandidates(rule, tileRows, n, k, GemmTypes{e.dtype, e.dtype}, opt.budget, /*rowsFixed=*/true,
                                 codegen::cpuTargetWidensBf16(opt.target))) {
      c.candidates.push_back(group.candidates.size());
      group.candidates.push_back(candidateAt(t));
    }
  group.configs.push_back(c);
  std::map<std::string, double> scalars;
  if (role == emit::MoeRole::Down) scalars = {{"alpha", 1}, {"beta", 0}, {"has_bias", 0}};
  group.measure =
      harnessMeasure(opt.homeDir, candidateAt(rule), {{"M", moeProbeRows(tileRows)}}, scalars, threads);
  return group;
}

} // namespace

std::variant<SweepReport, std::string> sweepGemms(const emit::GemmPlan &plan, TuningDb &db, const SweepOptions &opt) {
  std::vector<SweepGroup> groups;
  for (const GemmGroup &g : plan.groups) groups.push_back(gemmGroup(g, opt));
  return runSweep(groups, db, opt);
}

std::variant<SweepReport, std::string> sweepCatalog(const std::vector<catalog::OpConfig> &configs, TuningDb &db,
                                                    const SweepOptions &opt) {
  std::vector<SweepGroup> groups;
  for (const GemmGroup &g : emit::planGemms(configs, {}, codegen::cpuTargetWidensBf16(opt.target)).groups)
    groups.push_back(gemmGroup(g, opt));
  for (const emit::AttentionKernel &k : emit::planAttention(configs))
    if (k.inCatalog && k.kind == emit::AttentionKind::Prefill) groups.push_back(attentionGroup(k, opt));
  for (const emit::MoeEntry &e : emit::planMoe(configs, nullptr, codegen::cpuTargetWidensBf16(opt.target)))
    if (e.inCatalog)
      for (int64_t rows : emit::moeTierBlockRows())
        for (emit::MoeRole role : {emit::MoeRole::GateUp, emit::MoeRole::Down})
          groups.push_back(moeGroup(e, rows, role, opt));
  return runSweep(groups, db, opt);
}

namespace {

/// The fastest usable result of a configuration for the library: the
/// template's own, or a kernel that replaces it (an LLM's) whose text the
/// database keeps. Its template path is the replacement's name, or `templatePath`.
std::optional<CandidateResult> libraryBest(const TuningDb &db, const std::string &op, const std::string &key,
                                           const std::string &templatePath) {
  std::optional<CandidateResult> best = db.best(op, key);
  if (best && (best->key.templatePath == templatePath ||
               (best->key.templatePath.rfind("llm/", 0) == 0 && db.source(best->key.templatePath))))
    return best;
  return db.best(op, key, templatePath);
}

/// The replacement a result names: its template path unless it is `templatePath`.
std::string replacementOf(const CandidateResult &best, const std::string &templatePath) {
  return best.key.templatePath == templatePath ? "" : best.key.templatePath;
}

} // namespace

emit::GemmTileChooser tunedGemmChooser(const TuningDb &db, double maxProbeFlops, bool bf16InF32) {
  return [&db, maxProbeFlops, bf16InF32](int64_t m, int64_t n, int64_t k, const GemmTypes &types) {
    std::optional<CandidateResult> best =
        libraryBest(db, "gemm", gemmShapeKey(types, n, k, gemmProbeRows(m, n, k, maxProbeFlops)), kGemmTemplate);
    GemmTiles tiles;
    if (best && parseGemmParameters(best->key.parameters, tiles)) {
      tiles.kernel = replacementOf(*best, kGemmTemplate);
      return tiles;
    }
    return emit::chooseCpuGemmTiles(m, n, k, types, bf16InF32);
  };
}

emit::AttentionTileChooser tunedAttentionChooser(const TuningDb &db) {
  return [&db](const emit::AttentionKernel &kernel) {
    std::optional<CandidateResult> best =
        libraryBest(db, "attention_prefill", attentionShapeKey(kernel), kernel.templatePath());
    emit::AttentionTiles tiles;
    if (best && parseAttentionParameters(best->key.parameters, tiles)) {
      tiles.kernel = replacementOf(*best, kernel.templatePath());
      return tiles;
    }
    return emit::chooseCpuAttentionTiles(kernel);
  };
}

emit::MoeTileChooser tunedMoeChooser(const TuningDb &db, bool bf16InF32) {
  return [&db, bf16InF32](emit::MoeRole role, const emit::MoeEntry &entry, int64_t rows) {
    GemmTiles tiles;
    GemmTiles rule = emit::chooseCpuMoeTilesOnTarget(role, entry.dtype, rows, bf16InF32);
    const std::string templatePath = emit::moeKernel(role, entry, rule).templatePath;
    std::optional<CandidateResult> best = libraryBest(db, moeOp(role), moeShapeKey(role, entry, rows), templatePath);
    if (best && parseGemmParameters(best->key.parameters, tiles) && tiles.bm == rows) {
      tiles.kernel = replacementOf(*best, templatePath);
      return tiles;
    }
    return rule;
  };
}

} // namespace argus::tuning
