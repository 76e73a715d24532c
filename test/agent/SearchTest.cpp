//===- SearchTest.cpp - planner, random and grid search on known landscapes -===//
//
// The landscapes are synthetic, so the optimum is known: a bowl in log2 of
// each tile parameter whose centre moves with M, and a stack budget that
// fails candidates with too large a BM*BN*BK, reported with the CPU backend's
// own message.
//
//===----------------------------------------------------------------------===//
#include "argus/Agent/Search.h"

#include "ShippedKnowledge.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace argus::agent;

using argus::test::shippedBase;

namespace {

Features gemm(double m) { return {{"M", m}, {"N", 4096}, {"K", 4096}, {"ELEM", 2}, {"THREADS", 2}}; }

/// Time of a point at M rows: a bowl around BM = min(M, 32), BN = 64,
/// BK = 256 (in log2), with a floor that scales with M. Over the stack
/// budget: failed with the backend's message.
Outcome landscape(const Features &f, const Point &p) {
  if (p.at("BM") * p.at("BN") * p.at("BK") > (int64_t(1) << 20))
    return {Outcome::Status::Failed, 0, true,
            "kernel 'g' needs 600 KiB of stack for its tiles (the CPU backend's limit is 512 KiB); use smaller tiles"};
  const double m = f.at("M");
  const double dm = std::log2(double(p.at("BM"))) - std::min(std::log2(m), 5.0);
  const double dn = std::log2(double(p.at("BN"))) - 6, dk = std::log2(double(p.at("BK"))) - 8;
  return {Outcome::Status::Ok, 1e-4 * std::max(m, 8.0) * std::exp(0.3 * dm * dm + 0.25 * dn * dn + 0.2 * dk * dk),
          true, ""};
}

double optimum(const Space &s, const Features &f) {
  double best = INFINITY;
  for (const Point &p : s.enumerate(f))
    if (Outcome o = landscape(f, p); o.status == Outcome::Status::Ok) best = std::min(best, o.seconds);
  return best;
}

SearchProblem problem(const Features &f, Point rule) {
  const KnowledgeBase &kb = shippedBase();
  SearchProblem p;
  p.space = kb.space("gemm-cpu");
  p.features = f;
  p.rule = std::move(rule);
  p.techniques = kb.techniquesOf("gemm-cpu");
  return p;
}

const CostModel kModel(Roofs{500e9, 50e9, 2});

std::vector<Point> pointsOf(const SearchResult &r) {
  std::vector<Point> out;
  for (const Trial &t : r.trials) out.push_back(t.proposal.point);
  return out;
}

} // namespace

TEST(Search, PlannerIsDeterministicUnderASeed) {
  SearchProblem pb = problem(gemm(256), {{"BM", 16}, {"BN", 32}, {"BK", 128}});
  auto evaluate = [&](const Proposal &p) { return landscape(pb.features, p.point); };
  auto a = makePlanner(pb, kModel, {}, {7});
  auto b = makePlanner(pb, kModel, {}, {7});
  SearchResult ra = runSearch(*a, evaluate, {12}), rb = runSearch(*b, evaluate, {12});
  EXPECT_EQ(ra.trials.size(), 12u);
  EXPECT_EQ(pointsOf(ra), pointsOf(rb));
  // Every proposal is new and admitted; the rule comes first.
  std::set<Point> seen;
  for (const Point &p : pointsOf(ra)) {
    EXPECT_TRUE(seen.insert(p).second);
    EXPECT_TRUE(pb.space->admits(pb.features, p));
  }
  EXPECT_EQ(ra.trials.front().proposal.point, pb.rule);
}

