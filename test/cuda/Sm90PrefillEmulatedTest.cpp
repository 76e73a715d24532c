// The Hopper prefill attention kernels, their own source run by the cluster emulator against the
// float64 reference (prefill_problem.h): varlen batches with empty sequences, more keys than queries
// and fewer, causal and not, GQA, lengths off every tile; bf16 and f16 (f16 to its own, tighter bound).
//   mma.sync   argus_sm90_prefill_kernel.h (FlashAttention-2's schedule): head dims 64/64, 128/128
//              and 192/128 (multi-head latent attention);
//   wgmma      argus_sm90_prefill_wgmma_kernel.h (FlashAttention-3's structure: a producer
//              warpgroup's TMA ring and V transposition, two consumer warpgroups' wgmmas with P in
//              registers) on the emulator's model of TMA, mbarriers and wgmma: head dims 64 and 128,
//              blocks reading past their sequence into the next one and past the packed tensor.
#include "argus_cuda_emulator.h"
#include "argus_sm90_prefill_kernel.h"
#include "argus_sm90_prefill_wgmma_kernel.h"
#include "prefill_problem.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace argus::cuda;
using argus::gpu::test::PrefillData;
using argus::gpu::test::PrefillProblem;

namespace {

PrefillParams paramsOf(const PrefillProblem &p, PrefillData &data) {
  return {data.q.data(),          data.k.data(),           data.v.data(), data.o.data(),
          data.cuSeqlensQ.data(), data.cuSeqlensKv.data(), p.heads,       p.kvHeads,
          p.headDim,              p.valueDim,              p.causal ? 1 : 0,
          p.effectiveScale() * float(M_LOG2E)};
}

template <class E, int D, int DV>
void checkMmaSync(const PrefillProblem &p, unsigned seed) {
  ASSERT_EQ(p.headDim, D);
  ASSERT_EQ(p.valueDim, DV);
  std::mt19937 rng(seed);
  PrefillData data(p, rng);
  const PrefillParams params = paramsOf(p, data);
  emu::Launch launch;
  launch.gridX = (p.maxSeqQ() + kPrefillRows - 1) / kPrefillRows, launch.gridY = p.heads, launch.gridZ = p.batch();
  launch.threads = kPrefillWarps * kWarpSize;
  launch.sharedBytes = prefillSharedBytes(D, DV);
  emu::run(launch, [&] { prefillAttention<E, D, DV>(params); });
  EXPECT_EQ(argus::gpu::test::compareWithFloat64(p, data), "");
}

// The wgmma kernel, its threads scheduled in index order, from the last down (the consumers before
// the producer) or shuffled every round; it must be right under each.
template <class E, int D, int DV>
void checkWgmma(const PrefillProblem &p, unsigned seed, unsigned schedule) {
  ASSERT_EQ(p.headDim, D);
  ASSERT_EQ(p.valueDim, DV);
  std::mt19937 rng(seed);
  PrefillData data(p, rng);
  const uint64_t totalQ = uint64_t(data.cuSeqlensQ.back()), totalKv = uint64_t(data.cuSeqlensKv.back());
  const uint64_t qWidth = uint64_t(p.heads) * D, kWidth = uint64_t(p.kvHeads) * D, vWidth = uint64_t(p.kvHeads) * DV;
  CUtensorMap mapQ, mapK, mapV;  // the packed tensors, 128-byte-wide boxes of 64 rows
  emu::encodeTensorMap2d(&mapQ, data.q.data(), 2, qWidth, totalQ, qWidth * 2, 64, 64, true);
  emu::encodeTensorMap2d(&mapK, data.k.data(), 2, kWidth, totalKv, kWidth * 2, 64, 64, true);
  emu::encodeTensorMap2d(&mapV, data.v.data(), 2, vWidth, totalKv, vWidth * 2, 64, 64, true);
  const PrefillParams params = paramsOf(p, data);
  emu::Launch launch;
  launch.gridX = (p.maxSeqQ() + argus::sm90::kWgPrefillRows - 1) / argus::sm90::kWgPrefillRows;
  launch.gridY = p.heads, launch.gridZ = p.batch();
  launch.threads = argus::sm90::kWgPrefillThreads;
  launch.sharedBytes = argus::sm90::WgPrefillLayout<D, DV>::kBytes;
  launch.schedule = schedule;
  emu::run(launch, [&] { argus::sm90::prefillWgmma<E, D, DV>(mapQ, mapK, mapV, params); });
  EXPECT_EQ(argus::gpu::test::compareWithFloat64(p, data), "") << "schedule " << schedule;
}

// Both kernels, where the wgmma one takes the head dims, in bf16; and once more in f16 (in index order).
template <int D, int DV>
void check(PrefillProblem p, unsigned seed) {
  checkMmaSync<Bf16, D, DV>(p, seed);
  if constexpr (D <= 128) {
    for (unsigned schedule : {0u, 1u, 7u})  // 7: the fourth warp, a producer one, lags
      checkWgmma<Bf16, D, DV>(p, seed, schedule);
  }
  p.f16 = true;
  checkMmaSync<F16, D, DV>(p, seed + 100);
  if constexpr (D <= 128)
    checkWgmma<F16, D, DV>(p, seed + 100, 0);
}

TEST(Sm90PrefillEmulated, CausalVarlenGroupedHeads) {
  check<128, 128>({4, 1, 128, 128, true, {{130, 130}, {0, 0}, {5, 77}, {70, 20}}, 0.0f}, 1);
}

TEST(Sm90PrefillEmulated, NotCausalSmallHeads) {
  check<64, 64>({2, 2, 64, 64, false, {{33, 200}, {129, 65}}, 0.2f}, 2);
}

TEST(Sm90PrefillEmulated, CausalLongerThanOneCta) {
  check<64, 64>({2, 1, 64, 64, true, {{300, 300}, {140, 260}}, 0.0f}, 4);
}

TEST(Sm90PrefillEmulated, LatentAttentionWidths) {
  check<192, 128>({2, 2, 192, 128, true, {{40, 100}, {64, 64}}, 0.0f}, 3);
}

} // namespace
