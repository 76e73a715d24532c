//===- MeasureTest.cpp - the sweep's measuring harnesses -------------------===//
//
// Hand-written f32 GEMM kernels in the CPU calling convention, each with one
// defect, go through measureGemms (sampled rows) and measureKernels (any
// kernel naming a reference, checked in full): a correct one is timed; a
// wrong element, an unwritten row, a changed input, a crash and a hang each
// become that probe's failure, and the probes after them are still measured.
//
//===----------------------------------------------------------------------===//
#include "argus/Emit/Compiler.h"
#include "argus/Tuning/GemmMeasure.h"
#include "argus/Tuning/KernelMeasure.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace argus;
using namespace argus::tuning;

namespace {

// C = A·Bᵀ + bias for f32 (args: A, B, C, bias, alpha, beta, has_bias), then
// each DEFECT_* macro breaks it one way.
constexpr const char *kKernels = R"cpp(
#include "argus_cpu_abi.h"
#include <csignal>
#include <unistd.h>
static void gemm(const argus_cpu_arg *args, int64_t rows) {
  const argus_cpu_tensor &A = args[0].tensor, &B = args[1].tensor, &C = args[2].tensor, &bias = args[3].tensor;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < B.shape[0]; ++j) {
      float sum = 0;
      for (int64_t k = 0; k < A.shape[1]; ++k)
        sum += ((const float *)A.data)[i * A.stride[0] + k] * ((const float *)B.data)[j * B.stride[0] + k];
      ((float *)C.data)[i * C.stride[0] + j] = sum * float(args[4].f) + ((const float *)bias.data)[j];
    }
}
extern "C" void good(const argus_cpu_arg *args, int) { gemm(args, args[0].tensor.shape[0]); }
extern "C" void wrong(const argus_cpu_arg *args, int) {
  gemm(args, args[0].tensor.shape[0]);
  ((float *)args[2].tensor.data)[args[2].tensor.stride[0] * (args[0].tensor.shape[0] - 1) + 3] += 1.0f;
}
extern "C" void short_rows(const argus_cpu_arg *args, int) { gemm(args, args[0].tensor.shape[0] - 1); }
extern "C" void crash(const argus_cpu_arg *, int) { raise(SIGSEGV); }
extern "C" void changes_input(const argus_cpu_arg *args, int) {
  gemm(args, args[0].tensor.shape[0]);
  ((float *)args[1].tensor.data)[5] = 0.5f;
}
extern "C" void hang(const argus_cpu_arg *, int) { for (;;) pause(); }
)cpp";

class MeasureTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("argus-measure-" + std::to_string(getpid()));
    fs::create_directories(dir);
    fs::path src = dir / "kernels.cpp";
    std::ofstream(src) << kKernels;
    library = (dir / "kernels.so").string();
    std::string output;
    ASSERT_EQ(emit::runCommand({emit::cxxCompiler(), "-O1", "-fPIC", "-shared", "-I" ARGUS_SOURCE_DIR "/dist/runtime/cpu",
                                src.string(), "-o", library},
                               output),
              0)
        << output;
  }
  void TearDown() override { fs::remove_all(dir); }

  std::vector<Measurement> measure(const std::vector<std::string> &symbols, int64_t m, double timeout = 60) {
    std::vector<GemmProbe> probes;
    for (const std::string &s : symbols) probes.push_back({library, s, m});
    std::vector<Measurement> results;
    MeasureOptions opt;
    opt.timeoutSeconds = timeout;
    std::string error = measureGemms(37, 45, {"f32", "f32"}, probes, opt, [&](size_t i, const Measurement &r) {
      EXPECT_EQ(i, results.size()) << "results arrive in probe order";
      results.push_back(r);
    });
    EXPECT_EQ(error, "");
    return results;
  }

  fs::path dir;
  std::string library;
};

TEST_F(MeasureTest, CorrectKernelIsTimed) {
  auto r = measure({"good"}, 13);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].correct) << r[0].detail;
  EXPECT_GT(r[0].seconds, 0);
  EXPECT_LT(r[0].maxError, 1e-5);
}

