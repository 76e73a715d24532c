//===- SweepEngine.cpp - the sweep's pipeline, whatever the kernel --------===//
#include "SweepEngine.h"

#include "argus/Check/KernelCheck.h"
#include "argus/Dialect/Argus.h"
#include "argus/Emit/Compiler.h"
#include "argus/Emit/KernelInstance.h"
#include "argus/Emit/LibraryBuilder.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace argus::tuning::detail {

namespace {

/// A candidate once built: its shared object, or why it has none.
struct Built {
  std::string library, failure;
  Verification verification = Verification::Failed;
};

std::string formatSeconds(double s) {
  char buf[32];
  if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else if (s < 1) std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

/// Compiler output can be long; the database keeps its head.
std::string clip(const std::string &text, size_t limit = 4000) {
  return text.size() <= limit ? text : text.substr(0, limit) + "\n[... " + std::to_string(text.size() - limit) + " more bytes]";
}

class Engine {
public:
  Engine(TuningDb &db, const SweepOptions &opt) : db_(db), opt_(opt), home_(opt.homeDir) {}

  std::variant<SweepReport, std::string> run(const std::vector<SweepGroup> &groups) {
    start_ = Clock::now();
    for (const fs::path &d : {fs::path(opt_.workDir) / "src", fs::path(opt_.workDir) / "obj",
                              fs::path(opt_.workDir) / "lib"}) {
      std::error_code ec;
      fs::create_directories(d, ec);
      if (ec) return "cannot create '" + d.string() + "': " + ec.message();
    }
    const bool agentSweep = opt_.agent != "rule";
    if (agentSweep || opt_.modelOnly) { // the spaces: what the agent searches, what the cost model times
      auto loaded = agent::loadKnowledgeBase((home_ / "templates" / "knowledge").string(), home_.string());
      if (auto *error = std::get_if<std::string>(&loaded)) return "the knowledge base: " + *error;
      knowledge_ = std::move(std::get<agent::KnowledgeBase>(loaded));
    }
    const agent::KnowledgeBase &knowledge = knowledge_;
    auto searched = [&](const SweepGroup &g) { return agentSweep && !g.space.empty(); };
    std::set<std::string> unsearched;
    for (const SweepGroup &g : groups)
      for (const SweepConfig &c : g.configs) {
        if (searched(g)) unsearched.insert(c.op + "\n" + c.key);
        ++report_.configs;
        pending_ += searched(g) || !complete(g, c); // a search resumes by replaying its proposals
      }
    for (const SweepGroup &g : groups) {
      std::string e =
          searched(g)
              ? searchGroup(
                    g, db_, opt_, knowledge, unsearched, [this](const SweepGroup &sub) { return sweepGroup(sub); },
                    [this](const SweepConfig &c, const std::string &what) { progress(c.label + ": " + what); },
                    [this](const SweepConfig &c, int results) {
                      report_.candidates += results;
                      finish(c);
                    },
                    report_)
              : sweepGroup(g);
      if (!e.empty()) return e;
    }
    for (const SweepGroup &g : groups)
      if (!searched(g))
        for (const SweepConfig &c : g.configs)
          for (size_t i : c.candidates) report_.candidates += db_.contains(keyOf(g, c, i));
    report_.seconds = seconds(start_);
    return report_;
  }

private:
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  }

  static CandidateKey keyOf(const SweepGroup &g, const SweepConfig &c, size_t i) {
    return {c.op, c.key, g.candidates[i].templatePath, g.candidates[i].parameters, g.candidates[i].techniques};
  }

  bool complete(const SweepGroup &g, const SweepConfig &c) const {
    return std::all_of(c.candidates.begin(), c.candidates.end(), [&](size_t i) { return db_.contains(keyOf(g, c, i)); });
  }

  void progress(const std::string &current, const std::string &best = "", bool finished = false) {
    if (!opt_.progress) return;
    SweepProgress p;
    p.done = report_.configs - pending_;
    p.total = report_.configs;
    p.current = current;
    p.best = best;
    p.finished = finished;
    if (doneNow_ > 0) p.etaSeconds = seconds(start_) / doneNow_ * pending_;
    opt_.progress(p);
  }

  void record(const SweepGroup &g, const SweepConfig &c, size_t i, const Built &built, bool correct, double maxError,
              double secs, const std::string &detail, bool modelled = false) {
    CandidateResult r;
    r.key = keyOf(g, c, i);
    r.verification = built.verification;
    r.detail = detail;
    r.correct = correct;
    r.maxError = maxError;
    r.seconds = secs;
    r.measured = secs > 0 && !modelled;
    if (std::string e = db_.record(r); !e.empty()) dbError_ = e;
    ++report_.measuredNow;
    if (built.verification == Verification::Refuted) ++report_.refuted;
    else if (built.verification == Verification::Failed) ++report_.failed;
    else if (modelled) ++report_.modelled;
    else if (!correct) ++report_.incorrect;
  }

  /// The cost model's time of a built candidate at a configuration; 0 when
  /// the group has no space or the candidate no point in it.
  double modelledSeconds(const SweepGroup &g, const SweepConfig &c, const CandidateSource &src) const {
    const agent::Space *space = knowledge_.space(g.space);
    std::optional<agent::Point> point = parametersPoint(src.parameters);
    if (!space || !point) return 0;
    const int threads = c.features.count("THREADS") ? int(c.features.at("THREADS")) : std::max(opt_.threads, 1);
    const agent::CostModel model(
        agentRoofs(opt_.peaks, c.features.count("ELEM") ? c.features.at("ELEM") : 2, threads));
    return model.seconds(*space, c.features, *point);
  }

  const std::string *templateText(const CandidateSource &src, std::string &error) {
    auto it = templates_.find(src.templatePath);
    if (it != templates_.end()) return &it->second;
    std::string text;
    if (!candidateText(home_.string(), src, text, error)) return nullptr;
    return &templates_.emplace(src.templatePath, std::move(text)).first->second;
  }

  /// Instantiates, proves, compiles and links the candidates `needed`.
  void build(const SweepGroup &g, const std::vector<size_t> &needed, std::map<size_t, Built> &built,
             const std::string &label) {
    mlir::DialectRegistry registry;
    registerArgusDialects(registry);
    mlir::MLIRContext context(registry);
    context.disableMultithreading();
    std::vector<emit::CompileJob> jobs;
    std::vector<size_t> jobCandidate;
    std::vector<std::string> flags = emit::kernelCompileFlags(home_.string(), opt_.target);
    fs::path work(opt_.workDir);
    for (size_t n = 0; n < needed.size(); ++n) {
      const CandidateSource &src = g.candidates[needed[n]];
      Built &b = built[needed[n]];
      progress(label + ": verifying " + std::to_string(n + 1) + "/" + std::to_string(needed.size()));
      std::string error;
      const std::string *text = templateText(src, error);
      if (!text) {
        b.failure = error;
        continue;
      }
      // A kernel of the database (the LLM's) is written out under the work
      // directory, so diagnostics name a file one can open.
      fs::path textPath = src.templateText.empty() ? home_ / src.templatePath : work / src.templatePath;
      if (!src.templateText.empty()) {
        std::error_code ec;
        fs::create_directories(textPath.parent_path(), ec);
        if (!emit::writeIfChanged(textPath, *text, error)) {
          b.failure = error;
          continue;
        }
      }
      emit::VerifiedInstance inst =
          emit::instantiateVerified(context, textPath.string(), *text, src.spec, src.symbol, opt_.target);
      b.verification = inst.outcome == emit::VerifiedInstance::Outcome::Proved    ? Verification::Proved
                       : inst.outcome == emit::VerifiedInstance::Outcome::Refuted ? Verification::Refuted
                                                                                  : Verification::Failed;
      if (b.verification != Verification::Proved) {
        b.failure = clip(inst.detail);
        continue;
      }
      fs::path file = work / "src" / (src.symbol + ".cpp");
      if (!emit::writeIfChanged(file, inst.code, error)) {
        b.verification = Verification::Failed;
        b.failure = error;
        continue;
      }
      jobs.push_back({file.string(), (work / "obj" / (src.symbol + ".o")).string(), flags});
      jobCandidate.push_back(needed[n]);
    }
    progress(label + ": compiling " + std::to_string(jobs.size()) + " candidates");
    emit::CompileStats stats;
    std::vector<std::string> errors = emit::compileEach(jobs, opt_.jobs, opt_.cacheDir, stats);
    for (size_t j = 0; j < jobs.size(); ++j) {
      Built &b = built[jobCandidate[j]];
      if (!errors[j].empty()) {
        b.verification = Verification::Failed;
        b.failure = clip(errors[j]);
        continue;
      }
      // Linked under a temporary name: a sweep killed mid-link leaves no
      // half-written library under the final one.
      fs::path so = work / "lib" / (g.candidates[jobCandidate[j]].symbol + ".so"), tmp = so;
      tmp += ".tmp";
      std::string output;
      if (emit::runCommand({emit::cxxCompiler(), "-shared", "-fopenmp", "-o", tmp.string(), jobs[j].objectPath},
                           output) != 0) {
        b.verification = Verification::Failed;
        b.failure = "linking the candidate failed:\n" + clip(output);
        continue;
      }
      std::error_code ec;
      fs::rename(tmp, so, ec);
      if (ec) {
        b.verification = Verification::Failed;
        b.failure = "cannot move " + tmp.string() + ": " + ec.message();
        continue;
      }
      b.library = so.string();
    }
  }

  std::string sweepGroup(const SweepGroup &g) {
    // Candidates of the unfinished configurations, each built once.
    std::vector<size_t> needed;
    for (const SweepConfig &c : g.configs)
      for (size_t i : c.candidates)
        if (!db_.contains(keyOf(g, c, i)) && std::find(needed.begin(), needed.end(), i) == needed.end())
          needed.push_back(i);
    if (needed.empty()) return "";
    std::map<size_t, Built> built;
    build(g, needed, built, g.configs.front().label);

    // Candidates that cannot run are recorded now; the others are measured.
    std::vector<ProbeRef> probes;
    for (size_t ci = 0; ci < g.configs.size(); ++ci) {
      const SweepConfig &c = g.configs[ci];
      for (size_t i : c.candidates) {
        if (db_.contains(keyOf(g, c, i))) continue;
        const Built &b = built[i];
        if (b.library.empty()) record(g, c, i, b, false, 0, 0, b.failure);
        else if (opt_.modelOnly) {
          const double secs = modelledSeconds(g, c, g.candidates[i]);
          record(g, c, i, b, false, 0, secs,
                 secs > 0 ? "not run (this host cannot run " + opt_.target + "): proved and compiled, time modelled"
                          : "not run (this host cannot run " + opt_.target + ") and no model of its time",
                 /*modelled=*/true);
        } else
          probes.push_back({ci, i, b.library, g.candidates[i].symbol});
      }
    }
    for (const SweepConfig &c : g.configs) finishIfComplete(g, c);
    if (!dbError_.empty()) return "recording a result: " + dbError_;
    if (probes.empty()) return "";
    progress(g.configs[probes.front().config].label + ": measuring");
    std::string error = g.measure(probes, [&](size_t p, const Measurement &m) {
      const SweepConfig &c = g.configs[probes[p].config];
      record(g, c, probes[p].candidate, built[probes[p].candidate], m.correct, m.maxError, m.correct ? m.seconds : 0,
             m.detail);
      finishIfComplete(g, c);
      if (p + 1 < probes.size() && probes[p + 1].config != probes[p].config)
        progress(g.configs[probes[p + 1].config].label + ": measuring");
    });
    if (!dbError_.empty()) return "recording a result: " + dbError_;
    return error;
  }

  /// Counts a configuration done the first time all its results are in.
  void finishIfComplete(const SweepGroup &g, const SweepConfig &c) {
    if (g.space.empty() || opt_.agent == "rule") // a search finishes its configurations itself
      if (complete(g, c)) finish(c);
  }

  /// Counts a configuration done, once.
  void finish(const SweepConfig &c) {
    if (finished_.count(c.op + "\n" + c.key)) return;
    finished_.insert(c.op + "\n" + c.key);
    --pending_;
    ++doneNow_;
    std::optional<CandidateResult> best = db_.best(c.op, c.key);
    progress(c.label,
             best            ? best->key.parameters + " " + formatSeconds(best->seconds)
             : opt_.modelOnly ? "none measured (not run here; times modelled), the rule's tiles"
                              : "no usable candidate",
             true);
  }

  TuningDb &db_;
  const SweepOptions &opt_;
  fs::path home_;
  agent::KnowledgeBase knowledge_;
  std::map<std::string, std::string> templates_;
  std::string dbError_;
  SweepReport report_;
  Clock::time_point start_;
  int pending_ = 0, doneNow_ = 0;
  std::set<std::string> finished_;
};

} // namespace

