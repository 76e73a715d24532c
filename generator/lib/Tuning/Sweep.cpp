//===- Sweep.cpp - tune a catalog's kernels into the tuning database ------===//
#include "argus/Tuning/Sweep.h"

#include "argus/Dialect/Argus.h"
#include "argus/Emit/Compiler.h"
#include "argus/Emit/KernelInstance.h"
#include "argus/Emit/LibraryBuilder.h"
#include "argus/Tuning/GemmMeasure.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace argus::tuning {

using emit::GemmGroup;
using emit::GemmTiles;
using emit::GemmTypes;

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

bool parseGemmParameters(const std::string &text, GemmTiles &tiles) {
  GemmTiles t;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    size_t eq = item.find('=');
    if (eq == std::string::npos) return false;
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    char *end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end || v <= 0) return false;
    if (name == "BM") t.bm = v;
    else if (name == "BN") t.bn = v;
    else if (name == "BK") t.bk = v;
    else return false;
  }
  if (!t.bm || !t.bn || !t.bk) return false;
  tiles = t;
  return true;
}

namespace {

/// One op configuration of a sweep: a GEMM shape at one probe row count,
/// with the candidates of every bucket measured there.
struct Config {
  std::string ops, key, label; // ops: the catalog ops of the shape, e.g. "o,down"
  int64_t probeM = 0;
  std::vector<GemmTiles> candidates;
};

/// One candidate kernel of a group (shared by the configurations listing it).
struct Candidate {
  GemmTiles tiles;
  std::string symbol, library; // library: the linked shared object, "" until built
  std::string failure;         // why it cannot be measured
  Verification verification = Verification::Failed;
};

bool sameTiles(const GemmTiles &a, const GemmTiles &b) { return a.bm == b.bm && a.bn == b.bn && a.bk == b.bk; }

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

class GemmSweep {
public:
  GemmSweep(TuningDb &db, const SweepOptions &opt) : db_(db), opt_(opt), home_(opt.homeDir) {}

  std::variant<SweepReport, std::string> run(const emit::GemmPlan &plan) {
    start_ = Clock::now();
    std::string templateText, error;
    if (!emit::readTextFile((home_ / kGemmTemplate).string(), templateText, error)) return error;
    template_ = templateText;
    for (const fs::path &d : {fs::path(opt_.workDir) / "src", fs::path(opt_.workDir) / "obj",
                              fs::path(opt_.workDir) / "lib"}) {
      std::error_code ec;
      fs::create_directories(d, ec);
      if (ec) return "cannot create '" + d.string() + "': " + ec.message();
    }
    std::vector<std::vector<Config>> perGroup;
    for (const GemmGroup &g : plan.groups) {
      perGroup.push_back(configsOf(g));
      report_.configs += int(perGroup.back().size());
    }
    for (size_t gi = 0; gi < plan.groups.size(); ++gi)
      for (const Config &c : perGroup[gi])
        pending_ += !complete(c);
    for (size_t gi = 0; gi < plan.groups.size(); ++gi)
      if (std::string e = sweepGroup(plan.groups[gi], perGroup[gi]); !e.empty()) return e;
    for (const auto &group : perGroup)
      for (const Config &c : group)
        for (const GemmTiles &t : c.candidates)
          report_.candidates += db_.contains(keyOf(c, t));
    report_.seconds = seconds(start_);
    return report_;
  }

private:
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  }

  /// The configurations of a group: its buckets by probe rows, each with the
  /// union of its buckets' candidates (in order, without repeats).
  std::vector<Config> configsOf(const GemmGroup &g) const {
    std::map<int64_t, Config> byProbe;
    std::string ops;
    for (const std::string &op : g.ops) ops += (ops.empty() ? "" : ",") + op;
    for (int64_t bound : g.bucketBounds) {
      int64_t probe = gemmProbeRows(bound, g.n, g.k, opt_.maxProbeFlops);
      Config &c = byProbe[probe];
      c.probeM = probe;
      c.ops = ops;
      c.key = gemmShapeKey(g.types, g.n, g.k, probe);
      c.label = ops + " M=" + std::to_string(probe);
      for (const GemmTiles &t : emit::cpuGemmCandidates(bound, g.n, g.k, g.types, opt_.budget))
        if (std::none_of(c.candidates.begin(), c.candidates.end(), [&](const GemmTiles &o) { return sameTiles(o, t); }))
          c.candidates.push_back(t);
    }
    std::vector<Config> out;
    for (auto &[probe, c] : byProbe) out.push_back(std::move(c));
    return out;
  }

