//===- ReportTest.cpp - report.html from a plan and a tuning database -----===//
//
// The page holds a row per configuration with the chosen kernel's time and
// its speed against the rule's tiles, a roofline point per measured
// configuration, nothing fetched from anywhere, and the same bytes when
// rendered twice; without a database it says nothing was measured.
//
//===----------------------------------------------------------------------===//
#include "argus/Tuning/Report.h"
#include "argus/Tuning/Sweep.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace argus;
using namespace argus::tuning;

namespace {

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class ReportTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("argus-report-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    auto opened = TuningDb::open((dir / "tuning.db").string(), {"test", "cpu-avx512", "test CPU", "g++"}, false);
    ASSERT_TRUE(std::holds_alternative<std::unique_ptr<TuningDb>>(opened));
    db = std::move(std::get<std::unique_ptr<TuningDb>>(opened));
    const emit::GemmTypes bf16{"bf16", "bf16"};
    auto add = [&](int64_t m, const emit::GemmTiles &t, double seconds, Verification v = Verification::Proved) {
      CandidateResult r;
      r.key = {"gemm", gemmShapeKey(bf16, 64, 128, m), kGemmTemplate, gemmParameters(t), ""};
      r.verification = v;
      r.correct = v == Verification::Proved;
      r.seconds = seconds;
      r.measured = true;
      ASSERT_EQ(db->record(r), "");
    };
    add(4, emit::chooseCpuGemmTiles(4, 64, 128, bf16), 2e-6);
    add(4, {4, 32, 128}, 1e-6);
    add(4, {8, 64, 128}, 0, Verification::Refuted);
    add(64, emit::chooseCpuGemmTiles(64, 64, 128, bf16), 5e-6);
    emit::GemmGroup g;
    g.n = 64;
    g.k = 128;
    g.types = bf16;
    g.ops = {"proj", "out"};
    g.bucketBounds = {4, 64};
    for (int64_t m : g.bucketBounds) {
      emit::GemmKernel k;
      k.n = 64;
      k.k = 128;
      k.types = bf16;
      k.tiles = tunedGemmChooser(*db, 6.4e10)(m, 64, 128, bf16);
      g.kernelPerBucket.push_back(plan.kernels.size());
      plan.kernels.push_back(k);
    }
    plan.groups.push_back(g);
    input.model = "toy";
    input.target = "cpu-avx512";
    input.catalogFile = "toy.yaml";
    input.catalogHash = "0123456789abcdef0123";
    input.plan = &plan;
    input.db = db.get();
    input.peaks = {2, 200, 1000, 20};
    input.byRule = {"argusk_attn_prefill_bf16_d64_g2 (templates/attention/attention_prefill.argus)"};
  }
  void TearDown() override { fs::remove_all(dir); }

  fs::path dir;
  std::unique_ptr<TuningDb> db;
  emit::GemmPlan plan;
  ReportInput input;
};

TEST_F(ReportTest, RowsRooflineAndNothingExternal) {
  std::string html = renderReport(input);
  EXPECT_NE(html.find("<td class=\"l\">proj, out</td>"), std::string::npos);
  EXPECT_NE(html.find("BK=128,BM=4,BN=32"), std::string::npos) << "the database's best is the kernel shown";
  EXPECT_NE(html.find("<td>2 / 3</td>"), std::string::npos) << "usable / tried at M=4";
  EXPECT_NE(html.find("<td>2.00×</td>"), std::string::npos) << "rule 2 us over best 1 us";
  EXPECT_NE(html.find("<td>1.00×</td>"), std::string::npos) << "at M=64 the rule is the best";
  EXPECT_NE(html.find("<td>1.0 µs</td>"), std::string::npos);
  EXPECT_EQ(count(html, "class=\"point\""), 2u) << "a roofline point per measured configuration";
  EXPECT_NE(html.find("bf16 peak 1000 GFLOP/s"), std::string::npos);
  EXPECT_NE(html.find("read 20.0 GB/s"), std::string::npos);
  EXPECT_NE(html.find("argusk_attn_prefill_bf16_d64_g2"), std::string::npos);
  for (const char *external : {"<script", " src=", "href=", "@import", "url("})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  EXPECT_EQ(html, renderReport(input)) << "the same inputs render the same bytes";
}

TEST_F(ReportTest, WithoutDatabaseNothingIsMeasured) {
  input.db = nullptr;
  input.peaks = {};
  std::string html = renderReport(input);
  EXPECT_NE(html.find("--budget 0"), std::string::npos);
  EXPECT_EQ(count(html, "not measured"), 2u);
  EXPECT_EQ(count(html, "class=\"point\""), 0u);
}

TEST(ReportPeaks, JsonRoundTrip) {
  machine::Peaks p{2, 246.5, 1942, 22.7}, q;
  ASSERT_TRUE(peaksFromJson(peaksToJson(p), q));
  EXPECT_EQ(q.threads, 2);
  EXPECT_DOUBLE_EQ(q.f32Gflops, 246.5);
  EXPECT_DOUBLE_EQ(q.bf16Gflops, 1942);
  EXPECT_DOUBLE_EQ(q.readGbps, 22.7);
  for (const char *bad : {"", "[]", "{\"threads\": 2}", "{\"threads\":\"x\",\"f32_gflops\":1,\"bf16_gflops\":1,\"read_gbps\":1}"})
    EXPECT_FALSE(peaksFromJson(bad, q)) << bad;
}

} // namespace
