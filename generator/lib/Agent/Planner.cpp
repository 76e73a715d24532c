//===- Planner.cpp - in-context RL over the knowledge base's moves --------===//
//
// The reward model predicts y = log(time / floor) from features of the
// configuration and the candidate: the cost model's own prediction of y
// (prior weight 1, so an empty history follows the cost model), and for each
// tuned parameter its log2, its square, its products with the other
// parameters and with the log2 of each size feature. Rows come from the
// context (earlier configurations) and from every reward of this search.
//
//===----------------------------------------------------------------------===//
#include "argus/Agent/Search.h"

#include "BayesianLinear.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace argus::agent {

namespace {

using detail::BayesianLinear;

/// Failure classes whose cause grows with every tile parameter: a point at
/// least as large everywhere fails the same way.
bool monotoneFailure(const std::string &failureClass) {
  return failureClass == "stack-budget" || failureClass == "lds-budget";
}

bool dominates(const Point &a, const Point &b) {
  for (const auto &[name, value] : b)
    if (auto it = a.find(name); it == a.end() || it->second < value) return false;
  return true;
}

class Planner final : public Strategy {
public:
  Planner(const SearchProblem &problem, const CostModel &model, const std::vector<Experience> &context,
          const PlannerOptions &options)
      : p_(problem), model_(model), options_(options), rng_(options.seed),
        reward_(priorWeights(), options.priorPrecision) {
    // Context: every timed candidate teaches the model; the best point of
    // each earlier configuration is a seed worth trying here.
    std::map<Features, std::pair<double, Point>> winners;
    for (const Experience &e : context) {
      if (e.outcome.status != Outcome::Status::Ok || e.outcome.seconds <= 0) continue;
      if (!p_.space->admits(e.features, e.point)) continue;
      reward_.add(featuresOf(e.features, e.point), target(e.features, e.outcome.seconds));
      auto [it, fresh] = winners.try_emplace(e.features, e.outcome.seconds, e.point);
      if (!fresh && e.outcome.seconds < it->second.first) it->second = {e.outcome.seconds, e.point};
    }
    for (const auto &[features, winner] : winners)
      if (p_.space->admits(p_.features, winner.second)) seeds_.push_back(winner.second);
    if (reward_.rows()) reward_.fit();
  }

  std::string name() const override { return "planner"; }

  std::optional<Proposal> next() override {
    if (!triedRule_) { // the rule's point is the baseline, inside the space or not
      triedRule_ = true;
      if (!p_.rule.empty()) return take({p_.rule, {}, false});
    }
    while (!repairs_.empty()) {
      Proposal r = repairs_.front();
      repairs_.erase(repairs_.begin());
      if (fresh(r.point)) return take(r);
    }
    std::vector<Proposal> pool = candidates();
    if (pool.empty()) return explore();
    const std::vector<double> w = reward_.sample(rng_);
    size_t best = 0;
    double bestScore = INFINITY;
    for (size_t i = 0; i < pool.size(); ++i) {
      std::vector<double> x = featuresOf(p_.features, pool[i].point);
      double score = 0;
      for (size_t j = 0; j < x.size(); ++j) score += w[j] * x[j];
      if (score < bestScore) {
        bestScore = score;
        best = i;
      }
    }
    return take(pool[best]);
  }

  void observe(const Proposal &proposal, const Outcome &outcome) override {
    if (outcome.status == Outcome::Status::Ok && outcome.seconds > 0) {
      reward_.add(featuresOf(p_.features, proposal.point), target(p_.features, outcome.seconds));
      reward_.fit();
      ranked_.emplace_back(outcome.seconds, proposal.point);
      std::stable_sort(ranked_.begin(), ranked_.end(),
                       [](const auto &a, const auto &b) { return a.first < b.first; });
      return;
    }
    if (outcome.status == Outcome::Status::Incorrect) return; // a wrong kernel is a bug, not a search step
    const std::string failure = classifyFailure(outcome.detail);
    if (monotoneFailure(failure)) pruned_.push_back(proposal.point);
    // Verifier-guided repair: the techniques that name this failure class,
    // applied to the failed point.
    for (const Technique *t : p_.techniques) {
      if (std::find(t->repairs.begin(), t->repairs.end(), failure) == t->repairs.end()) continue;
      if (!t->appliesTo(*p_.space, p_.features, proposal.point)) continue;
      std::optional<Point> repaired = t->apply(*p_.space, proposal.point);
      if (!repaired || !p_.space->admits(p_.features, *repaired)) continue;
      Proposal r{*repaired, proposal.techniques, true};
      r.techniques.push_back(t->name);
      repairs_.push_back(std::move(r));
    }
  }

private:
  Proposal take(Proposal p) {
    visited_.insert(p.point);
    return p;
  }

