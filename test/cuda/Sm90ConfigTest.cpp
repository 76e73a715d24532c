// chooseGemmConfig (dist/runtime/cuda/argus_sm90_schedule.h) against the H100 sweep it was fitted
// to (bench/results/cuda-gemm-h100.jsonl): for every catalog shape of that run, the configuration
// the rule picks must have been measured, been correct, and be close to the fastest one measured.
// In-sample by construction; it guards the rule against edits that drift from the measurements.
#include "argus_sm90_schedule.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

using namespace argus::sm90;

namespace {

// The benchmark's name for a configuration (bench/cuda/gemm_sm90_bench.cu).
std::string benchName(const GemmConfig &c) {
  return std::string("argus_") + (c.persistent ? "p_" : "k_") + std::to_string(c.bm) + "x" + std::to_string(c.bn) +
         "_s" + std::to_string(c.stages) + (c.split > 1 ? "_k" + std::to_string(c.split) : "");
}

TEST(Sm90Config, ReproducesTheH100Sweep) {
  std::ifstream in(std::string(ARGUS_SOURCE_DIR) + "/bench/results/cuda-gemm-h100.jsonl");
  ASSERT_TRUE(in) << "bench/results/cuda-gemm-h100.jsonl is missing";
  int multiprocessors = 0;
  using Shape = std::tuple<int, int, int>;
  std::map<Shape, std::map<std::string, double>> seconds;  // correct Argus configurations only
  for (std::string line; std::getline(in, line);) {
    const auto row = nlohmann::json::parse(line);
    if (row.contains("sms")) {
      multiprocessors = row["sms"];
      continue;
    }
    const std::string group = row["group"], impl = row["impl"];
    if (group == "ragged" || impl == "cublas" || !row["correct"].get<bool>())
      continue;
    seconds[{row["m"], row["n"], row["k"]}][impl] = row["seconds"];
  }
  ASSERT_EQ(multiprocessors, 132);
  ASSERT_GE(seconds.size(), 100u);

  double logLoss = 0;
  for (const auto &[shape, times] : seconds) {
    const auto [m, n, k] = shape;
    const std::string pick = benchName(chooseGemmConfig(m, n, multiprocessors));
    const auto found = times.find(pick);
    ASSERT_NE(found, times.end()) << pick << " was not measured (or failed) at " << m << "x" << n << "x" << k;
    double best = found->second;
    for (const auto &[impl, t] : times)
      best = std::min(best, t);
    const double loss = found->second / best;
    EXPECT_LE(loss, 1.10) << m << "x" << n << "x" << k << ": " << pick;
    logLoss += std::log(loss);
  }
  EXPECT_LE(std::exp(logLoss / seconds.size()), 1.02) << "geometric mean of time over the best measured";
}

TEST(Sm90Config, RegimesOfTheRule) {
  const GemmConfig bigDecode = chooseGemmConfig(1, 128256, 132);  // lm_head: 1002 column tiles
  EXPECT_TRUE(bigDecode.persistent);
  EXPECT_EQ(bigDecode.bm, 64);
  const GemmConfig smallDecode = chooseGemmConfig(8, 1280, 132);  // 10 column tiles
  EXPECT_FALSE(smallDecode.persistent);
  EXPECT_EQ(smallDecode.split, 8);
  const GemmConfig fewTiles = chooseGemmConfig(512, 1280, 132);
  EXPECT_FALSE(fewTiles.persistent);
  EXPECT_EQ(fewTiles.split, 2);
  const GemmConfig cube = chooseGemmConfig(8192, 8192, 132);
  EXPECT_TRUE(cube.persistent);
  EXPECT_EQ(cube.bm, 128);
}

}  // namespace
