//===- SweepTest.cpp - the sweep and emitting from its database -----------===//
//
// Candidates start with the rule's tiles and stay within the backend's
// limits (the 1-row rule's long k-steps shorten to a short K); a sweep of a
// small ragged GEMM shape records every candidate as proved, correct and
// timed; a second sweep redoes nothing; the plan built
// from the database takes each bucket's best. The same for the prefill
// attention kernel and the MoE tiers of a tiny MoE catalog.
//
//===----------------------------------------------------------------------===//
#include "argus/Catalog/Catalog.h"
#include "argus/Emit/MoePlan.h"
#include "argus/Tuning/Sweep.h"

#include "ScriptedChatServer.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <set>
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

TEST(GemmCandidates, OneRowRuleTakesLongStepsShortenedToAShortK) {
  const emit::GemmTypes f32{"f32", "f32"}, bf16{"bf16", "bf16"}, f16{"f16", "f16"};
  // cpu-avx512 (bf16 computed natively): 32 columns, whole rows of pre-packed weight panels.
  const emit::GemmTiles decode = emit::chooseCpuGemmTiles(1, 4096, 4096, f32);
  EXPECT_EQ(decode.bn, 32);
  EXPECT_EQ(decode.bk, 2048) << "operand copies off the stack: f32 fits 2048 too";
  EXPECT_EQ(emit::chooseCpuGemmTiles(1, 4096, 4096, bf16).bn, 32);
  EXPECT_EQ(emit::chooseCpuGemmTiles(1, 4096, 4096, bf16).bk, 2048);
  EXPECT_EQ(emit::chooseCpuGemmTiles(1, 4096, 4096, f16).bn, 16) << "f16 weights are never packed";
  // cpu-avx2: 16 columns of 2048-long rows.
  EXPECT_EQ(emit::chooseCpuGemmTiles(1, 4096, 4096, f32, /*bf16InF32=*/true).bn, 16);
  EXPECT_EQ(emit::chooseCpuGemmTiles(1, 4096, 4096, f32, /*bf16InF32=*/true).bk, 2048);
  EXPECT_EQ(emit::chooseCpuGemmTiles(1, 0, 0, bf16).bk, 2048) << "generic kernels know no K";
  EXPECT_EQ(emit::chooseCpuGemmTiles(1, 129, 100, f32).bk, 128) << "the shortest power of two that covers K";
  EXPECT_EQ(emit::chooseCpuGemmTiles(1, 512, 256, f32).bk, 256);
  EXPECT_EQ(emit::chooseCpuGemmTiles(1, 4608, 3584, bf16).bk, 512) << "no partial last k-step (3584 = 7 x 512)";
  EXPECT_EQ(emit::chooseCpuGemmTiles(1, 4096, 18944, bf16).bk, 512) << "18944 = 37 x 512";
  EXPECT_EQ(emit::chooseCpuGemmTiles(1, 4096, 14336, bf16).bk, 2048) << "14336 = 7 x 2048";
  EXPECT_EQ(emit::chooseCpuGemmTiles(1, 4096, 3000, bf16).bk, 256) << "nothing over 256 divides 3000";
  EXPECT_EQ(emit::chooseCpuGemmTiles(4, 4096, 768, bf16).bk, 256) << "the short-tile step too (768 = 3 x 256)";
  // f32 tiles of 17-32 rows: packed in 128-long steps on cpu-avx512, the lanes form's 256 on cpu-avx2.
  EXPECT_EQ(emit::chooseCpuGemmTiles(32, 4096, 4096, f32).bk, 128);
  EXPECT_EQ(emit::chooseCpuGemmTiles(32, 4096, 4096, f32, /*bf16InF32=*/true).bk, 256);
  EXPECT_EQ(emit::chooseCpuGemmTiles(64, 4096, 4096, f32, /*bf16InF32=*/true).bk, 128) << "64 rows stay packed";
  for (const emit::GemmTiles &t : emit::cpuGemmCandidates(1, 4096, 4096, bf16, 8))
    EXPECT_GE(t.bn, 32) << "a candidate of half-panel columns";
  EXPECT_EQ(emit::chooseCpuGemmTiles(2, 4096, 4096, f32).bk, 512) << "only the 1-row tile changes";
  EXPECT_EQ(emit::chooseCpuGemmTiles(2, 4096, 4096, f32).bn, 64);
}

