//===- DbCommand.cpp - argus-gen db: read a tuning database ---------------===//
#include "DbCommand.h"

#include "argus/Tuning/TuningDb.h"

#include <iomanip>
#include <map>

namespace argus::tools {

namespace {

/// Candidates of one op configuration, for `db list`.
struct ConfigSummary {
  int tried = 0, usable = 0, modelled = 0;
};

void list(const tuning::TuningDb &db, std::ostream &out) {
  const tuning::DbIdentity &id = db.identity();
  out << "generator " << id.generatorVersion << ", target " << id.target << ", device " << id.device
      << ", kernel build " << id.kernelBuild << "\n"
      << "toolchain: " << id.toolchain << "\n";
  std::map<std::pair<std::string, std::string>, ConfigSummary> configs; // sorted by (op, shape key)
  for (const tuning::CandidateResult &r : db.results()) {
    ConfigSummary &s = configs[{r.key.op, r.key.shapeKey}];
    ++s.tried;
    s.usable += r.verification == tuning::Verification::Proved && r.correct;
    s.modelled += r.verification == tuning::Verification::Proved && !r.measured && r.seconds > 0;
  }
  out << configs.size() << " op configurations\n";
  for (const auto &[config, s] : configs) {
    out << "  " << config.first << " | " << config.second << ": " << s.tried << " tried, " << s.usable
        << " proved and correct";
    if (s.modelled) out << ", " << s.modelled << " built and modelled (not run)";
    if (auto best = db.best(config.first, config.second))
      out << "; best " << best->key.parameters << (best->key.techniques.empty() ? "" : " +" + best->key.techniques)
          << " " << std::setprecision(4) << best->seconds * 1e6 << " us (" << (best->measured ? "measured" : "modelled")
          << ")";
    out << "\n";
  }
}

} // namespace

std::string dbCommand(const std::string &action, const std::string &path, std::ostream &out) {
  auto opened = tuning::TuningDb::openExisting(path);
  if (auto *error = std::get_if<std::string>(&opened)) return *error;
  const tuning::TuningDb &db = *std::get<std::unique_ptr<tuning::TuningDb>>(opened);
  if (action == "export")
    out << db.exportJson() << "\n";
  else
    list(db, out);
  return "";
}

} // namespace argus::tools
