//===- SweepEngine.h - the sweep's pipeline, whatever the kernel -*- C++ -*-===//
//
// What a sweep does with the candidates of any kernel family: each is
// instantiated from its template, proved by the verifier, compiled and
// linked into its own shared object once; the family then measures it at
// each configuration that lists it; every outcome is committed to the
// tuning database as it happens, and results already there are not redone.
// The families (Sweep.cpp) say which candidates, configurations and
// measurements there are.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TUNING_SWEEPENGINE_H
#define ARGUS_TUNING_SWEEPENGINE_H

#include "argus/Agent/Knowledge.h"
#include "argus/Lowering/LowerToArgus.h"
#include "argus/Reference/KernelHarness.h"
#include "argus/Tuning/ProbeProcess.h"
#include "argus/Tuning/Sweep.h"

#include <functional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace argus::tuning::detail {

/// One candidate kernel: a template instance.
struct CandidateSource {
  std::string templatePath;      // relative to the Argus tree; for templateText, its name in the database
  lowering::Specialization spec;
  std::string symbol;            // unique in the sweep: names its source, object and shared object
  std::string parameters;        // the database's text of its tunable parameters
  std::string techniques;        // how the agent reached it (comma list), "" for the rule's
  std::string templateText;      // a kernel that is no file of the tree (the LLM's); "" reads templatePath
};

/// The DSL text of a candidate: its own, or its template file's. False with
/// `error` when the file cannot be read.
bool candidateText(const std::string &homeDir, const CandidateSource &source, std::string &text, std::string &error);

/// One op configuration (a database shape key) and the candidates it tries.
struct SweepConfig {
  std::string op, key, label;
  std::vector<size_t> candidates; // indices into SweepGroup::candidates
  agent::Features features;       // for the agent: what describes the configuration
  agent::Point rule;              // for the agent: the rule's point, tried first
};

/// A built candidate to run at a configuration.
struct ProbeRef {
  size_t config = 0, candidate = 0;
  std::string library, symbol;
};

using ResultSink = std::function<void(size_t, const Measurement &)>;

/// Candidates built together and configurations measured together.
struct SweepGroup {
  std::vector<CandidateSource> candidates;
  std::vector<SweepConfig> configs;
  /// Measures the probes, reporting each (by index) as it finishes; "" or
  /// why nothing could be measured.
  std::function<std::string(const std::vector<ProbeRef> &, const ResultSink &)> measure;
  /// The knowledge-base space the agent searches and the candidate of each of
  /// its points; a group without a space sweeps its fixed candidates.
  std::string space;
  std::function<CandidateSource(const agent::Point &)> candidateAt;
};

/// Builds and measures a group's candidates that the database lacks.
using GroupRunner = std::function<std::string(const SweepGroup &)>;

/// What a search reports as it goes: the configuration, what runs now.
using SearchStatus = std::function<void(const SweepConfig &, const std::string &)>;

/// The agent's sweep of one group: for each configuration, the strategy of
/// `options.agent` proposes points of the group's space up to the budget;
/// each runs through `runGroup` (or is read back from the database) and its
/// outcome feeds the next proposal. The context is every database result of
/// the op and template except those of `unsearched` ("op\nkey" of this
/// sweep's configurations not searched yet), so a resumed sweep sees what the
/// first run saw and replays the same proposals; each configuration leaves
/// `unsearched` when done. `report` counts the LLM's questions and replies
/// used. "" or the error that stopped it.
std::string searchGroup(const SweepGroup &group, TuningDb &db, const SweepOptions &options,
                        const agent::KnowledgeBase &knowledge, std::set<std::string> &unsearched,
                        const GroupRunner &runGroup, const SearchStatus &status,
                        const std::function<void(const SweepConfig &, int)> &configDone, SweepReport &report);

/// "BK=512,BM=16,BN=64": a point as the database's parameter text.
std::string pointParameters(const agent::Point &point);

std::variant<SweepReport, std::string> runSweep(const std::vector<SweepGroup> &groups, TuningDb &db,
                                                const SweepOptions &options);

/// The parameters of a template instance for the harness, with these sizes
/// of its symbolic dims and scalar values; and the reference it names.
struct DescribedKernel {
  const ref::Reference *reference = nullptr;
  std::vector<ref::HarnessArg> args;
};
std::variant<DescribedKernel, std::string> describeKernel(const std::string &homeDir, const CandidateSource &source,
                                                          const std::map<std::string, int64_t> &sizes,
                                                          const std::map<std::string, double> &scalars);

} // namespace argus::tuning::detail

#endif // ARGUS_TUNING_SWEEPENGINE_H
