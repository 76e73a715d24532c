//===- SweepTest.cpp - the GEMM sweep and emitting from its database ------===//
//
// Candidates start with the rule's tiles and stay within the backend's
// limits; a sweep of a small ragged GEMM shape records every candidate as
// proved, correct and timed; a second sweep redoes nothing; the plan built
// from the database takes each bucket's best.
//
//===----------------------------------------------------------------------===//
#include "argus/Tuning/Sweep.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace argus;
using namespace argus::tuning;

namespace {

bool operator==(const emit::GemmTiles &a, const emit::GemmTiles &b) {
  return a.bm == b.bm && a.bn == b.bn && a.bk == b.bk;
}

TEST(GemmCandidates, RuleFirstThenDistinctLegalNeighbours) {
  for (const emit::GemmTypes &types : emit::fallbackGemmTypes())
    for (int64_t m : {1, 3, 16, 40, 200, 8192}) {
      auto candidates = emit::cpuGemmCandidates(m, 4096, 4096, types, 8);
      ASSERT_FALSE(candidates.empty());
      EXPECT_TRUE(candidates.front() == emit::chooseCpuGemmTiles(m, 4096, 4096, types));
      EXPECT_GE(candidates.size(), 4u) << "m = " << m << " " << types.a;
      for (size_t i = 0; i < candidates.size(); ++i) {
        EXPECT_EQ(candidates[i].bk % 32, 0);
        EXPECT_LE(candidates[i].bm, types.a == "f16" ? 128 : 256);
        for (size_t j = 0; j < i; ++j) EXPECT_FALSE(candidates[i] == candidates[j]) << "duplicate candidate";
      }
      EXPECT_EQ(emit::cpuGemmCandidates(m, 4096, 4096, types, 2).size(), 2u) << "the budget bounds the list";
    }
}

TEST(GemmCandidates, ProbeRowsAndParameters) {
  EXPECT_EQ(gemmProbeRows(16, 4096, 4096, 6.4e10), 16);
  EXPECT_EQ(gemmProbeRows(8192, 28672, 4096, 6.4e10), 272) << "capped at 64 GFLOP per call";
  EXPECT_EQ(gemmProbeRows(8192, 1 << 20, 1 << 20, 1e9), 1) << "at least one row";
  emit::GemmTiles t;
  ASSERT_TRUE(parseGemmParameters(gemmParameters({16, 128, 512}), t));
  EXPECT_TRUE(t == (emit::GemmTiles{16, 128, 512}));
  for (const char *bad : {"", "BM=16", "BM=16,BN=64,BK=0", "BM=16,BN=64,BK=x", "BM=1,BN=2,BK=3,XX=4", "BM16"})
    EXPECT_FALSE(parseGemmParameters(bad, t)) << bad;
}

class SweepTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("argus-sweep-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    auto opened = TuningDb::open((dir / "tuning.db").string(), {"test", "cpu-avx512", "test CPU", ""}, false);
    ASSERT_TRUE(std::holds_alternative<std::unique_ptr<TuningDb>>(opened)) << std::get<std::string>(opened);
    db = std::move(std::get<std::unique_ptr<TuningDb>>(opened));
    // One ragged shape (n, k not multiples of any tile), two buckets.
    emit::GemmGroup g;
    g.n = 96;
    g.k = 160;
    g.types = {"bf16", "bf16"};
    g.ops = {"proj"};
    g.bucketBounds = {3, 40};
    plan.groups.push_back(g);
    opt.homeDir = ARGUS_SOURCE_DIR;
    opt.workDir = (dir / "sweep").string();
    opt.cacheDir = (dir / "cache").string();
    opt.budget = 2;
    opt.progress = [&](const SweepProgress &p) { events.push_back(p); };
  }
  void TearDown() override { fs::remove_all(dir); }

  SweepReport sweep() {
    auto result = sweepGemms(plan, *db, opt);
    if (auto *error = std::get_if<std::string>(&result)) ADD_FAILURE() << *error;
    return std::get<SweepReport>(result);
  }

  fs::path dir;
  std::unique_ptr<TuningDb> db;
  emit::GemmPlan plan;
  SweepOptions opt;
  std::vector<SweepProgress> events;
};

TEST_F(SweepTest, RecordsEveryCandidateAndResumesWithoutRedoing) {
  SweepReport first = sweep();
  EXPECT_EQ(first.configs, 2);
  EXPECT_EQ(first.candidates, 4);
  EXPECT_EQ(first.measuredNow, 4);
  EXPECT_EQ(first.refuted + first.failed + first.incorrect, 0);
  for (const CandidateResult &r : db->results()) {
    EXPECT_EQ(r.verification, Verification::Proved) << r.key.parameters;
    EXPECT_TRUE(r.correct) << r.key.parameters << ": " << r.detail;
    EXPECT_TRUE(r.measured);
    EXPECT_GT(r.seconds, 0);
    EXPECT_EQ(r.key.templatePath, kGemmTemplate);
  }
  int finished = 0;
  for (const SweepProgress &p : events) {
    EXPECT_EQ(p.total, 2);
    finished += p.finished;
  }
  EXPECT_EQ(finished, 2) << "one finished event per configuration";
  EXPECT_EQ(events.back().done, 2);

  auto before = db->results();
  SweepReport second = sweep();
  EXPECT_EQ(second.measuredNow, 0) << "a second sweep finds everything in the database";
  EXPECT_EQ(second.candidates, 4);
  auto after = db->results();
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) EXPECT_EQ(after[i].recordedAt, before[i].recordedAt);
}

TEST_F(SweepTest, PlanFromTheDatabaseTakesEachBucketsBest) {
  sweep();
  emit::GemmTileChooser choose = tunedGemmChooser(*db, opt.maxProbeFlops);
  for (int64_t m : {3, 40}) {
    auto best = db->best("gemm", gemmShapeKey({"bf16", "bf16"}, 96, 160, m));
    ASSERT_TRUE(best.has_value());
    emit::GemmTiles expected;
    ASSERT_TRUE(parseGemmParameters(best->key.parameters, expected));
    EXPECT_TRUE(choose(m, 96, 160, {"bf16", "bf16"}) == expected) << "m = " << m;
  }
  // A shape the database never saw takes the rule's tiles.
  EXPECT_TRUE(choose(7, 50, 60, {"f32", "f32"}) == emit::chooseCpuGemmTiles(7, 50, 60, {"f32", "f32"}));
}

} // namespace