TEST_F(MeasureTest, DefectsAreFailuresOfTheirOwnProbe) {
  auto r = measure({"wrong", "good", "short_rows", "crash", "good", "missing_symbol", "good"}, 9);
  ASSERT_EQ(r.size(), 7u);
  EXPECT_FALSE(r[0].correct);
  EXPECT_NE(r[0].detail.find("C[8, 3] at m = 9: expected"), std::string::npos) << r[0].detail;
  EXPECT_TRUE(r[1].correct) << r[1].detail;
  EXPECT_FALSE(r[2].correct);
  EXPECT_NE(r[2].detail.find("37 of 333 output elements never written"), std::string::npos) << r[2].detail;
  EXPECT_FALSE(r[3].correct);
  EXPECT_NE(r[3].detail.find("crashed at m = 9 (killed by signal"), std::string::npos) << r[3].detail;
  EXPECT_TRUE(r[4].correct) << "the probe after a crash runs in a new process: " << r[4].detail;
  EXPECT_FALSE(r[5].correct);
  EXPECT_NE(r[5].detail.find("cannot load the candidate"), std::string::npos) << r[5].detail;
  EXPECT_TRUE(r[6].correct) << r[6].detail;
  for (int i : {0, 2, 3, 5}) EXPECT_EQ(r[i].seconds, 0) << "a failed probe has no time";
}

TEST_F(MeasureTest, HangIsKilledAfterTheTimeout) {
  auto r = measure({"hang", "good"}, 4, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_FALSE(r[0].correct);
  EXPECT_NE(r[0].detail.find("ran longer than 2 s"), std::string::npos) << r[0].detail;
  EXPECT_TRUE(r[1].correct) << r[1].detail;
}

/// The same kernels through the harness, as reference "gemm_tn" (f32, 9 x 37 x 45).
std::vector<Measurement> measureWithHarness(const std::string &library, const std::vector<std::string> &symbols,
                                            double timeout = 60) {
  auto matrix = [](const char *name, int64_t rows, int64_t cols) {
    return ref::HarnessArg{name, true, ref::ElementType::F32, {rows, cols}, 0};
  };
  std::vector<ref::HarnessArg> args = {matrix("A", 9, 45), matrix("B", 37, 45), matrix("C", 9, 37),
                                       {"bias", true, ref::ElementType::F32, {37}, 0},
                                       {"alpha", false, ref::ElementType::F32, {}, 1.0},
                                       {"beta", false, ref::ElementType::F32, {}, 0.0},
                                       {"has_bias", false, ref::ElementType::I32, {}, 1.0}};
  std::vector<KernelProbe> probes;
  for (const std::string &s : symbols) probes.push_back({library, s});
  MeasureOptions opt;
  opt.timeoutSeconds = timeout;
  std::vector<Measurement> results;
  std::string error = measureKernels(*ref::findReference("gemm_tn"), args, probes, opt,
                                     [&](size_t i, const Measurement &r) {
                                       EXPECT_EQ(i, results.size()) << "results arrive in order";
                                       results.push_back(r);
                                     });
  EXPECT_EQ(error, "");
  return results;
}

TEST_F(MeasureTest, HarnessChecksEveryTensorAndResetsInputs) {
  auto r = measureWithHarness(library, {"good", "wrong", "short_rows", "changes_input", "good", "crash", "good"});
  ASSERT_EQ(r.size(), 7u);
  EXPECT_TRUE(r[0].correct) << r[0].detail;
  EXPECT_GT(r[0].seconds, 0);
  EXPECT_FALSE(r[1].correct);
  EXPECT_NE(r[1].detail.find("C[8, 3]: expected"), std::string::npos) << r[1].detail;
  EXPECT_FALSE(r[2].correct);
  EXPECT_NE(r[2].detail.find("37 elements of C never written"), std::string::npos) << r[2].detail;
  EXPECT_FALSE(r[3].correct);
  EXPECT_NE(r[3].detail.find("B[0, 5]: expected"), std::string::npos) << "inputs must come back unchanged: "
                                                                      << r[3].detail;
  EXPECT_TRUE(r[4].correct) << "inputs are reset after a kernel that changed them: " << r[4].detail;
  EXPECT_FALSE(r[5].correct);
  EXPECT_NE(r[5].detail.find("the candidate crashed (killed by signal"), std::string::npos) << r[5].detail;
  EXPECT_TRUE(r[6].correct) << r[6].detail;
  for (int i : {1, 2, 3, 5}) EXPECT_EQ(r[i].seconds, 0) << "a failed probe has no time";
}

TEST_F(MeasureTest, HarnessKillsAHang) {
  auto r = measureWithHarness(library, {"hang", "good"}, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NE(r[0].detail.find("ran longer than 2 s"), std::string::npos) << r[0].detail;
  EXPECT_TRUE(r[1].correct) << r[1].detail;
}

} // namespace
