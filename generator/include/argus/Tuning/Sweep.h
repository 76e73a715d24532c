//===- Sweep.h - tune a catalog's kernels into the tuning database -*- C++ -*-===//
//
// The sweep behind `argus-gen build`: for every GEMM shape of a catalog and
// every token bucket, candidates (the rule's tiles and their neighbours) go
// through generate → verify → compile → check against float64 → time, and
// each outcome is committed to the tuning database as it happens. Results
// already in the database are not redone, so a killed sweep resumes where it
// stopped. The library is then emitted from the database's best
// (`tunedGemmChooser`), falling back to the rule where nothing was usable.
//
// Each bucket is measured at its upper bound of rows, capped so one call
// costs at most `maxProbeFlops` (the last buckets of a large GEMM share the
// capped probe, and its result). The shape key names the probe, so a
// database serves any catalog with the same shapes.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TUNING_SWEEP_H
#define ARGUS_TUNING_SWEEP_H

#include "argus/Emit/GemmPlan.h"
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

struct SweepOptions {
  std::string homeDir;            // the Argus tree (templates/, dist/)
  std::string target = "cpu-avx512";
  std::string workDir;            // candidate sources, objects and shared objects
  std::string cacheDir;           // object cache shared with the library build
  int jobs = 2;                   // parallel compilers
  int budget = 4;                 // candidates per bucket, the rule's first
  double maxProbeFlops = 6.4e10;  // cost cap of one timed call
  int threads = 0;                // OpenMP threads of a timed call (0 = all)
  std::function<void(const SweepProgress &)> progress;
};

struct SweepReport {
  int configs = 0;          // op configurations swept
  int candidates = 0;       // results they hold (new and earlier)
  int measuredNow = 0;      // results this run added
  int refuted = 0, failed = 0, incorrect = 0; // of this run's results
  double seconds = 0;
};

/// The template every GEMM candidate instantiates.
inline constexpr const char *kGemmTemplate = "templates/gemm/gemm_tn.argus";

/// Rows a bucket of up to `m` rows is measured at.
int64_t gemmProbeRows(int64_t m, int64_t n, int64_t k, double maxProbeFlops);

/// The tuning database's key of a GEMM shape measured at `probeM` rows.
std::string gemmShapeKey(const emit::GemmTypes &types, int64_t n, int64_t k, int64_t probeM);

/// Canonical parameter text of tiles ("BK=512,BM=16,BN=64") and back.
std::string gemmParameters(const emit::GemmTiles &tiles);
bool parseGemmParameters(const std::string &text, emit::GemmTiles &tiles);

/// Sweeps every catalog GEMM group of `plan` (built by rule) into `db`.
std::variant<SweepReport, std::string> sweepGemms(const emit::GemmPlan &plan, TuningDb &db, const SweepOptions &options);

/// Tiles from the database's best for each bucket, the rule's where it has none.
emit::GemmTileChooser tunedGemmChooser(const TuningDb &db, double maxProbeFlops);

} // namespace argus::tuning

#endif // ARGUS_TUNING_SWEEP_H