std::variant<SweepReport, std::string> runSweep(const std::vector<SweepGroup> &groups, TuningDb &db,
                                                const SweepOptions &options) {
  return Engine(db, options).run(groups);
}

bool candidateText(const std::string &homeDir, const CandidateSource &source, std::string &text, std::string &error) {
  if (!source.templateText.empty()) {
    text = source.templateText;
    return true;
  }
  return emit::readTextFile((fs::path(homeDir) / source.templatePath).string(), text, error);
}

std::variant<DescribedKernel, std::string> describeKernel(const std::string &homeDir, const CandidateSource &source,
                                                          const std::map<std::string, int64_t> &sizes,
                                                          const std::map<std::string, double> &scalars) {
  std::string path = (fs::path(homeDir) / source.templatePath).string(), text, error;
  if (!candidateText(homeDir, source, text, error)) return error;
  mlir::DialectRegistry registry;
  registerArgusDialects(registry);
  mlir::MLIRContext context(registry);
  auto lowered = lowering::compileKernelSource(text, path, context, source.spec);
  if (auto *f = std::get_if<lowering::LoweringFailure>(&lowered)) return f->message;
  mlir::func::FuncOp kernel = emit::findKernel(*std::get<mlir::OwningOpRef<mlir::ModuleOp>>(lowered));
  auto reference = check::kernelReference(kernel);
  if (auto *why = std::get_if<std::string>(&reference)) return *why;
  auto args = check::describeArguments(kernel, sizes, scalars);
  if (auto *why = std::get_if<std::string>(&args)) return *why;
  return DescribedKernel{std::get<const ref::Reference *>(reference),
                         std::move(std::get<std::vector<ref::HarnessArg>>(args))};
}

} // namespace argus::tuning::detail
