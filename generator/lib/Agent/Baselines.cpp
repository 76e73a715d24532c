//===- Baselines.cpp - random and grid search, the planner's yardsticks ---===//
#include "argus/Agent/Search.h"

#include <algorithm>
#include <functional>
#include <set>

namespace argus::agent {

namespace {

/// Proposes a fixed list: the rule's point, then `order`.
class ListSearch : public Strategy {
public:
  ListSearch(std::string name, const SearchProblem &problem, std::vector<Point> order) : name_(std::move(name)) {
    if (!problem.rule.empty()) order.insert(order.begin(), problem.rule); // inside the space or not
    std::set<Point> seen;
    for (Point &p : order)
      if (seen.insert(p).second) order_.push_back(std::move(p));
  }
  std::string name() const override { return name_; }
  std::optional<Proposal> next() override {
    if (at_ == order_.size()) return std::nullopt;
    return Proposal{order_[at_++], {}, false};
  }
  void observe(const Proposal &, const Outcome &) override {}

private:
  std::string name_;
  std::vector<Point> order_;
  size_t at_ = 0;
};

} // namespace

std::unique_ptr<Strategy> makeRandomSearch(const SearchProblem &problem, uint64_t seed) {
  std::vector<Point> points = problem.space->enumerate(problem.features);
  std::mt19937_64 rng(seed);
  // Fisher-Yates with the generator alone (std::shuffle's use of it is the
  // library's choice).
  for (size_t i = points.size(); i > 1; --i) std::swap(points[i - 1], points[rng() % i]);
  return std::make_unique<ListSearch>("random", problem, std::move(points));
}

std::unique_ptr<Strategy> makeGridSearch(const SearchProblem &problem, int budget) {
  // Each parameter's values that some admitted point uses.
  const std::vector<Point> admitted = problem.space->enumerate(problem.features);
  std::vector<std::vector<int64_t>> values;
  for (const auto &[name, ladder] : problem.space->parameters) {
    std::set<int64_t> used;
    for (const Point &p : admitted) used.insert(p.at(name));
    values.emplace_back(used.begin(), used.end());
  }
  // Levels per parameter: add one to the parameter with the most values per
  // level while the grid (plus the rule) fits the budget.
  std::vector<size_t> levels(values.size(), 1);
  auto product = [&] {
    size_t n = 1;
    for (size_t l : levels) n *= l;
    return n;
  };
  for (;;) {
    size_t pick = values.size();
    double widest = 1;
    for (size_t i = 0; i < values.size(); ++i)
      if (levels[i] < values[i].size() && double(values[i].size()) / double(levels[i]) > widest) {
        widest = double(values[i].size()) / double(levels[i]);
        pick = i;
      }
    if (pick == values.size()) break;
    ++levels[pick];
    if (int(product()) > std::max(budget - 1, 1)) {
      --levels[pick];
      break;
    }
  }
  // Evenly spaced values: the middle of each of `levels` equal slices.
  std::vector<std::vector<int64_t>> grid(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    for (size_t l = 0; l < levels[i] && !values[i].empty(); ++l)
      grid[i].push_back(values[i][(2 * l + 1) * values[i].size() / (2 * levels[i])]);
  std::vector<Point> order;
  Point p;
  std::function<void(size_t)> walk = [&](size_t i) {
    if (i == grid.size()) {
      if (problem.space->admits(problem.features, p)) order.push_back(p);
      return;
    }
    for (int64_t v : grid[i]) {
      p[problem.space->parameters[i].first] = v;
      walk(i + 1);
    }
  };
  walk(0);
  return std::make_unique<ListSearch>("grid", problem, std::move(order));
}

} // namespace argus::agent
