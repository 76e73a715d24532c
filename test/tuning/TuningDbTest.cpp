//===- TuningDbTest.cpp - the tuning database -----------------------------===//
//
// Results survive reopening and a SIGKILL of the writer; a database of
// another generator version, target or device is refused (and discarded
// only with retune); `best` ranks measured over modelled times and skips
// refuted or incorrect candidates.
//
//===----------------------------------------------------------------------===//
#include "argus/Tuning/TuningDb.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace argus::tuning;

namespace {

const DbIdentity kIdentity{"0.1.0", "cpu-avx512", "Test CPU", "0123456789abcdef", "g++ 12"};

class TuningDbTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("argus-tuning-" + std::to_string(getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    path = (dir / "tuning.db").string();
  }
  void TearDown() override { fs::remove_all(dir); }

  std::unique_ptr<TuningDb> openOk(const DbIdentity &id = kIdentity, bool retune = false) {
    auto opened = TuningDb::open(path, id, retune);
    if (auto *error = std::get_if<std::string>(&opened)) {
      ADD_FAILURE() << *error;
      return nullptr;
    }
    return std::move(std::get<std::unique_ptr<TuningDb>>(opened));
  }
  std::string openError(const DbIdentity &id) {
    auto opened = TuningDb::open(path, id, false);
    auto *error = std::get_if<std::string>(&opened);
    return error ? *error : std::string("(opened)");
  }

  fs::path dir;
  std::string path;
};

CandidateKey keyOf(const std::string &params, const std::string &shape = "gemm bf16 n6144 k4096 m<=16") {
  return {"qkv", shape, "templates/gemm/gemm_tn.argus", params, ""};
}

CandidateResult result(const std::string &params, double seconds, bool measured = true,
                       Verification v = Verification::Proved, bool correct = true) {
  CandidateResult r;
  r.key = keyOf(params);
  r.verification = v;
  r.correct = correct;
  r.maxError = 1e-3;
  r.seconds = seconds;
  r.measured = measured;
  return r;
}

TEST_F(TuningDbTest, ResultsPersistAcrossReopening) {
  {
    auto db = openOk();
    ASSERT_TRUE(db);
    EXPECT_FALSE(db->contains(keyOf("BK=512,BM=16,BN=64")));
    ASSERT_EQ(db->record(result("BK=512,BM=16,BN=64", 2e-4)), "");
    ASSERT_EQ(db->record(result("BK=256,BM=16,BN=64", 3e-4)), "");
  }
  auto db = openOk();
  ASSERT_TRUE(db);
  EXPECT_TRUE(db->contains(keyOf("BK=512,BM=16,BN=64")));
  EXPECT_FALSE(db->contains(keyOf("BK=512,BM=16,BN=64", "gemm bf16 n6144 k4096 m<=1")));
  auto rows = db->results();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].key.parameters, "BK=512,BM=16,BN=64"); // in recording order
  EXPECT_DOUBLE_EQ(rows[0].seconds, 2e-4);
  EXPECT_EQ(rows[0].verification, Verification::Proved);
  EXPECT_TRUE(rows[0].measured);
  EXPECT_FALSE(rows[0].recordedAt.empty());
}

TEST_F(TuningDbTest, RecordingACandidateAgainReplacesIt) {
  auto db = openOk();
  ASSERT_TRUE(db);
  ASSERT_EQ(db->record(result("BM=16", 5e-4)), "");
  ASSERT_EQ(db->record(result("BM=16", 4e-4)), "");
  auto rows = db->results();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].seconds, 4e-4);
}

TEST_F(TuningDbTest, BestIsTheFastestProvedCorrectMeasuredCandidate) {
  auto db = openOk();
  ASSERT_TRUE(db);
  const std::string shape = keyOf("").shapeKey;
  EXPECT_FALSE(db->best("qkv", shape).has_value());
  ASSERT_EQ(db->record(result("BM=1", 1e-4, /*measured=*/false)), "");    // modelled: ranks after measured
  ASSERT_EQ(db->record(result("BM=2", 5e-5, true, Verification::Refuted)), ""); // refuted
  ASSERT_EQ(db->record(result("BM=3", 5e-5, true, Verification::Proved, false)), ""); // wrong results
  ASSERT_EQ(db->record(result("BM=4", 3e-4)), "");
  ASSERT_EQ(db->record(result("BM=5", 2e-4)), "");
  auto best = db->best("qkv", shape);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->key.parameters, "BM=5");
  EXPECT_FALSE(db->best("o", shape).has_value());
}

