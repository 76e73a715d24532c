//===- Report.h - OUT/report.html: what a build chose and how fast -*- C++ -*-===//
//
// A self-contained page (inline CSS and SVG; no script, font or network
// access) for one built library: per GEMM configuration the buckets it
// serves, the kernel chosen, its measured time, GFLOP/s, GB/s and fraction
// of the roofline, and its speed against the rule's tiles measured in the
// same sweep; a roofline plot (log-log, the machine's measured roofs) with a
// point per configuration; and the kernels chosen by rule, which the sweep
// does not time. Nothing in it depends on when it was rendered, so an
// unchanged database renders the same bytes.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TUNING_REPORT_H
#define ARGUS_TUNING_REPORT_H

#include "argus/Catalog/OpConfig.h"
#include "argus/Emit/GemmPlan.h"
#include "argus/Tuning/MachinePeaks.h"
#include "argus/Tuning/TuningDb.h"

#include <string>
#include <vector>

namespace argus::tuning {

struct ReportInput {
  std::string model, target, catalogFile, catalogHash;
  const emit::GemmPlan *plan = nullptr; // as emitted (tiles chosen)
  const TuningDb *db = nullptr;         // null: tiles by rule, nothing measured
  machine::Peaks peaks;                 // roofs; zero when not measured
  double maxProbeFlops = 6.4e10;        // the sweep's probe cap
  const std::vector<catalog::OpConfig> *configs = nullptr; // for the attention and MoE tables
  std::vector<std::string> byRule;      // other kernels, one line each
};

std::string renderReport(const ReportInput &input);

/// Peaks as the JSON kept in a tuning database note, and back (false on a
/// malformed note).
std::string peaksToJson(const machine::Peaks &peaks);
bool peaksFromJson(const std::string &text, machine::Peaks &peaks);

} // namespace argus::tuning

#endif // ARGUS_TUNING_REPORT_H
