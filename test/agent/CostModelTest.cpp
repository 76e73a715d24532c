//===- CostModelTest.cpp - the roofline model and its calibration ---------===//
#include "argus/Agent/CostModel.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace argus::agent;

namespace {

Space gemmSpace() {
  Space s;
  s.name = "g";
  s.family = "gemm";
  s.parameters = {{"BM", {1, 2, 4, 8, 16, 32, 64, 128}}, {"BN", {16, 32, 64, 128, 256}}, {"BK", {32, 64, 128, 256}}};
  return s;
}

Features gemm(double m, double n, double k) { return {{"M", m}, {"N", n}, {"K", k}, {"ELEM", 2}, {"THREADS", 2}}; }

const Roofs kRoofs{500e9, 50e9, 2};

} // namespace

TEST(CostModel, DecodeIsBoundByTheWeightStreamAndPrefillByCompute) {
  CostModel model(kRoofs);
  Space s = gemmSpace();
  // M = 1: the N x K bf16 weights at the bandwidth dominate.
  double decode = model.seconds(s, gemm(1, 4096, 4096), {{"BM", 1}, {"BN", 64}, {"BK", 256}});
  double weights = 4096.0 * 4096 * 2 / 50e9;
  EXPECT_GT(decode, weights);
  EXPECT_LT(decode, 1.2 * weights);
  // M = 4096: flops at (a fraction of) peak, and never under the floor.
  Features big = gemm(4096, 4096, 4096);
  double prefill = model.seconds(s, big, {{"BM", 64}, {"BN", 128}, {"BK", 256}});
  EXPECT_GT(prefill, 2.0 * 4096 * 4096 * 4096 / 500e9);
  EXPECT_GE(prefill, model.floorSeconds(s, big));
  EXPECT_LT(prefill, 2 * model.floorSeconds(s, big));
}

TEST(CostModel, TileTermsRankTheObviousCases) {
  CostModel model(kRoofs);
  Space s = gemmSpace();
  Features f = gemm(512, 4096, 4096);
  // One-row tiles reread the weights 512 times.
  EXPECT_GT(model.seconds(s, f, {{"BM", 1}, {"BN", 64}, {"BK", 256}}),
            4 * model.seconds(s, f, {{"BM", 32}, {"BN", 64}, {"BK", 256}}));
  // Rows beyond M are wasted work: a 128-row tile for 17 rows.
  Features ragged = gemm(17, 4096, 4096);
  ragged["THREADS"] = 1;
  Roofs computeBound{500e9, 5e12, 1};
  CostModel fast(computeBound);
  EXPECT_GT(fast.seconds(s, ragged, {{"BM", 128}, {"BN", 64}, {"BK", 256}}),
            fast.seconds(s, ragged, {{"BM", 32}, {"BN", 64}, {"BK", 256}}));
}

TEST(CostModel, CalibrationRecoversTheMachine) {
  // Measurements from a machine with 40% of the assumed compute and 70% of
  // the bandwidth: the calibrated model predicts them.
  Space s = gemmSpace();
  CostModel truth(Roofs{0.4 * 500e9, 0.7 * 50e9, 2});
  std::vector<Sample> samples;
  for (double m : {1.0, 16.0, 512.0, 2048.0})
    for (int64_t bm : {1, 16, 64})
      for (int64_t bn : {32, 128})
        if (bm <= 2 * m) {
          Point p = {{"BM", bm}, {"BN", bn}, {"BK", 128}};
          samples.push_back({&s, gemm(m, 4096, 4096), p, truth.seconds(s, gemm(m, 4096, 4096), p)});
        }
  CostModel model(kRoofs);
  double before = 0;
  for (const Sample &x : samples) before = std::max(before, std::abs(std::log(model.seconds(s, x.features, x.point) / x.seconds)));
  EXPECT_GT(before, 0.3);
  double rms = model.calibrate(samples);
  EXPECT_LT(rms, 0.02);
  EXPECT_EQ(model.calibratedOn(), int(samples.size()));
  Point unseen = {{"BM", 32}, {"BN", 64}, {"BK", 256}};
  Features f = gemm(300, 4096, 4096);
  EXPECT_NEAR(std::log(model.seconds(s, f, unseen) / truth.seconds(s, f, unseen)), 0, 0.05);
}

TEST(CostModel, AttentionCountsCausalBlocks) {
  Space s;
  s.name = "a";
  s.family = "attention";
  s.parameters = {{"BQ", {16, 32, 64, 128}}, {"BKV", {32, 64, 128, 256}}};
  CostModel model(kRoofs);
  Features f = {{"SQ", 1024}, {"SKV", 1024}, {"D", 128}, {"GROUP", 4}, {"ELEM", 2}, {"THREADS", 2}};
  double t = model.seconds(s, f, {{"BQ", 64}, {"BKV", 64}});
  EXPECT_GE(t, model.floorSeconds(s, f));
  // Very short key blocks pay per-block costs.
  EXPECT_GT(model.seconds(s, f, {{"BQ", 64}, {"BKV", 32}}), model.seconds(s, f, {{"BQ", 64}, {"BKV", 128}}));
}
