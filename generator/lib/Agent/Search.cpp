//===- Search.cpp - one configuration's search, up to its budget ----------===//
#include "argus/Agent/Search.h"

#include <algorithm>
#include <chrono>

namespace argus::agent {

SearchResult runBatchedSearch(Strategy &strategy, const BatchEvaluator &evaluate, const Budget &budget) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  SearchResult result;
  for (bool more = true; more && int(result.trials.size()) < budget.candidates;) {
    if (budget.seconds > 0 && std::chrono::duration<double>(Clock::now() - start).count() >= budget.seconds) break;
    std::vector<Proposal> batch;
    const int room = std::min(std::max(budget.batch, 1), budget.candidates - int(result.trials.size()));
    while (int(batch.size()) < room) {
      std::optional<Proposal> p = strategy.next();
      if (!p) {
        more = false;
        break;
      }
      batch.push_back(std::move(*p));
    }
    if (batch.empty()) break;
    std::vector<Outcome> outcomes = evaluate(batch);
    outcomes.resize(batch.size(), Outcome{Outcome::Status::Failed, 0, true, "the evaluator gave no outcome"});
    for (size_t i = 0; i < batch.size(); ++i) {
      strategy.observe(batch[i], outcomes[i]);
      if (batch[i].repair) {
        ++result.repairsTried;
        result.repairsSucceeded += outcomes[i].status == Outcome::Status::Ok;
      }
      if (outcomes[i].status == Outcome::Status::Ok && outcomes[i].seconds > 0 &&
          (!result.best || outcomes[i].seconds < result.trials[*result.best].outcome.seconds))
        result.best = result.trials.size();
      result.trials.push_back({std::move(batch[i]), std::move(outcomes[i])});
    }
  }
  return result;
}

SearchResult runSearch(Strategy &strategy, const Evaluator &evaluate, const Budget &budget) {
  Budget one = budget;
  one.batch = 1;
  return runBatchedSearch(
      strategy, [&](const std::vector<Proposal> &batch) { return std::vector<Outcome>{evaluate(batch.front())}; },
      one);
}

} // namespace argus::agent