  bool fresh(const Point &point) const {
    if (visited_.count(point)) return false;
    return std::none_of(pruned_.begin(), pruned_.end(), [&](const Point &f) { return dominates(point, f); });
  }

  /// Moves from the best points so far, and the earlier configurations' winners.
  std::vector<Proposal> candidates() const {
    std::vector<Proposal> pool;
    std::set<Point> seen;
    auto consider = [&](Proposal p) {
      if (fresh(p.point) && p_.space->admits(p_.features, p.point) && seen.insert(p.point).second)
        pool.push_back(std::move(p));
    };
    // One move from each of the best points; two from the best one, so a
    // pair of changes that only pays together (taller and shallower tiles,
    // say) is reachable.
    auto movesFrom = [&](const Proposal &from, int depth, auto &self) -> void {
      for (const Technique *t : p_.techniques) {
        if (!t->appliesTo(*p_.space, p_.features, from.point)) continue;
        std::optional<Point> moved = t->apply(*p_.space, from.point);
        if (!moved || !p_.space->admits(p_.features, *moved)) continue;
        Proposal next{*moved, from.techniques, false};
        next.techniques.push_back(t->name);
        if (depth > 1) self(next, depth - 1, self);
        consider(std::move(next));
      }
    };
    for (size_t i = 0; i < ranked_.size() && int(i) < options_.poolFrom; ++i)
      movesFrom({ranked_[i].second, {}, false}, i == 0 ? 2 : 1, movesFrom);
    for (const Point &s : seeds_) consider({s, {}, false});
    return pool;
  }

  /// Nothing reachable by a move: a random admitted point not tried yet.
  std::optional<Proposal> explore() {
    std::vector<Point> open;
    for (const Point &point : p_.space->enumerate(p_.features))
      if (fresh(point)) open.push_back(point);
    if (open.empty()) return std::nullopt;
    return take({open[std::uniform_int_distribution<size_t>(0, open.size() - 1)(rng_)], {}, false});
  }

  double target(const Features &features, double seconds) const {
    return std::log(seconds / model_.floorSeconds(*p_.space, features));
  }

  std::vector<double> priorWeights() const {
    std::vector<double> w(featuresOf(p_.features, p_.rule).size(), 0.0);
    w[1] = 1; // the cost model's prediction
    return w;
  }

  /// Features of a candidate at a configuration, each of order one: the
  /// cost model's y, then per parameter its centred log2 (c), c², the
  /// products with the other parameters' and with the size features' centred
  /// log2.
  std::vector<double> featuresOf(const Features &features, const Point &point) const {
    std::vector<double> x = {1.0, target(features, model_.seconds(*p_.space, features, point))};
    std::vector<double> c;
    for (const auto &[name, ladder] : p_.space->parameters) {
      auto it = point.find(name);
      double mid = 0.5 * (std::log2(double(ladder.front())) + std::log2(double(ladder.back())));
      c.push_back((std::log2(double(it == point.end() ? ladder.front() : it->second)) - mid) / 2);
    }
    for (size_t i = 0; i < c.size(); ++i) {
      x.push_back(c[i]);
      x.push_back(c[i] * c[i]);
      for (size_t j = i + 1; j < c.size(); ++j) x.push_back(c[i] * c[j]);
      for (const std::string &f : familyFeatures(p_.space->family)) {
        auto it = features.find(f);
        x.push_back(c[i] * (std::log2(std::max(it == features.end() ? 1.0 : it->second, 1.0)) - 6) / 4);
      }
    }
    return x;
  }

  const SearchProblem p_;
  const CostModel model_;
  const PlannerOptions options_;
  std::mt19937_64 rng_;
  BayesianLinear reward_;
  std::vector<Point> seeds_, pruned_;
  std::vector<std::pair<double, Point>> ranked_;
  std::vector<Proposal> repairs_;
  std::set<Point> visited_;
  bool triedRule_ = false;
};

} // namespace

std::unique_ptr<Strategy> makePlanner(const SearchProblem &problem, const CostModel &model,
                                      const std::vector<Experience> &context, const PlannerOptions &options) {
  return std::make_unique<Planner>(problem, model, context, options);
}

} // namespace argus::agent
