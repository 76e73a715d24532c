//===- Sweep.h - tune a catalog's kernels into the tuning database -*- C++ -*-===//
//
// The sweep behind `argus-gen build`: for every op configuration of a
// catalog, candidates (the rule's tiles and their neighbours) go through
// generate → verify → compile → check against float64 → time, and each
// outcome is committed to the tuning database as it happens. Results already
// in the database are not redone, so a killed sweep resumes where it
// stopped. The library is then emitted from the database's best (the tuned
// choosers), falling back to the rule where nothing was usable.
//
// What is swept, and where it is measured (the shape key names the probe, so
// a database serves any catalog with the same shapes):
//  - GEMM: every shape and token bucket, at the bucket's upper bound of rows
//    capped so one call costs at most `maxProbeFlops` (the last buckets of a
//    large GEMM share the capped probe, and its result);
//  - prefill attention: BQ and BKV of each catalog kernel, causal at
//    kAttentionProbeTokens tokens, one KV head and its query heads;
//  - MoE: BN and BK of each tier's gate/up and down kernels, at the tier's
//    rows (decode tiers on one thread, as the runtime runs them).
// Decode attention has no tile parameter: its splits follow the context and
// the threads at run time.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TUNING_SWEEP_H
#define ARGUS_TUNING_SWEEP_H

#include "argus/Agent/Search.h"
#include "argus/Backend/CodegenCpu.h"
#include "argus/Catalog/OpConfig.h"
#include "argus/Emit/AttentionPlan.h"
#include "argus/Emit/GemmPlan.h"
#include "argus/Emit/MoePlan.h"
#include "argus/Tuning/MachinePeaks.h"
#include "argus/Tuning/TuningDb.h"

#include <functional>
#include <string>
#include <variant>