TEST(Search, PlannerRepairsAStackFailureAndPrunesWhatDominatesIt) {
  // The rule's point is over the stack budget (128 * 128 * 128 > 2^20).
  Point rule = {{"BM", 128}, {"BN", 128}, {"BK", 128}};
  SearchProblem pb = problem(gemm(512), rule);
  auto evaluate = [&](const Proposal &p) { return landscape(pb.features, p.point); };
  auto planner = makePlanner(pb, kModel, {}, {1});
  SearchResult r = runSearch(*planner, evaluate, {10});
  ASSERT_GE(r.trials.size(), 2u);
  EXPECT_EQ(r.trials[0].outcome.status, Outcome::Status::Failed);
  // The next proposal repairs it with a technique that names stack-budget.
  const Trial &repair = r.trials[1];
  EXPECT_TRUE(repair.proposal.repair);
  ASSERT_EQ(repair.proposal.techniques.size(), 1u);
  const std::string &how = repair.proposal.techniques[0];
  EXPECT_TRUE(how == "cache-blocking" || how == "accumulator-relief") << how;
  EXPECT_GE(r.repairsTried, 1);
  EXPECT_GE(r.repairsSucceeded, 1);
  for (size_t i = 1; i < r.trials.size(); ++i) {
    const Point &p = r.trials[i].proposal.point;
    bool dominates = p.at("BM") >= 128 && p.at("BN") >= 128 && p.at("BK") >= 128;
    EXPECT_FALSE(dominates) << "trial " << i;
  }
  // Where bigger tiles look ever better, nothing that dominates a stack
  // failure is tried again.
  auto bigger = [](const Proposal &p) {
    const Point &t = p.point;
    if (t.at("BM") * t.at("BN") * t.at("BK") > (int64_t(1) << 18))
      return Outcome{Outcome::Status::Failed, 0, true, "kernel 'g' needs 700 KiB of stack for its tiles"};
    return Outcome{Outcome::Status::Ok, 1.0 / double(t.at("BM") * t.at("BN") * t.at("BK")), true, ""};
  };
  auto greedy = makePlanner(problem(gemm(512), {{"BM", 16}, {"BN", 64}, {"BK", 128}}), kModel, {}, {2});
  SearchResult g = runSearch(*greedy, bigger, {24});
  std::vector<Point> failed;
  for (const Trial &t : g.trials) {
    for (const Point &f : failed)
      EXPECT_FALSE(t.proposal.point.at("BM") >= f.at("BM") && t.proposal.point.at("BN") >= f.at("BN") &&
                   t.proposal.point.at("BK") >= f.at("BK"));
    if (t.outcome.status == Outcome::Status::Failed) failed.push_back(t.proposal.point);
  }
  EXPECT_FALSE(failed.empty());

  // An incorrect result is not "repaired": it is a bug, not a search step.
  auto again = makePlanner(pb, kModel, {}, {1});
  SearchResult wrong = runSearch(*again, [](const Proposal &) {
    return Outcome{Outcome::Status::Incorrect, 0, true, "max error 3.5 over tolerance"};
  }, {4});
  EXPECT_EQ(wrong.repairsTried, 0);
  EXPECT_FALSE(wrong.best);
}

TEST(Search, RandomAndGridStayInTheSpaceAndTheBudget) {
  SearchProblem pb = problem(gemm(64), {{"BM", 16}, {"BN", 64}, {"BK", 128}});
  const size_t admitted = pb.space->enumerate(pb.features).size();
  auto random = makeRandomSearch(pb, 3);
  SearchResult all = runSearch(*random, [](const Proposal &) { return Outcome{}; }, {100000});
  EXPECT_EQ(all.trials.size(), admitted); // every admitted point once, then it stops
  const std::vector<Point> tried = pointsOf(all);
  EXPECT_EQ(std::set<Point>(tried.begin(), tried.end()).size(), admitted);
  EXPECT_EQ(all.trials.front().proposal.point, pb.rule);

  for (int budget : {8, 16, 32}) {
    auto grid = makeGridSearch(pb, budget);
    SearchResult g = runSearch(*grid, [](const Proposal &) { return Outcome{}; }, {budget});
    EXPECT_LE(int(g.trials.size()), budget);
    EXPECT_GE(int(g.trials.size()), budget / 2) << "a grid should use most of its budget";
    EXPECT_EQ(g.trials.front().proposal.point, pb.rule);
    std::set<int64_t> bms;
    for (const Point &p : pointsOf(g)) {
      EXPECT_TRUE(pb.space->admits(pb.features, p));
      bms.insert(p.at("BM"));
    }
    EXPECT_GE(bms.size(), 2u);
  }
}

TEST(Search, PlannerWithContextBeatsRandomAndGridAtSmallBudgets) {
  // A sweep over increasing M: each configuration's planner sees the trials
  // of the earlier ones (its context), as a tuning database would give it.
  const double ms[] = {1, 4, 16, 64, 256, 1024};
  std::vector<Experience> context;
  double plannerRegret = 0, randomRegret = 0, gridRegret = 0;
  for (double m : ms) {
    SearchProblem pb = problem(gemm(m), {{"BM", int64_t(std::min(m, 16.0))}, {"BN", 32}, {"BK", 64}});
    auto evaluate = [&](const Proposal &p) { return landscape(pb.features, p.point); };
    const double best = optimum(*pb.space, pb.features);
    auto planner = makePlanner(pb, kModel, context, {11});
    SearchResult r = runSearch(*planner, evaluate, {8});
    ASSERT_TRUE(r.best);
    plannerRegret += std::log(r.trials[*r.best].outcome.seconds / best);
    for (const Trial &t : r.trials) context.push_back({pb.features, t.proposal.point, t.outcome});
    auto grid = makeGridSearch(pb, 8);
    SearchResult g = runSearch(*grid, evaluate, {8});
    gridRegret += g.best ? std::log(g.trials[*g.best].outcome.seconds / best) : 10.0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      auto random = makeRandomSearch(pb, seed);
      SearchResult rr = runSearch(*random, evaluate, {8});
      randomRegret += rr.best ? std::log(rr.trials[*rr.best].outcome.seconds / best) / 20 : 10.0 / 20;
    }
  }
  EXPECT_LT(plannerRegret, randomRegret) << "planner " << plannerRegret << " random " << randomRegret;
  EXPECT_LT(plannerRegret, gridRegret) << "planner " << plannerRegret << " grid " << gridRegret;
  EXPECT_LT(plannerRegret / 6, 0.05) << "the planner should end within 5% of the optimum on average";
}
