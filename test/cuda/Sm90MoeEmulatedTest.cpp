// The Hopper MoE pipeline (dist/runtime/cuda/argus_sm90_moe_kernel.h: route, align, gate_up, down,
// combine), its own source run by the cluster emulator launch by launch as argus_moe issues them
// (moeLaunches), against the float64 reference (moe_problem.h): experts that get no token, one that
// gets every token (several blocks of one expert), tied logits, 8 to 256 experts, top-1 to top-8,
// renormalised or not, hidden and intermediate sizes off the 64- and 128-column tiles and the
// 64-wide K steps.
#include "argus_cuda_emulator.h"
#include "argus_sm90_moe_kernel.h"
#include "moe_problem.h"

#include <gtest/gtest.h>

using namespace argus::cuda;
using argus::gpu::test::MoeProblem;

namespace {

void runStage(MoeStage stage, const MoeParams &p) {
  switch (stage) {
  case MoeStage::Route: return moeRoute(p);
  case MoeStage::Align: return moeAlign(p);
  case MoeStage::GateUp: return moeGateUp(p);
  case MoeStage::Down: return moeDown(p);
  case MoeStage::Combine: return moeCombine(p);
  }
}

void check(const MoeProblem &p, unsigned seed) {
  std::mt19937 rng(seed);
  argus::gpu::test::MoeData data(p, rng);
  argus::gpu::test::MoeWorkspace workspace(p, data);
  MoeLaunch launches[kMoeStages];
  moeLaunches(workspace.params, launches);
  for (const MoeLaunch &l : launches) {
    emu::Launch launch;
    launch.gridX = int(l.gridX), launch.gridY = int(l.gridY);
    launch.threads = int(l.threads);
    launch.sharedBytes = int(l.sharedBytes);
    emu::run(launch, [&] { runStage(l.stage, workspace.params); });
  }
  EXPECT_EQ(argus::gpu::test::compareWithFloat64(p, data), "");
}

TEST(Sm90MoeEmulated, MixtralLikeTopTwoOfEight) {
  check({45, 136, 104, 8, 2, true}, 11);
}

TEST(Sm90MoeEmulated, OneTokenLeavesMostExpertsEmpty) {
  check({1, 72, 24, 8, 2, true}, 12);
}

TEST(Sm90MoeEmulated, EveryTokenToOneExpertFillsSeveralBlocks) {
  check({80, 64, 72, 8, 2, false, 5}, 13);
}

TEST(Sm90MoeEmulated, QwenLikeTopEightOfManyExperts) {
  check({6, 80, 40, 128, 8, true}, 14);
}

TEST(Sm90MoeEmulated, TiedLogitsGoToTheLowerExpert) {
  check({20, 64, 48, 32, 4, true, -1, true}, 15);
}

TEST(Sm90MoeEmulated, TheMostExpertsTopOne) {
  check({7, 64, 32, 256, 1, false}, 16);
}

} // namespace
