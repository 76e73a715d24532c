// The Hopper prefill attention kernel (dist/runtime/cuda/argus_sm90_prefill_kernel.h), its own source
// run by the cluster emulator (mma.sync with the PTX fragment layouts), against the float64
// reference (prefill_problem.h): varlen batches with empty sequences, more keys than queries and
// fewer, causal and not, GQA, head dims 64/64, 128/128 and 192/128 (multi-head latent attention),
// lengths off every tile.
#include "argus_cuda_emulator.h"
#include "argus_sm90_prefill_kernel.h"
#include "prefill_problem.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace argus::cuda;
using argus::gpu::test::PrefillData;
using argus::gpu::test::PrefillProblem;

namespace {

template <int D, int DV>
void check(const PrefillProblem &p, unsigned seed) {
  ASSERT_EQ(p.headDim, D);
  ASSERT_EQ(p.valueDim, DV);
  std::mt19937 rng(seed);
  PrefillData data(p, rng);
  const PrefillParams params{data.q.data(),          data.k.data(),           data.v.data(), data.o.data(),
                             data.cuSeqlensQ.data(), data.cuSeqlensKv.data(), p.heads,       p.kvHeads,
                             p.headDim,              p.valueDim,              p.causal ? 1 : 0,
                             p.effectiveScale() * float(M_LOG2E)};
  emu::Launch launch;
  launch.gridX = (p.maxSeqQ() + kPrefillRows - 1) / kPrefillRows, launch.gridY = p.heads, launch.gridZ = p.batch();
  launch.threads = kPrefillWarps * kWarpSize;
  launch.sharedBytes = prefillSharedBytes(D, DV);
  emu::run(launch, [&] { prefillAttention<D, DV>(params); });
  EXPECT_EQ(argus::gpu::test::compareWithFloat64(p, data), "");
}

TEST(Sm90PrefillEmulated, CausalVarlenGroupedHeads) {
  check<128, 128>({4, 1, 128, 128, true, {{130, 130}, {0, 0}, {5, 77}, {70, 20}}, 0.0f}, 1);
}

TEST(Sm90PrefillEmulated, NotCausalSmallHeads) {
  check<64, 64>({2, 2, 64, 64, false, {{33, 200}, {129, 65}}, 0.2f}, 2);
}

TEST(Sm90PrefillEmulated, LatentAttentionWidths) {
  check<192, 128>({2, 2, 192, 128, true, {{40, 100}, {64, 64}}, 0.0f}, 3);
}

} // namespace