TEST_F(TuningDbTest, KernelsOfTheModelAreKeptAndBestCanBeOfOneTemplate) {
  const std::string shape = keyOf("").shapeKey;
  {
    auto db = openOk();
    ASSERT_TRUE(db);
    ASSERT_EQ(db->record(result("BM=4", 3e-4)), "");
    CandidateResult fromModel = result("BM=4", 1e-4);
    fromModel.key.templatePath = "llm/00000000deadbeef.argus";
    fromModel.key.techniques = "llm:m";
    ASSERT_EQ(db->record(fromModel), "");
    ASSERT_EQ(db->storeSource(fromModel.key.templatePath, "@kernel(grid=(1,))\ndef k():\n    pass\n"), "");
    EXPECT_EQ(db->best("qkv", shape)->key.templatePath, "llm/00000000deadbeef.argus");
    EXPECT_EQ(db->best("qkv", shape, "templates/gemm/gemm_tn.argus")->seconds, 3e-4);
    EXPECT_FALSE(db->best("qkv", shape, "templates/moe/moe_gate_up.argus"));
  }
  auto db = openOk(); // kept across reopening, and exported
  ASSERT_TRUE(db);
  EXPECT_EQ(db->source("llm/00000000deadbeef.argus").value_or(""), "@kernel(grid=(1,))\ndef k():\n    pass\n");
  EXPECT_FALSE(db->source("llm/absent.argus"));
  nlohmann::json doc = nlohmann::json::parse(db->exportJson());
  EXPECT_EQ(doc["kernel_sources"].size(), 1u);
  db.reset();
  DbIdentity newer = kIdentity;
  newer.generatorVersion = "0.2.0";
  db = openOk(newer, /*retune=*/true);
  ASSERT_TRUE(db);
  EXPECT_TRUE(db->sources().empty()) << "retuning discards the kernels with their results";
}

TEST_F(TuningDbTest, AnotherGeneratorTargetDeviceOrKernelBuildIsRefused) {
  {
    auto db = openOk();
    ASSERT_TRUE(db);
    ASSERT_EQ(db->record(result("BM=16", 1e-4)), "");
  }
  DbIdentity newer = kIdentity;
  newer.generatorVersion = "0.2.0";
  std::string error = openError(newer);
  EXPECT_NE(error.find("generator version '0.1.0' (this run: '0.2.0')"), std::string::npos) << error;
  EXPECT_NE(error.find("--retune"), std::string::npos) << error;
  EXPECT_NE(error.find(path), std::string::npos) << error;

  DbIdentity gpu = kIdentity;
  gpu.target = "cuda-sm90a";
  gpu.device = "NVIDIA H100";
  error = openError(gpu);
  EXPECT_NE(error.find("target 'cpu-avx512' (this run: 'cuda-sm90a')"), std::string::npos) << error;
  EXPECT_NE(error.find("device 'Test CPU' (this run: 'NVIDIA H100')"), std::string::npos) << error;

  // Kernels built against other runtime headers (another micro-kernel) time differently.
  DbIdentity otherRuntime = kIdentity;
  otherRuntime.kernelBuild = "fedcba9876543210";
  error = openError(otherRuntime);
  EXPECT_NE(error.find("kernel runtime headers and flags (digest) '0123456789abcdef' (this run: 'fedcba9876543210')"),
            std::string::npos)
      << error;

  // A refused open changes nothing; another toolchain is no reason to refuse.
  DbIdentity otherCompiler = kIdentity;
  otherCompiler.toolchain = "g++ 13";
  auto db = openOk(otherCompiler);
  ASSERT_TRUE(db);
  EXPECT_EQ(db->results().size(), 1u);
}