namespace argus::tuning {

/// Where a sweep stands, for a progress display.
struct SweepProgress {
  int done = 0, total = 0; // op configurations (shape and probe rows)
  std::string current;     // what runs now, e.g. "qkv M=16: compiling 4 candidates"
  std::string best;        // best of the last finished configuration, e.g. "BK=512,BM=16,BN=64 41.2 us"
  double etaSeconds = -1;  // -1 until an estimate exists
  bool finished = false;   // a configuration just finished (plain logs print one line per configuration)
};

/// The chat model `--agent llm` asks (an OpenAI-compatible endpoint).
struct LlmSettings {
  std::string endpoint;        // e.g. http://127.0.0.1:8000/v1
  std::string model;
  std::string apiKey;          // "" sends none
  double timeoutSeconds = 120; // of one request
};

struct SweepOptions {
  std::string homeDir;            // the Argus tree (templates/, dist/)
  std::string target = codegen::defaultCpuTarget();
  std::string workDir;            // candidate sources, objects and shared objects
  std::string cacheDir;           // object cache shared with the library build
  int jobs = 2;                   // parallel compilers
  int budget = 4;                 // candidates per bucket, the rule's first
  double maxProbeFlops = 6.4e10;  // cost cap of one timed call
  int threads = 0;                // OpenMP threads of a timed call (0 = all)
  /// Who proposes the candidates: "rule" (the rule's tiles and their nearest
  /// neighbours, `budget` of them), or an agent strategy over the knowledge
  /// base's space (templates/knowledge) with `budget` candidates per
  /// configuration: "planner", "random", "grid", "exhaustive" (every
  /// admitted point; `budget` is ignored), or "llm" (a chat model proposes
  /// whole kernels, the planner stands in when it has nothing usable; every
  /// exchange is logged to workDir/llm-exchanges.jsonl).
  std::string agent = "rule";
  LlmSettings llm;                // --agent llm only
  uint64_t seed = 1;              // of the planner and random search
  double searchSeconds = 0;       // per configuration, 0 = no limit
  machine::Peaks peaks;           // the cost model's roofs (zeros: nominal ones)
  /// For a target this host cannot run (cpu-avx512 on an AVX2 machine):
  /// candidates are proved and compiled, never run; each gets the cost
  /// model's time, recorded as modelled (not measured, not checked against
  /// the reference), so the library keeps the rule's tiles.
  bool modelOnly = false;
  std::function<void(const SweepProgress &)> progress;
};

/// The agent strategies SweepOptions::agent accepts.
const std::vector<std::string> &sweepAgents();

struct SweepReport {
  int configs = 0;          // op configurations swept
  int candidates = 0;       // results they hold (new and earlier)
  int measuredNow = 0;      // results this run added
  int refuted = 0, failed = 0, incorrect = 0; // of this run's results
  int modelled = 0;                            // of this run's results: built, time from the cost model
  int llmAsked = 0, llmUsed = 0; // --agent llm: questions, and replies that became candidates
  double seconds = 0;
};

/// The template every GEMM candidate instantiates.
inline constexpr const char *kGemmTemplate = emit::kGemmTemplatePath;

/// Query and key tokens of a prefill attention probe.
inline constexpr int64_t kAttentionProbeTokens = 1024;

/// Rows a bucket of up to `m` rows is measured at.
int64_t gemmProbeRows(int64_t m, int64_t n, int64_t k, double maxProbeFlops);

/// The tuning database's key of a GEMM shape measured at `probeM` rows.
std::string gemmShapeKey(const emit::GemmTypes &types, int64_t n, int64_t k, int64_t probeM);

/// Canonical parameter text of tiles ("BK=512,BM=16,BN=64") and back.
std::string gemmParameters(const emit::GemmTiles &tiles);
bool parseGemmParameters(const std::string &text, emit::GemmTiles &tiles);

/// The key and parameter text of a prefill kernel's probe and tiles.
std::string attentionShapeKey(const emit::AttentionKernel &kernel);
std::string attentionParameters(const emit::AttentionTiles &tiles);
bool parseAttentionParameters(const std::string &text, emit::AttentionTiles &tiles);

/// The rows an MoE tier with tiles `tileRows` tall is measured at, and the
/// key of that probe.
int64_t moeProbeRows(int64_t tileRows);
std::string moeShapeKey(emit::MoeRole role, const emit::MoeEntry &entry, int64_t tileRows);

/// The cost model's roofs for operands of `elementBytes` from the machine's
/// measured peaks (bf16's where the CPU has them, else f32's); nominal ones
/// where a peak is zero (they set the balance of compute and memory,
/// calibration the scale).
agent::Roofs agentRoofs(const machine::Peaks &peaks, double elementBytes, int threads);

/// A database result as the agent sees it (its status, time and detail).
agent::Outcome agentOutcome(const CandidateResult &result);
/// Parameter text ("BK=512,BM=16,BN=64") as a point; nullopt when malformed.
std::optional<agent::Point> parametersPoint(const std::string &parameters);

/// Sweeps every catalog GEMM group of `plan` (built by rule) into `db`.
std::variant<SweepReport, std::string> sweepGemms(const emit::GemmPlan &plan, TuningDb &db, const SweepOptions &options);

/// Sweeps every tunable kernel of a catalog: its GEMM groups, prefill
/// attention kernels and MoE tiers.
std::variant<SweepReport, std::string> sweepCatalog(const std::vector<catalog::OpConfig> &configs, TuningDb &db,
                                                    const SweepOptions &options);

/// Tiles from the database's best for each configuration, the rule's where
/// it has none.
emit::GemmTileChooser tunedGemmChooser(const TuningDb &db, double maxProbeFlops, bool bf16InF32 = false);
emit::AttentionTileChooser tunedAttentionChooser(const TuningDb &db);
emit::MoeTileChooser tunedMoeChooser(const TuningDb &db, bool bf16InF32 = false);

} // namespace argus::tuning

#endif // ARGUS_TUNING_SWEEP_H
