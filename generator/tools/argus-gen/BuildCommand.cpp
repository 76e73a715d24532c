//===- BuildCommand.cpp - argus-gen build: sweep, then emit ---------------===//
#include "BuildCommand.h"

#include "argus/Catalog/Catalog.h"
#include "argus/Catalog/OpConfig.h"
#include "argus/Emit/AttentionPlan.h"
#include "argus/Emit/Compiler.h"
#include "argus/Emit/CudaLibraryBuilder.h"
#include "argus/Emit/HipLibraryBuilder.h"
#include "argus/Emit/MoePlan.h"
#include "argus/Tuning/Report.h"
#include "argus/Tuning/Sweep.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace fs = std::filesystem;

namespace argus::tools {

namespace {

std::string formatDuration(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, int(s) % 3600 / 60);
  return buf;
}

/// Renders sweep progress: a terminal gets one line rewritten in place; a
/// log gets a line per finished configuration.
class ProgressDisplay {
public:
  ProgressDisplay(std::ostream &out, bool terminal) : out_(out), terminal_(terminal) {}
  ~ProgressDisplay() {
    if (drawn_) out_ << "\n" << std::flush;
  }

  void operator()(const tuning::SweepProgress &p) {
    if (p.finished) lastBest_ = p.best;
    std::string line = "[" + std::to_string(p.done) + "/" + std::to_string(p.total) + "] " + p.current;
    if (p.finished) line += ": best " + p.best;
    else if (!lastBest_.empty()) line += " (last best " + lastBest_ + ")";
    if (p.etaSeconds >= 0) line += ", ETA " + formatDuration(p.etaSeconds);
    if (terminal_) {
      out_ << "\r\033[K  sweep " << line << std::flush;
      drawn_ = true;
    } else if (p.finished) {
      out_ << "argus-gen: sweep " << line << std::endl;
    }
  }

private:
  std::ostream &out_;
  bool terminal_, drawn_ = false;
  std::string lastBest_;
};

std::string toolchainDescription() {
  std::string version = emit::compilerIdentity();
  return version.substr(0, version.find('\n')) + "; MLIR 22";
}

/// The machine's roofs for the report: measured once per tuning database
/// (kept as its note, so a rebuild renders the same report) or, without a
/// database, not at all.
machine::Peaks databasePeaks(tuning::TuningDb &db, int threads, std::string &error) {
  machine::Peaks peaks;
  if (tuning::peaksFromJson(db.note("machine_peaks"), peaks)) return peaks;
  peaks = machine::measurePeaks(threads);
  error = db.setNote("machine_peaks", tuning::peaksToJson(peaks));
  return peaks;
}

/// One line per kernel the sweep does not tune, for the report.
std::vector<std::string> kernelsByRule(const std::vector<catalog::OpConfig> &configs, const std::string &target) {
  std::vector<std::string> lines;
  for (const emit::AttentionKernel &k : emit::planAttention(configs))
    if (!k.inCatalog || k.kind == emit::AttentionKind::Decode)
      lines.push_back(k.symbol + " (" + k.templatePath() +
                      (k.inCatalog ? ", no tile parameter: splits chosen at run time" : ", generic") + ")");
  for (const emit::MoeEntry &e : emit::planMoe(configs, nullptr, codegen::cpuTargetWidensBf16(target)))
    if (!e.inCatalog)
      for (const emit::MoeKernel *k : e.kernels())
        lines.push_back(k->symbol + " (" + k->templatePath + ", MoE " + e.name + ", generic)");
  return lines;
}

/// GPU targets: no sweep (the sweep measures on this machine's CPU); cuda-sm90a
/// configurations come from a rule fitted to an H100 sweep, hip ones from an
/// occupancy rule (no AMD GPU has timed them).
std::string buildGpuCommand(const emit::BuildOptions &build, int budget, std::ostream &out,
                            const std::function<void(const std::string &)> &log) {
  const bool cuda = emit::isCudaTarget(build.target);
  if (budget > 0)
    log("no sweep for " + build.target + " on this machine: " +
        (cuda ? "Hopper configurations by rule (fitted to the H100 and H200 sweeps in bench/results/cuda-gemm-h1*)"
              : "CDNA kernel shapes by an occupancy rule, not measured (no AMD GPU here)"));
  auto result = emit::buildLibrary(build);
  if (auto *error = std::get_if<std::string>(&result)) return *error;
  const emit::BuildReport &r = std::get<emit::BuildReport>(result);
  out << "built " << r.libraryPath << "\n"
      << "  " << r.kernels << " catalog kernels for " << r.groups << " GEMM shapes (" << build.target << "); "
      << r.compiled << " objects compiled, " << r.fromCache << " from cache; " << r.seconds << " s\n";
  return "";
}

} // namespace