TEST_F(TuningDbTest, RetuneDiscardsResultsNotesAndAdoptsTheNewIdentity) {
  {
    auto db = openOk();
    ASSERT_TRUE(db);
    ASSERT_EQ(db->record(result("BM=16", 1e-4)), "");
    ASSERT_EQ(db->setNote("machine_peaks", "{}"), "");
  }
  {
    auto db = openOk(); // notes stay with their results
    ASSERT_TRUE(db);
    EXPECT_EQ(db->note("machine_peaks"), "{}");
    EXPECT_EQ(db->note("absent"), "");
  }
  DbIdentity newer = kIdentity;
  newer.generatorVersion = "0.2.0";
  {
    auto db = openOk(newer, /*retune=*/true);
    ASSERT_TRUE(db);
    EXPECT_TRUE(db->results().empty());
    EXPECT_EQ(db->note("machine_peaks"), "") << "notes describe the discarded results";
  }
  auto db = openOk(newer); // no longer refused
  ASSERT_TRUE(db);
  EXPECT_NE(openError(kIdentity).find("generator version '0.2.0'"), std::string::npos);
}

// A writer killed with SIGKILL between two results loses neither the results
// it committed nor the database: it opens again and resumes.
TEST_F(TuningDbTest, SigkillLosesNoCommittedResult) {
  constexpr int committed = 25;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto opened = TuningDb::open(path, kIdentity, false);
    if (!std::holds_alternative<std::unique_ptr<TuningDb>>(opened)) _exit(2);
    auto &db = std::get<std::unique_ptr<TuningDb>>(opened);
    for (int i = 0; i < committed; ++i)
      if (!db->record(result("BM=" + std::to_string(i), 1e-4 * (i + 1))).empty()) _exit(3);
    raise(SIGKILL); // no destructor, no close, no checkpoint
    _exit(4);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child exit status " << status;
  auto db = openOk();
  ASSERT_TRUE(db);
  EXPECT_EQ(db->results().size(), size_t(committed));
  for (int i = 0; i < committed; ++i) EXPECT_TRUE(db->contains(keyOf("BM=" + std::to_string(i)))) << i;
}

TEST_F(TuningDbTest, OpenExistingReadsAnyIdentityAndExports) {
  {
    auto db = openOk();
    ASSERT_TRUE(db);
    CandidateResult r = result("BM=16", 1e-4, false, Verification::Refuted);
    r.detail = "thread 3, element (17, 4), at store line 33";
    ASSERT_EQ(db->record(r), "");
  }
  auto opened = TuningDb::openExisting(path);
  ASSERT_TRUE(std::holds_alternative<std::unique_ptr<TuningDb>>(opened)) << std::get<std::string>(opened);
  auto &db = std::get<std::unique_ptr<TuningDb>>(opened);
  EXPECT_EQ(db->identity().device, "Test CPU");
  EXPECT_EQ(db->identity().toolchain, "g++ 12");
  nlohmann::json doc = nlohmann::json::parse(db->exportJson());
  EXPECT_EQ(doc.at("target"), "cpu-avx512");
  ASSERT_EQ(doc.at("results").size(), 1u);
  EXPECT_EQ(doc["results"][0].at("verification"), "refuted");
  EXPECT_EQ(doc["results"][0].at("detail"), "thread 3, element (17, 4), at store line 33");
  EXPECT_EQ(doc["results"][0].at("measured"), false);
}

TEST_F(TuningDbTest, FilesThatAreNotTuningDatabasesAreClearErrors) {
  auto missing = TuningDb::openExisting((dir / "absent.db").string());
  ASSERT_TRUE(std::holds_alternative<std::string>(missing));
  EXPECT_NE(std::get<std::string>(missing).find("cannot open tuning database"), std::string::npos);

  std::ofstream(path) << "name: not a database\n";
  auto text = TuningDb::openExisting(path);
  ASSERT_TRUE(std::holds_alternative<std::string>(text));
  EXPECT_NE(std::get<std::string>(text).find("is not an Argus tuning database"), std::string::npos)
      << std::get<std::string>(text);
  std::string error = openError(kIdentity);
  EXPECT_NE(error.find("tuning database '" + path + "'"), std::string::npos) << error;
}

} // namespace