  CandidateKey keyOf(const Config &c, const GemmTiles &t) const {
    return {"gemm", c.key, kGemmTemplate, gemmParameters(t), ""};
  }

  bool complete(const Config &c) const {
    return std::all_of(c.candidates.begin(), c.candidates.end(), [&](const GemmTiles &t) { return db_.contains(keyOf(c, t)); });
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

  void record(const Config &c, const Candidate &cand, bool correct, double maxError, double secs,
              const std::string &detail) {
    CandidateResult r;
    r.key = keyOf(c, cand.tiles);
    r.verification = cand.verification;
    r.detail = detail;
    r.correct = correct;
    r.maxError = maxError;
    r.seconds = secs;
    r.measured = secs > 0;
    if (std::string e = db_.record(r); !e.empty()) dbError_ = e;
    ++report_.measuredNow;
    if (cand.verification == Verification::Refuted) ++report_.refuted;
    else if (cand.verification == Verification::Failed) ++report_.failed;
    else if (!correct) ++report_.incorrect;
  }

  /// Instantiates, proves and compiles the candidates `needed` of a group.
  void build(const GemmGroup &g, std::vector<Candidate> &candidates, const std::string &label) {
    mlir::DialectRegistry registry;
    registerArgusDialects(registry);
    mlir::MLIRContext context(registry);
    context.disableMultithreading();
    std::vector<emit::CompileJob> jobs;
    std::vector<size_t> jobCandidate;
    std::vector<std::string> flags = emit::kernelCompileFlags(home_.string(), opt_.target);
    fs::path work(opt_.workDir);
    for (size_t i = 0; i < candidates.size(); ++i) {
      Candidate &cand = candidates[i];
      progress(label + ": verifying " + std::to_string(i + 1) + "/" + std::to_string(candidates.size()));
      emit::GemmKernel kernel;
      kernel.n = g.n;
      kernel.k = g.k;
      kernel.types = g.types;
      kernel.tiles = cand.tiles;
      cand.symbol = emit::gemmKernelSymbol(kernel);
      emit::VerifiedInstance inst = emit::instantiateVerified(context, (home_ / kGemmTemplate).string(), template_,
                                                              kernel.specialization(), cand.symbol, opt_.target);
      cand.verification = inst.outcome == emit::VerifiedInstance::Outcome::Proved    ? Verification::Proved
                          : inst.outcome == emit::VerifiedInstance::Outcome::Refuted ? Verification::Refuted
                                                                                     : Verification::Failed;
      if (cand.verification != Verification::Proved) {
        cand.failure = clip(inst.detail);
        continue;
      }
      fs::path src = work / "src" / (cand.symbol + ".cpp");
      std::string error;
      if (!emit::writeIfChanged(src, inst.code, error)) {
        cand.verification = Verification::Failed;
        cand.failure = error;
        continue;
      }
      jobs.push_back({src.string(), (work / "obj" / (cand.symbol + ".o")).string(), flags});
      jobCandidate.push_back(i);
    }
    progress(label + ": compiling " + std::to_string(jobs.size()) + " candidates");
    emit::CompileStats stats;
    std::vector<std::string> errors = emit::compileEach(jobs, opt_.jobs, opt_.cacheDir, stats);
    for (size_t j = 0; j < jobs.size(); ++j) {
      Candidate &cand = candidates[jobCandidate[j]];
      if (!errors[j].empty()) {
        cand.verification = Verification::Failed;
        cand.failure = clip(errors[j]);
        continue;
      }
      // Linked under a temporary name: a sweep killed mid-link leaves no
      // half-written library under the final one.
      fs::path so = work / "lib" / (cand.symbol + ".so"), tmp = so;
      tmp += ".tmp";
      std::string output;
      if (emit::runCommand({emit::cxxCompiler(), "-shared", "-fopenmp", "-o", tmp.string(), jobs[j].objectPath},
                           output) != 0) {
        cand.verification = Verification::Failed;
        cand.failure = "linking the candidate failed:\n" + clip(output);
        continue;
      }
      std::error_code ec;
      fs::rename(tmp, so, ec);
      if (ec) {
        cand.verification = Verification::Failed;
        cand.failure = "cannot move " + tmp.string() + ": " + ec.message();
        continue;
      }
      cand.library = so.string();
    }
  }

  std::string sweepGroup(const GemmGroup &g, const std::vector<Config> &configs) {
    // Candidates of the unfinished configurations, each built once.
    std::vector<Candidate> candidates;
    auto indexOf = [&](const GemmTiles &t) -> size_t {
      for (size_t i = 0; i < candidates.size(); ++i)
        if (sameTiles(candidates[i].tiles, t)) return i;
      return candidates.size();
    };
    for (const Config &c : configs)
      for (const GemmTiles &t : c.candidates)
        if (!db_.contains(keyOf(c, t)) && indexOf(t) == candidates.size()) candidates.push_back({t});
    if (candidates.empty()) return "";
    build(g, candidates, configs.front().ops);

    // Candidates that cannot run are recorded now; the others are measured
    // configuration by configuration.
    std::vector<GemmProbe> probes;
    std::vector<std::pair<const Config *, size_t>> probeOf; // (configuration, candidate)
    for (const Config &c : configs)
      for (const GemmTiles &t : c.candidates) {
        if (db_.contains(keyOf(c, t))) continue;
        const Candidate &cand = candidates[indexOf(t)];
        if (cand.library.empty()) {
          record(c, cand, false, 0, 0, cand.failure);
        } else {
          probes.push_back({cand.library, cand.symbol, c.probeM});
          probeOf.push_back({&c, indexOf(t)});
        }
      }
    for (const Config &c : configs)
      finishIfComplete(c);
    if (!dbError_.empty()) return "recording a result: " + dbError_;
    if (probes.empty()) return "";
    progress(probeOf.front().first->label + ": measuring");
    MeasureOptions mo;
    mo.threads = opt_.threads;
    std::string error = measureGemms(g.n, g.k, g.types, probes, mo, [&](size_t i, const Measurement &m) {
      const Config &c = *probeOf[i].first;
      const Candidate &cand = candidates[probeOf[i].second];
      record(c, cand, m.correct, m.maxError, m.correct ? m.seconds : 0, m.detail);
      finishIfComplete(c);
      if (i + 1 < probes.size() && probeOf[i + 1].first != &c) progress(probeOf[i + 1].first->label + ": measuring");
    });
    if (!dbError_.empty()) return "recording a result: " + dbError_;
    return error;
  }

  /// Counts a configuration done the first time all its results are in.
  void finishIfComplete(const Config &c) {
    if (finished_.count(c.key) || !complete(c)) return;
    finished_.insert(c.key);
    --pending_;
    ++doneNow_;
    std::optional<CandidateResult> best = db_.best("gemm", c.key);
    progress(c.label, best ? best->key.parameters + " " + formatSeconds(best->seconds) : "no usable candidate", true);
  }

  TuningDb &db_;
  const SweepOptions &opt_;
  fs::path home_;
  std::string template_, dbError_;
  SweepReport report_;
  Clock::time_point start_;
  int pending_ = 0, doneNow_ = 0;
  std::set<std::string> finished_;
};

} // namespace

std::variant<SweepReport, std::string> sweepGemms(const emit::GemmPlan &plan, TuningDb &db, const SweepOptions &opt) {
  return GemmSweep(db, opt).run(plan);
}

emit::GemmTileChooser tunedGemmChooser(const TuningDb &db, double maxProbeFlops) {
  return [&db, maxProbeFlops](int64_t m, int64_t n, int64_t k, const GemmTypes &types) {
    std::optional<CandidateResult> best =
        db.best("gemm", gemmShapeKey(types, n, k, gemmProbeRows(m, n, k, maxProbeFlops)));
    GemmTiles tiles;
    if (best && best->key.templatePath == kGemmTemplate && parseGemmParameters(best->key.parameters, tiles))
      return tiles;
    return emit::chooseCpuGemmTiles(m, n, k, types);
  };
}

} // namespace argus::tuning