TEST(GemmCandidates, Bf16TilesOf128RowsOrMoreTakeHalfKiloStepsWhereTheyDivideK) {
  const emit::GemmTypes f32{"f32", "f32"}, bf16{"bf16", "bf16"};
  EXPECT_EQ(emit::chooseCpuGemmTiles(128, 4096, 4096, bf16).bk, 512);
  EXPECT_EQ(emit::chooseCpuGemmTiles(100, 4096, 14336, bf16).bk, 512) << "14336 = 28 x 512";
  EXPECT_EQ(emit::chooseCpuGemmTiles(128, 2048, 768, bf16).bk, 256) << "no partial last k-step";
  EXPECT_EQ(emit::chooseCpuGemmTiles(128, 0, 0, bf16).bk, 256) << "generic kernels know no K";
  EXPECT_EQ(emit::chooseCpuGemmTiles(128, 4096, 4096, bf16, /*bf16InF32=*/true).bk, 256) << "widened on cpu-avx2";
  EXPECT_EQ(emit::chooseCpuGemmTiles(512, 4096, 4096, bf16).bk, 512) << "256 rows: operand copies off the stack";
  EXPECT_EQ(emit::chooseCpuGemmTiles(64, 4096, 4096, bf16).bk, 256);
  EXPECT_EQ(emit::chooseCpuGemmTiles(128, 4096, 4096, f32).bk, 128);
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

TEST(AttentionCandidates, RuleFirstThenDistinctNeighboursWithinBounds) {
  for (const char *dtype : {"bf16", "f32"}) {
    emit::AttentionKernel k;
    k.dtype = dtype;
    k.headDim = k.vHeadDim = 128;
    k.group = 4;
    auto candidates = emit::cpuAttentionCandidates(k, 16);
    ASSERT_GE(candidates.size(), 4u);
    EXPECT_EQ(candidates.front().bq, emit::chooseCpuAttentionTiles(k).bq);
    EXPECT_EQ(candidates.front().bkv, emit::chooseCpuAttentionTiles(k).bkv);
    for (size_t i = 0; i < candidates.size(); ++i) {
      EXPECT_TRUE(candidates[i].bq >= 16 && candidates[i].bq <= 128) << candidates[i].bq;
      EXPECT_TRUE(candidates[i].bkv >= 32 && candidates[i].bkv <= 128) << candidates[i].bkv;
      for (size_t j = 0; j < i; ++j)
        EXPECT_FALSE(candidates[i].bq == candidates[j].bq && candidates[i].bkv == candidates[j].bkv);
    }
    EXPECT_EQ(emit::cpuAttentionCandidates(k, 2).size(), 2u) << "the budget bounds the list";
  }
  for (const char *dtype : {"bf16", "f16", "f32"}) {
    emit::AttentionKernel wide;
    wide.dtype = dtype;
    wide.headDim = wide.vHeadDim = 128;
    EXPECT_EQ(emit::chooseCpuAttentionTiles(wide).bq, 128) << dtype << " packs keys for 128 query rows at a time";
    wide.headDim = wide.vHeadDim = 256;
    EXPECT_EQ(emit::chooseCpuAttentionTiles(wide).bq, 64) << dtype << ": 128 rows of a 256-wide head exceed the stack budget";
  }
  emit::AttentionTiles t;
  ASSERT_TRUE(parseAttentionParameters(attentionParameters({32, 128}), t));
  EXPECT_EQ(t.bq, 32);
  EXPECT_EQ(t.bkv, 128);
  for (const char *bad : {"", "BQ=32", "BQ=32,BKV=0", "BQ=32,BKV=64,BM=1", "BQ=32,BQ=64"})
    EXPECT_FALSE(parseAttentionParameters(bad, t)) << bad;
}

TEST(MoeCandidates, RowsStayTheTiers) {
  for (int64_t rows : emit::moeTierBlockRows()) {
    emit::GemmTiles rule = emit::chooseCpuMoeTiles(emit::MoeRole::GateUp, "bf16", rows);
    auto candidates = emit::cpuGemmCandidates(rule, rows, 768, 2048, {"bf16", "bf16"}, 8, /*rowsFixed=*/true);
    ASSERT_GE(candidates.size(), 3u);
    EXPECT_TRUE(candidates.front() == rule);
    for (const emit::GemmTiles &t : candidates) EXPECT_EQ(t.bm, rows);
  }
}

// f32 tiers in the packed form take their own kernels for plain weights on
// cpu-avx512 (longer k-steps); where every weight comes plain (cpu-avx2)
// those are the only kernels.
TEST(MoePlan, PlainWeightKernelsWhereTheirRuleDiffers) {
  auto generic = [](const std::vector<emit::MoeEntry> &entries, const std::string &dtype) {
    auto it = std::find_if(entries.begin(), entries.end(),
                           [&](const emit::MoeEntry &e) { return !e.inCatalog && e.dtype == dtype; });
    EXPECT_NE(it, entries.end()) << dtype;
    return *it;
  };
  auto bk = [](const emit::MoeKernel &k) { return std::get<int64_t>(k.spec.constants.at("BK")); };
  const emit::MoeEntry f32 = generic(emit::planMoe({}), "f32"), bf16 = generic(emit::planMoe({}), "bf16");
  for (const emit::MoeTier &t : f32.tiers) {
    const bool packedForm = t.blockRows > 16;
    for (auto [any, plain] : {std::pair{&t.gateUp, &t.gateUpPlain}, std::pair{&t.down, &t.downPlain}}) {
      EXPECT_EQ(plain->symbol.empty(), !packedForm) << any->symbol;
      if (!packedForm) continue;
      EXPECT_EQ(plain->symbol, any->symbol + "_plain");
      EXPECT_EQ(bk(*any), 128) << any->symbol;
      EXPECT_EQ(bk(*plain), 256) << plain->symbol;
      EXPECT_EQ(std::get<int64_t>(plain->spec.constants.at("BM")), t.blockRows);
    }
  }
  EXPECT_EQ(f32.kernels().size(), 2 * f32.tiers.size() + 4 + 2); /* + the last tier's transposed pair */
  for (const emit::MoeTier &t : bf16.tiers)
    EXPECT_TRUE(t.gateUpPlain.symbol.empty() && t.downPlain.symbol.empty()) << t.gateUp.symbol;

  // The sweep's and the tuned chooser's rule follow the target the same way.
  EXPECT_EQ(emit::chooseCpuMoeTilesOnTarget(emit::MoeRole::GateUp, "f32", 64, /*bf16InF32=*/false).bk, 128);
  EXPECT_EQ(emit::chooseCpuMoeTilesOnTarget(emit::MoeRole::Down, "f32", 64, /*bf16InF32=*/true).bk, 256);
  EXPECT_EQ(emit::chooseCpuMoeTilesOnTarget(emit::MoeRole::GateUp, "bf16", 64, /*bf16InF32=*/true).bk,
            emit::chooseCpuMoeTiles(emit::MoeRole::GateUp, "bf16", 64).bk);
  const emit::MoeEntry avx2 = generic(emit::planMoe({}, nullptr, /*bf16InF32=*/true), "f32");
  for (const emit::MoeTier &t : avx2.tiers) {
    EXPECT_TRUE(t.gateUpPlain.symbol.empty() && t.downPlain.symbol.empty()) << t.gateUp.symbol;
    EXPECT_EQ(bk(t.gateUp), t.blockRows > 16 ? 256 : 512) << t.gateUp.symbol;
  }
}

// The last tier runs plain weights transposed where kernels read panels
// (cpu-avx512): moe_gate_up_t and gemm_tn into f32, 128 weight rows by the
// tier's 64 rows, K pinned for a catalog entry; not on cpu-avx2.
TEST(MoePlan, LastTierTransposedKernelsForPlainWeights) {
  catalog::OpConfig c;
  c.kind = catalog::OpKind::Moe;
  c.name = "moe";
  c.dtype = catalog::Dtype::BF16;
  c.params = catalog::MoeParams{8, 2, 4096, 14336};
  for (const emit::MoeEntry &e : emit::planMoe({c})) {
    for (size_t i = 0; i < e.tiers.size(); ++i) {
      const emit::MoeTier &t = e.tiers[i];
      const bool last = i + 1 == e.tiers.size();
      EXPECT_EQ(t.gateUpTransposed.symbol.empty(), !last) << e.name;
      EXPECT_EQ(t.downTransposed.symbol.empty(), !last) << e.name;
      if (!last) continue;
      EXPECT_EQ(t.gateUpTransposed.templatePath, "templates/moe/moe_gate_up_t.argus");
      EXPECT_EQ(t.downTransposed.templatePath, emit::kGemmTemplatePath);
      EXPECT_EQ(std::get<std::string>(t.downTransposed.spec.constants.at("TC")), "f32");
      for (const emit::MoeKernel *k : {&t.gateUpTransposed, &t.downTransposed}) {
        EXPECT_EQ(std::get<int64_t>(k->spec.constants.at("BM")), 128) << k->symbol;
        EXPECT_EQ(std::get<int64_t>(k->spec.constants.at("BN")), t.blockRows) << k->symbol;
      }
      if (e.inCatalog) {
        EXPECT_EQ(t.gateUpTransposed.spec.dims.at("N"), 14336);
        EXPECT_EQ(t.gateUpTransposed.spec.dims.at("K"), 4096);
        EXPECT_EQ(t.downTransposed.spec.dims.at("K"), 14336);
        EXPECT_FALSE(t.downTransposed.spec.dims.count("N")) << "N is the expert's rows";
      }
    }
  }
  for (const emit::MoeEntry &e : emit::planMoe({c}, nullptr, /*bf16InF32=*/true))
    for (const emit::MoeTier &t : e.tiers)
      EXPECT_TRUE(t.gateUpTransposed.symbol.empty() && t.downTransposed.symbol.empty()) << e.name;
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

TEST_F(SweepTest, PlannerProposesRecordsTechniquesAndResumes) {
  opt.agent = "planner";
  opt.budget = 4;
  SweepReport first = sweep();
  EXPECT_EQ(first.configs, 2);
  EXPECT_GE(first.candidates, 6) << "up to four candidates per configuration";
  EXPECT_LE(first.candidates, 8);
  std::map<std::string, std::vector<CandidateResult>> byConfig;
  for (const CandidateResult &r : db->results()) byConfig[r.key.shapeKey].push_back(r);
  ASSERT_EQ(byConfig.size(), 2u);
  bool movedByTechnique = false;
  for (auto &[key, results] : byConfig) {
    EXPECT_LE(results.size(), 4u) << key;
    // The rule's tiles first, as the rule itself would have tried.
    const int64_t m = key.find("M=3") != std::string::npos ? 3 : 40;
    EXPECT_EQ(results.front().key.parameters, gemmParameters(emit::chooseCpuGemmTiles(m, 96, 160, {"bf16", "bf16"})));
    EXPECT_EQ(results.front().key.techniques, "");
    for (const CandidateResult &r : results) {
      emit::GemmTiles t;
      ASSERT_TRUE(parseGemmParameters(r.key.parameters, t));
      EXPECT_LE(t.bm, 2 * m) << "the space's constraint BM <= 2*M";
      movedByTechnique |= !r.key.techniques.empty();
      if (r.verification == Verification::Proved) EXPECT_TRUE(r.correct) << r.key.parameters << ": " << r.detail;
    }
  }
  EXPECT_TRUE(movedByTechnique) << "some candidate was reached by a knowledge-base technique";
  int finished = 0;
  for (const SweepProgress &p : events) finished += p.finished;
  EXPECT_EQ(finished, 2);

  // Started again with the same seed, the search replays its proposals from
  // the database: nothing is built or measured again.
  auto before = db->results();
  SweepReport second = sweep();
  EXPECT_EQ(second.measuredNow, 0);
  EXPECT_EQ(db->results().size(), before.size());
}

TEST_F(SweepTest, LlmAgentRunsTheModelsKernelsThroughThePipeline) {
  std::string tmpl;
  {
    std::ifstream in(std::string(ARGUS_SOURCE_DIR) + "/" + kGemmTemplate);
    std::stringstream ss;
    ss << in.rdbuf();
    tmpl = ss.str();
  }
  auto edited = [&](const std::string &from, const std::string &to) {
    std::string text = tmpl;
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
  };
  auto reply = [](const std::string &kernel, const std::string &parameters) {
    return test::ScriptedChatServer::completion("```python\n" + kernel + "```\nPARAMETERS: " + parameters + "\n");
  };
  const std::string variant = edited("acc = zeros((BM, BN), f32)", "acc = zeros((BM, BN), f32)  # the model's");
  const std::string buggy = edited("B.tile((pid(1), kt)", "B.tile((pid(1), 0)"); // every k step reads B's first panel
  test::ScriptedChatServer server({{200, reply(variant, "BM=16, BN=32, BK=64"), 0},
                                   {200, reply(buggy, "BM=16, BN=64, BK=64"), 0},
                                   {500, R"({"error": {"message": "model overloaded"}})", 0},
                                   {200, "<html>gateway</html>", 0}});
  plan.groups[0].bucketBounds = {40};
  opt.agent = "llm";
  opt.budget = 5;
  opt.jobs = 1; // one proposal at a time: each prompt sees every earlier outcome
  opt.llm = {server.endpoint(), "scripted", "", 10};
  SweepReport report = sweep();
  EXPECT_EQ(report.llmAsked, 4) << "after the rule's point, each of four steps asked the model";
  EXPECT_EQ(report.llmUsed, 2);

  std::vector<CandidateResult> results = db->results();
  ASSERT_EQ(results.size(), 5u) << "unusable replies cost no candidate: the planner stood in";
  int fromModel = 0;
  for (const CandidateResult &r : results) {
    if (r.key.templatePath.rfind("llm/", 0) != 0) {
      if (r.verification == Verification::Proved) EXPECT_TRUE(r.correct) << r.key.parameters;
      continue;
    }
    ++fromModel;
    EXPECT_EQ(r.key.techniques, "llm:scripted");
    std::optional<std::string> source = db->source(r.key.templatePath);
    ASSERT_TRUE(source) << "the model's kernel is kept with its results";
    EXPECT_TRUE(fs::exists(fs::path(opt.workDir) / r.key.templatePath));
    if (*source == variant) {
      EXPECT_EQ(r.key.parameters, "BK=64,BM=16,BN=32");
      EXPECT_EQ(r.verification, Verification::Proved) << r.detail;
      EXPECT_TRUE(r.correct) << r.detail;
      EXPECT_GT(r.seconds, 0);
    } else {
      EXPECT_EQ(*source, buggy);
      EXPECT_EQ(r.verification, Verification::Refuted);
      EXPECT_NE(r.detail.find("[tag-assertion]"), std::string::npos) << r.detail;
    }
  }
  EXPECT_EQ(fromModel, 2);

  // The third question carries the buggy kernel's counterexample.
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);
  const std::string third = nlohmann::json::parse(requests[2].body)["messages"][1]["content"];
  EXPECT_NE(third.find("## Last failure (#3, your kernel)"), std::string::npos) << third;
  EXPECT_NE(third.find("[tag-assertion]"), std::string::npos);

  // Every exchange is in the log, with why a reply was not used.
  std::ifstream log(fs::path(opt.workDir) / "llm-exchanges.jsonl");
  std::vector<std::string> verdicts;
  for (std::string line; std::getline(log, line);) verdicts.push_back(nlohmann::json::parse(line)["verdict"]);
  ASSERT_EQ(verdicts.size(), 4u);
  EXPECT_EQ(verdicts[0], "proposed");
  EXPECT_EQ(verdicts[1], "proposed");
  EXPECT_NE(verdicts[2].find("http-error: "), std::string::npos) << verdicts[2];
  EXPECT_NE(verdicts[2].find("HTTP 500: model overloaded"), std::string::npos) << verdicts[2];
  EXPECT_NE(verdicts[3].find("malformed"), std::string::npos) << verdicts[3];

  // The library takes the fastest, the model's kernel included (then its tiles name it).
  auto best = db->best("gemm", gemmShapeKey({"bf16", "bf16"}, 96, 160, 40));
  ASSERT_TRUE(best);
  emit::GemmTiles expected;
  ASSERT_TRUE(parseGemmParameters(best->key.parameters, expected));
  emit::GemmTiles chosen = tunedGemmChooser(*db, opt.maxProbeFlops)(40, 96, 160, {"bf16", "bf16"});
  EXPECT_TRUE(chosen == expected);
  EXPECT_EQ(chosen.kernel, best->key.templatePath == kGemmTemplate ? "" : best->key.templatePath);

  // Made the fastest, the model's kernel is what the library builds.
  for (CandidateResult r : db->results())
    if (r.key.templatePath.rfind("llm/", 0) == 0 && r.correct) {
      r.seconds = best->seconds / 2;
      ASSERT_EQ(db->record(r), "");
      chosen = tunedGemmChooser(*db, opt.maxProbeFlops)(40, 96, 160, {"bf16", "bf16"});
      EXPECT_EQ(chosen.kernel, r.key.templatePath);
      EXPECT_EQ(chosen.bn, 32);
      emit::GemmKernel k;
      k.n = 96;
      k.k = 160;
      k.types = {"bf16", "bf16"};
      k.tiles = chosen;
      EXPECT_EQ(k.templatePath(), r.key.templatePath);
      EXPECT_NE(emit::gemmKernelSymbol(k).find("_x"), std::string::npos) << emit::gemmKernelSymbol(k);
    }
}

TEST_F(SweepTest, ATargetThisHostCannotRunIsBuiltAndModelledNeverRun) {
  opt.modelOnly = true; // as argus-gen sets it for cpu-avx512 on an AVX2 host
  opt.target = "cpu-avx512";
  opt.agent = "planner";
  opt.budget = 3;
  SweepReport report = sweep();
  EXPECT_EQ(report.configs, 2);
  EXPECT_EQ(report.measuredNow, 6) << "three candidates at each of two configurations";
  EXPECT_EQ(report.modelled, 6);
  EXPECT_EQ(report.incorrect, 0) << "a candidate that was not run is not wrong";
  std::set<std::string> points;
  for (const CandidateResult &r : db->results()) {
    EXPECT_EQ(r.verification, Verification::Proved) << r.detail;
    EXPECT_FALSE(r.measured);
    EXPECT_FALSE(r.correct) << "never checked against the reference";
    EXPECT_GT(r.seconds, 0) << "the cost model's time";
    EXPECT_NE(r.detail.find("not run (this host cannot run cpu-avx512)"), std::string::npos) << r.detail;
    points.insert(r.key.shapeKey + " " + r.key.parameters);
  }
  EXPECT_EQ(points.size(), 6u) << "the planner moved on modelled rewards";
  // The planner saw them as modelled rewards.
  agent::Outcome o = agentOutcome(db->results().front());
  EXPECT_EQ(o.status, agent::Outcome::Status::Ok);
  EXPECT_FALSE(o.measured);
  EXPECT_EQ(o.seconds, db->results().front().seconds);
  // Nothing measured: the library keeps the rule's tiles.
  for (int64_t m : {3, 40}) {
    EXPECT_FALSE(db->best("gemm", gemmShapeKey({"bf16", "bf16"}, 96, 160, m)));
    EXPECT_TRUE(tunedGemmChooser(*db, opt.maxProbeFlops)(m, 96, 160, {"bf16", "bf16"}) ==
                emit::chooseCpuGemmTiles(m, 96, 160, {"bf16", "bf16"}));
  }
}

TEST_F(SweepTest, AgentSweepNeedsItsSpaceForTheTarget) {
  opt.agent = "grid";
  opt.target = "cuda-sm90a"; // gemm-cpu does not serve it
  auto result = sweepGemms(plan, *db, opt);
  ASSERT_TRUE(std::holds_alternative<std::string>(result));
  EXPECT_NE(std::get<std::string>(result).find("space 'gemm-cpu' of the knowledge base does not serve target cuda-sm90a"),
            std::string::npos)
      << std::get<std::string>(result);
  EXPECT_TRUE(db->results().empty());
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

/// Prefill attention and MoE tiers of shapes/../test/tuning/tiny-moe.yaml
/// (its GEMMs are the GEMM tests' business).
TEST_F(SweepTest, AttentionAndMoeTiersAreSweptAndChosen) {
  auto cat = catalog::loadCatalog(ARGUS_SOURCE_DIR "/test/tuning/tiny-moe.yaml");
  ASSERT_TRUE(bool(cat)) << cat.error().format();
  std::vector<catalog::OpConfig> configs;
  for (const catalog::OpConfig &c : catalog::expand(cat.value()))
    if (c.kind == catalog::OpKind::AttentionPrefill || c.kind == catalog::OpKind::Moe) configs.push_back(c);
  ASSERT_EQ(configs.size(), 2u);
  auto result = sweepCatalog(configs, *db, opt);
  ASSERT_TRUE(std::holds_alternative<SweepReport>(result)) << std::get<std::string>(result);
  const SweepReport &first = std::get<SweepReport>(result);
  const int moeConfigs = 2 * int(emit::moeTierBlockRows().size());
  EXPECT_EQ(first.configs, 1 + moeConfigs);
  EXPECT_EQ(first.candidates, first.measuredNow);
  EXPECT_GT(first.candidates, first.configs) << "neighbours of the rule were tried too";
  std::map<std::string, int> perConfig;
  for (const CandidateResult &r : db->results()) ++perConfig[r.key.op + " " + r.key.shapeKey];
  EXPECT_EQ(int(perConfig.size()), first.configs);
  for (auto &[config, tried] : perConfig) EXPECT_LE(tried, 2) << config << ": the budget is 2";
  EXPECT_EQ(first.refuted + first.failed + first.incorrect, 0);
  for (const CandidateResult &r : db->results()) {
    EXPECT_EQ(r.verification, Verification::Proved) << r.key.op << " " << r.key.parameters;
    EXPECT_TRUE(r.correct) << r.key.op << " " << r.key.parameters << ": " << r.detail;
    EXPECT_GT(r.seconds, 0);
  }

  // The library's plan takes each configuration's best.
  for (const emit::AttentionKernel &k : emit::planAttention(configs, tunedAttentionChooser(*db))) {
    if (!k.inCatalog || k.kind != emit::AttentionKind::Prefill) continue;
    auto best = db->best("attention_prefill", attentionShapeKey(k));
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(attentionParameters(k.tiles), best->key.parameters);
  }
  int tiers = 0;
  for (const emit::MoeEntry &e : emit::planMoe(configs, tunedMoeChooser(*db))) {
    if (!e.inCatalog) continue;
    std::vector<int64_t> rows = emit::moeTierBlockRows();
    ASSERT_EQ(e.tiers.size(), rows.size());
    for (size_t i = 0; i < rows.size(); ++i, ++tiers)
      for (auto [role, kernel] : {std::pair{emit::MoeRole::GateUp, &e.tiers[i].gateUp},
                                  std::pair{emit::MoeRole::Down, &e.tiers[i].down}}) {
        auto best = db->best(role == emit::MoeRole::GateUp ? "moe_gate_up" : "moe_down", moeShapeKey(role, e, rows[i]));
        ASSERT_TRUE(best.has_value());
        emit::GemmTiles t;
        ASSERT_TRUE(parseGemmParameters(best->key.parameters, t));
        EXPECT_EQ(std::get<int64_t>(kernel->spec.constants.at("BM")), rows[i]);
        EXPECT_EQ(std::get<int64_t>(kernel->spec.constants.at("BN")), t.bn) << kernel->symbol;
        EXPECT_EQ(std::get<int64_t>(kernel->spec.constants.at("BK")), t.bk) << kernel->symbol;
      }
  }
  EXPECT_EQ(tiers, int(emit::moeTierBlockRows().size()));

  auto again = sweepCatalog(configs, *db, opt);
  ASSERT_TRUE(std::holds_alternative<SweepReport>(again));
  EXPECT_EQ(std::get<SweepReport>(again).measuredNow, 0) << "a second sweep finds everything in the database";
}

} // namespace