std::string buildCommand(BuildFlags flags, std::ostream &out, bool terminal) {
  emit::BuildOptions &build = flags.build;
  auto log = [&](const std::string &line) { out << (terminal ? "  " : "argus-gen: ") << line << std::endl; };
  build.log = log;
  if (flags.agent == "llm" && (flags.llm.endpoint.empty() || flags.llm.model.empty()))
    return "--agent llm needs --endpoint URL and --model NAME";
  if (flags.agent != "llm" && (!flags.llm.endpoint.empty() || !flags.llm.model.empty()))
    return "--endpoint and --model are for --agent llm (the agent is " + flags.agent + ")";
  for (const char *variable : {"ARGUS_LLM_API_KEY", "OPENAI_API_KEY"})
    if (const char *key = std::getenv(variable); key && *key && flags.llm.apiKey.empty()) flags.llm.apiKey = key;
  catalog::Result<catalog::Catalog> cat = catalog::loadCatalog(build.catalogPath);
  if (!cat) return cat.error().format();
  const std::vector<catalog::OpConfig> configs = catalog::expand(cat.value());
  if (emit::isCudaTarget(build.target) || !emit::hipArch(build.target).empty())
    return buildGpuCommand(build, flags.budget, out, log);
  std::unique_ptr<tuning::TuningDb> db;
  tuning::SweepOptions sweep;
  machine::Peaks peaks;
  if (flags.budget > 0) {
    std::error_code ec;
    fs::create_directories(build.outDir, ec);
    if (ec) return "cannot create '" + build.outDir + "': " + ec.message();
    std::string dbPath = flags.dbPath.empty() ? (fs::path(build.outDir) / "tuning.db").string() : flags.dbPath;
    const std::string home = build.homeDir.empty() ? emit::defaultHomeDir() : build.homeDir;
    auto opened = tuning::TuningDb::open(dbPath, tuning::currentIdentity(build.target, toolchainDescription(), home),
                                         flags.retune);
    if (auto *error = std::get_if<std::string>(&opened)) return *error;
    db = std::move(std::get<std::unique_ptr<tuning::TuningDb>>(opened));

    sweep.homeDir = home;
    sweep.target = build.target;
    sweep.workDir = (fs::path(build.outDir) / ".sweep").string();
    sweep.cacheDir = build.cacheDir.empty() ? (fs::path(build.outDir) / ".cache").string() : build.cacheDir;
    sweep.jobs = build.jobs;
    sweep.budget = flags.budget;
    sweep.threads = int(std::thread::hardware_concurrency());
    sweep.agent = flags.agent;
    sweep.seed = flags.seed;
    sweep.searchSeconds = flags.searchSeconds;
    sweep.llm = flags.llm;
    sweep.modelOnly = !codegen::hostRunsCpuTarget(build.target);
    if (sweep.modelOnly)
      log("sweep: this host cannot run " + build.target +
          ": candidates are proved and compiled, not run; their times are the cost model's (recorded as modelled), "
          "and the library keeps the rule's tiles");
    std::string error;
    peaks = databasePeaks(*db, sweep.threads, error);
    if (!error.empty()) return "recording the machine's peaks: " + error;
    sweep.peaks = peaks;
    ProgressDisplay display(out, terminal);
    sweep.progress = [&](const tuning::SweepProgress &p) { display(p); };
    log("sweep: " + (flags.agent == "exhaustive" ? std::string("every candidate of the knowledge base's spaces")
                                                   : "up to " + std::to_string(flags.budget) + " candidates") +
        " per configuration, proposed by " + flags.agent + ", results in " + dbPath);
    auto swept = tuning::sweepCatalog(configs, *db, sweep);
    if (auto *error = std::get_if<std::string>(&swept)) return "sweep: " + *error;
    const tuning::SweepReport &r = std::get<tuning::SweepReport>(swept);
    sweep.progress = nullptr;
    log("sweep: " + std::to_string(r.configs) + " configurations, " + std::to_string(r.candidates) +
        " candidate results (" + std::to_string(r.measuredNow) + " new: " + std::to_string(r.refuted) + " refuted, " +
        std::to_string(r.failed) + " failed, " + std::to_string(r.incorrect) + " incorrect" +
        (r.modelled ? ", " + std::to_string(r.modelled) + " modelled" : std::string()) + ") in " +
        formatDuration(r.seconds));
    if (flags.agent == "llm")
      log("sweep: the model was asked " + std::to_string(r.llmAsked) + " times, " + std::to_string(r.llmUsed) +
          " replies became candidates (every exchange: " + (fs::path(sweep.workDir) / "llm-exchanges.jsonl").string() +
          ")");
    build.chooseGemmTiles =
        tuning::tunedGemmChooser(*db, sweep.maxProbeFlops, codegen::cpuTargetWidensBf16(build.target));
    build.chooseAttentionTiles = tuning::tunedAttentionChooser(*db);
    build.chooseMoeTiles = tuning::tunedMoeChooser(*db, codegen::cpuTargetWidensBf16(build.target));
    build.kernelSources = db->sources(); // kernels of the LLM's that won a configuration
    build.tuning = "tiles from a tuning database (" + std::to_string(r.configs) +
                   " GEMM, prefill attention and MoE configurations, up to " + std::to_string(flags.budget) +
                   " candidates each); decode attention and generic kernels by rule";
  }
  auto result = emit::buildLibrary(build);
  if (auto *error = std::get_if<std::string>(&result)) return *error;
  const emit::BuildReport &r = std::get<emit::BuildReport>(result);

  const emit::GemmPlan plan = // as the library holds it
      emit::planGemms(configs, build.chooseGemmTiles, codegen::cpuTargetWidensBf16(build.target));
  tuning::ReportInput report;
  report.model = cat->model;
  report.target = build.target;
  report.catalogFile = fs::path(cat->path).filename().string();
  report.catalogHash = cat->content_hash;
  report.plan = &plan;
  report.db = db.get();
  report.peaks = peaks;
  report.maxProbeFlops = sweep.maxProbeFlops;
  report.configs = &configs;
  report.byRule = kernelsByRule(configs, build.target);
  std::string reportPath = (fs::path(build.outDir) / "report.html").string(), error;
  if (!emit::writeIfChanged(reportPath, tuning::renderReport(report), error)) return error;
  out << "built " << r.libraryPath << "\n"
      << "  " << r.kernels << " kernels (" << r.tunedKernels << " for " << r.groups << " catalog GEMM shapes, "
      << r.fallbacks << " generic fallbacks); " << r.compiled << " objects compiled, " << r.fromCache
      << " from cache; " << r.seconds << " s\n"
      << "report " << reportPath << "\n";
  return "";
}

} // namespace argus::tools
