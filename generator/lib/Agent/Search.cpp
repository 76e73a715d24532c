//===- Search.cpp - one configuration's search, up to its budget ----------===//
#include "argus/Agent/Search.h"

#include <chrono>

namespace argus::agent {

SearchResult runSearch(Strategy &strategy, const Evaluator &evaluate, const Budget &budget) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  SearchResult result;
  while (int(result.trials.size()) < budget.candidates) {
    if (budget.seconds > 0 && std::chrono::duration<double>(Clock::now() - start).count() >= budget.seconds) break;
    std::optional<Proposal> proposal = strategy.next();
    if (!proposal) break;
    Outcome outcome = evaluate(*proposal);
    strategy.observe(*proposal, outcome);
    if (proposal->repair) {
      ++result.repairsTried;
      result.repairsSucceeded += outcome.status == Outcome::Status::Ok;
    }
    if (outcome.status == Outcome::Status::Ok && outcome.seconds > 0 &&
        (!result.best || outcome.seconds < result.trials[*result.best].outcome.seconds))
      result.best = result.trials.size();
    result.trials.push_back({std::move(*proposal), std::move(outcome)});
  }
  return result;
}

} // namespace argus::agent
