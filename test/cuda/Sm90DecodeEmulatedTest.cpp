// The Hopper paged decode attention kernel (dist/runtime/cuda/argus_sm90_decode_kernel.h), its own
// source run by the cluster emulator, against the float64 reference (decode_problem.h): GQA groups
// of 1, 4 and 8, head dims 64, 128, 256 and 192/128 (multi-head latent attention), pages of 1, 16
// and 64 scattered in random order, sequences empty, shorter than a chunk and long enough that
// every warp of a cluster walks several chunks, on clusters of 1, 2, 4 and 8 CTAs; bf16 and f16.
#include "argus_cuda_emulator.h"
#include "argus_sm90_decode_kernel.h"
#include "decode_problem.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace argus::cuda;
using argus::gpu::test::ClampedSeqlens;
using argus::gpu::test::clampedSeqlens;
using argus::gpu::test::DecodeData;
using argus::gpu::test::DecodeProblem;

namespace {

DecodeParams paramsOf(const DecodeProblem &p, DecodeData &d) {
  return {d.q.data(), d.kCache.data(), d.vCache.data(), d.blockTable.data(), d.seqlens.data(), d.o.data(),
          p.maxPagesPerSeq(), p.heads, p.kvHeads, p.headDim, p.valueDim, p.pageSize,
          p.effectiveScale() * float(M_LOG2E)};
}

// The launch argus_attention_decode makes: grid (cluster, KV heads, sequences), clusters along x.
template <class E>
void emulate(const DecodeParams &params, int batch, int cluster) {
  emu::Launch launch;
  launch.gridX = cluster, launch.gridY = params.kvHeads, launch.gridZ = batch;
  launch.threads = kDecodeWarps * kWarpSize;
  launch.clusterX = cluster;
  launch.sharedBytes = decodeSharedLayout(decodeGroupBound(params.heads / params.kvHeads), params.headDim,
                                          params.valueDim, kDecodeWarps)
                           .bytes();
  emu::run(launch, [&] { decodeAttentionAnyGroup<E, kDecodeWarps>(params); });
}

void check(const DecodeProblem &p, unsigned seed, int cluster, bool junkPastContexts = false) {
  SCOPED_TRACE("cluster of " + std::to_string(cluster) + " CTAs");
  std::mt19937 rng(seed);
  DecodeData data(p, rng);
  if (junkPastContexts)
    argus::gpu::test::fillPastContexts(p, data);
  if (p.f16)
    emulate<F16>(paramsOf(p, data), p.batch(), cluster);
  else
    emulate<Bf16>(paramsOf(p, data), p.batch(), cluster);
  EXPECT_EQ(argus::gpu::test::compareWithFloat64(p, data), "");
}

TEST(Sm90DecodeEmulated, GroupedHeadsOverScatteredPages) {
  for (int cluster : {1, 2, 4, 16})
    check({8, 2, 128, 128, 16, {0, 1, 77, 1100}, 0.0f}, 1, cluster);
}

TEST(Sm90DecodeEmulated, GroupOfEightSmallHeadsPageOfOne) {
  check({16, 2, 64, 64, 1, {5, 130, 0}, 0.3f}, 2, 8);
}

TEST(Sm90DecodeEmulated, LatentAttentionWidthsOneHeadPerGroup) {
  check({4, 4, 192, 128, 64, {900, 63}, 0.0f}, 3, 2);  // 2 chunks per warp: the online rescale
}

// Groups of 3 and 6 heads run the kernels of 4 and 8: their padding rows of q are zeros, and
// nothing of theirs may reach o (the neighbouring KV head's outputs sit there).
TEST(Sm90DecodeEmulated, GroupsBetweenTheBoundsPadWithZeroRows) {
  check({12, 4, 128, 128, 16, {300, 41}, 0.0f}, 6, 2);
  check({12, 2, 64, 64, 16, {200, 1}, 0.0f}, 7, 1);
}

TEST(Sm90DecodeEmulated, HalfPrecision) {
  DecodeProblem p{8, 2, 128, 128, 16, {0, 1, 77, 1100}, 0.0f};
  p.f16 = true;
  check(p, 5, 2);
}

TEST(Sm90DecodeEmulated, WidestHeadsAndValues) {
  check({8, 1, 256, 256, 16, {520, 31}, 0.0f}, 4, 4);
}

// More CTAs than the sequence has chunks: most warps get none, and their empty partials must
// weigh nothing in either merge.
TEST(Sm90DecodeEmulated, ClusterLargerThanTheWork) {
  check({4, 1, 128, 128, 16, {33, 2}, 0.0f}, 5, 8);
}

// Slots past the contexts may hold NaN and infinities; they must not reach o.
TEST(Sm90DecodeEmulated, JunkPastTheContextsIsNeverRead) {
  check({8, 2, 128, 128, 16, {1, 77, 0, 300}, 0.0f}, 8, 2, /*junkPastContexts=*/true);
}

// seqlens beyond what the block table addresses are clamped to it (as the CPU runtime does),
// negative ones read nothing: no read past a sequence's table row.
TEST(Sm90DecodeEmulated, SeqlensBeyondTheBlockTableAreClamped) {
  const DecodeProblem p{4, 2, 64, 64, 16, {40, 3}, 0.0f};
  std::mt19937 rng(9);
  ClampedSeqlens c = clampedSeqlens(p, rng);
  for (DecodeData *d : {&c.expected, &c.data})
    emulate<Bf16>(paramsOf(p, *d), p.batch(), 2);
  EXPECT_EQ(c.data.o, c.expected.o);
}

TEST(Sm90DecodeClusterRule, GrowsWhileSmsIdleAndEveryWarpHasTwoChunks) {
  // One sequence, 8 KV heads, a long context: Hopper's non-portable maximum, or the portable one
  // where the GPU cannot schedule 16-CTA clusters.
  EXPECT_EQ(decodeClusterSize(8, 16384, 132), 16);
  EXPECT_EQ(decodeClusterSize(8, 16384, 132, kPortableDecodeCluster), 8);
  // Enough (sequence, head) pairs to fill the GPU: no split.
  EXPECT_EQ(decodeClusterSize(256, 16384, 132), 1);
  // 32 pairs: doubling stops once 4 x 32 = 128 < 132 < 8 x 32.
  EXPECT_EQ(decodeClusterSize(32, 16384, 132), 8);
  EXPECT_EQ(decodeClusterSize(64, 16384, 132), 4);
  // A short context keeps a small cluster: 2 CTAs x 8 warps x 2 chunks of 32 tokens = 1024 tokens.
  EXPECT_EQ(decodeClusterSize(8, 1024, 132), 2);
  EXPECT_EQ(decodeClusterSize(8, 1023, 132), 1);
}

} // namespace
