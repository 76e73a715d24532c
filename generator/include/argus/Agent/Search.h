//===- Search.h - strategies that choose the next candidate -----*- C++ -*-===//
//
// A search runs one op configuration: a strategy proposes candidates (points
// of a knowledge-base space), an evaluator builds, proves, checks and times
// each (or models its time), and the strategy sees every outcome before its
// next proposal. It stops at the budget: a number of candidates, seconds, or
// when the strategy has nothing left to propose.
//
// Strategies:
//  - Planner: in-context reinforcement learning. Its context is the history
//    of (configuration features, point, outcome) from earlier configurations
//    and sweeps; a Bayesian linear model of log(time / floor), whose prior is
//    the cost model, is refitted after every reward, and Thompson sampling
//    picks among the knowledge base's moves from the best points so far and
//    the winners of earlier configurations. A failed candidate's failure
//    class (from the verifier's counterexample or the backend's refusal)
//    chooses a repair technique, and points that dominate a resource failure
//    are pruned.
//  - RandomSearch: uniform over the space's admitted points.
//  - GridSearch: an evenly spaced grid over each parameter's ladder, as
//    large as the budget allows.
//  - LlmProposer (LlmProposer.h): asks a language model for whole kernels,
//    falling back on another strategy when it has nothing usable.
// All try the rule's point first (even where the space's ladders or
// constraints would not reach it: it is the baseline); the first three are deterministic
// under a seed.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_AGENT_SEARCH_H
#define ARGUS_AGENT_SEARCH_H

#include "argus/Agent/CostModel.h"

#include <functional>
#include <memory>
#include <random>

namespace argus::agent {

/// What became of one candidate.
struct Outcome {
  enum class Status { Ok, Refuted, Failed, Incorrect } status = Status::Failed;
  double seconds = 0;   // Ok: time of one call
  bool measured = true; // false: the cost model's time
  std::string detail;   // Refuted/Failed: the verifier's report or the error
};

struct Proposal {
  Point point;
  std::vector<std::string> techniques; // how it was reached; empty for a seed
  bool repair = false;                 // a repair of a failed candidate
  std::string kernel;                  // a whole kernel in place of the space's template (the LLM's); "" for the template
};

/// A candidate tried at some configuration (the planner's context).
struct Experience {
  Features features;
  Point point;
  Outcome outcome;
};

/// One configuration to search.
struct SearchProblem {
  const Space *space = nullptr;
  Features features;
  Point rule; // the rule's point, tried first; empty: none
  std::vector<const Technique *> techniques;
};

class Strategy {
public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  /// The next candidate, or nullopt when nothing is left to try.
  virtual std::optional<Proposal> next() = 0;
  virtual void observe(const Proposal &proposal, const Outcome &outcome) = 0;
};

struct PlannerOptions {
  uint64_t seed = 1;
  int poolFrom = 3;         // moves are tried from the best this many points
  double priorPrecision = 1; // of the model's weights around the cost model's prior
};

std::unique_ptr<Strategy> makePlanner(const SearchProblem &problem, const CostModel &model,
                                      const std::vector<Experience> &context, const PlannerOptions &options);
std::unique_ptr<Strategy> makeRandomSearch(const SearchProblem &problem, uint64_t seed);
std::unique_ptr<Strategy> makeGridSearch(const SearchProblem &problem, int budget);

struct Budget {
  int candidates = 16;
  double seconds = 0; // 0: no limit
  int batch = 1;      // proposals evaluated together (parallel compiles)
};

struct Trial {
  Proposal proposal;
  Outcome outcome;
};

struct SearchResult {
  std::vector<Trial> trials;
  std::optional<size_t> best; // index of the fastest Ok trial
  int repairsTried = 0, repairsSucceeded = 0;
};

using Evaluator = std::function<Outcome(const Proposal &)>;
/// Outcomes of a batch of proposals, in their order.
using BatchEvaluator = std::function<std::vector<Outcome>(const std::vector<Proposal> &)>;

SearchResult runSearch(Strategy &strategy, const Evaluator &evaluate, const Budget &budget);
SearchResult runBatchedSearch(Strategy &strategy, const BatchEvaluator &evaluate, const Budget &budget);

} // namespace argus::agent

#endif // ARGUS_AGENT_SEARCH_H
