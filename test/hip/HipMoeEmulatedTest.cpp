// The CDNA MoE pipeline (dist/runtime/hip/argus_hip_moe_kernel.h: route, align, gate_up, down,
// combine), its own source run by the wave emulator launch by launch as argus_moe issues them
// (moeLaunches), against the float64 reference (moe_problem.h): experts that get no token, one
// that gets every token, tied logits, 8 to 256 experts, top-1 to top-8, renormalised or not, intermediate
// and hidden sizes that are not multiples of the tiles.
#include "emulated_kernels.h"
#include "moe_problem.h"

#include "argus_hip_moe_params.h"

#include <gtest/gtest.h>

#include <vector>

using namespace argus::hip;

namespace {

void check(const argus::gpu::test::MoeProblem &p, unsigned seed) {
  std::mt19937 rng(seed);
  argus::gpu::test::MoeData data(p, rng);
  argus::gpu::test::MoeWorkspace workspace(p, data);
  MoeParams params = workspace.params;
  MoeLaunch launches[5];
  moeLaunches(params, launches);
  void *arguments[] = {&params};
  for (const MoeLaunch &l : launches)
    ASSERT_TRUE(test::emulateKernel(l.kernel, int(l.gridX), int(l.gridY), 1, arguments)) << l.kernel;
  EXPECT_EQ(argus::gpu::test::compareWithFloat64(p, data), "");
}

TEST(HipMoeEmulated, MixtralLikeTopTwoOfEight) {
  check({37, 128, 96, 8, 2, true}, 1);
}

TEST(HipMoeEmulated, OneTokenLeavesMostExpertsEmpty) {
  check({1, 64, 40, 8, 2, false}, 2);
}

TEST(HipMoeEmulated, EveryTokenToOneExpert) {
  check({70, 72, 64, 8, 2, true, 3}, 3);
}

TEST(HipMoeEmulated, QwenLikeTopEightOfManyExperts) {
  check({5, 64, 32, 128, 8, true}, 4);
}

TEST(HipMoeEmulated, TiedLogitsGoToTheLowerExpert) {
  check({24, 64, 32, 16, 4, false, -1, true}, 6);
}

TEST(HipMoeEmulated, TheMostExpertsTopOne) {
  check({9, 64, 64, 256, 1, false}, 5);
}

} // namespace
