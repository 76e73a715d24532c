// The CDNA paged decode attention kernel (dist/runtime/hip/argus_hip_decode_kernel.h), its own
// source run by the wave emulator, against the float64 reference (decode_problem.h): GQA groups
// of 1, 4 and 8, head dims 64, 128 and 192/128 (multi-head latent attention), pages of 1, 16 and
// 64 scattered in random order, sequences empty, shorter than a chunk, and long enough that every
// wave walks several chunks; bf16 and f16.
#include "decode_problem.h"
#include "emulated_kernels.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace argus::hip;

namespace {

void check(const argus::gpu::test::DecodeProblem &p, unsigned seed) {
  std::mt19937 rng(seed);
  argus::gpu::test::DecodeData data(p, rng);
  const DecodeParams params{data.q.data(),          data.kCache.data(), data.vCache.data(), data.blockTable.data(),
                            data.seqlens.data(),    data.o.data(),      p.maxPagesPerSeq(), p.heads,
                            p.kvHeads,              p.headDim,          p.valueDim,         p.pageSize,
                            p.effectiveScale() * float(M_LOG2E)};
  test::emulateDecode(params, p.kvHeads, p.batch(), p.f16);
  EXPECT_EQ(argus::gpu::test::compareWithFloat64(p, data), "");
}

TEST(HipDecodeEmulated, GroupedHeadsOverScatteredPages) {
  check({8, 2, 128, 128, 16, {0, 1, 77, 600}, 0.0f}, 1);
}

TEST(HipDecodeEmulated, HalfPrecision) {
  argus::gpu::test::DecodeProblem p{8, 2, 128, 128, 16, {0, 1, 77, 600}, 0.0f};
  p.f16 = true;
  check(p, 4);
}

TEST(HipDecodeEmulated, GroupOfEightSmallHeadsPageOfOne) {
  check({16, 2, 64, 64, 1, {5, 130}, 0.3f}, 2);
}

// seqlens beyond what the block table addresses are clamped to it (as the CPU runtime does),
// negative ones read nothing: no read past a sequence's table row.
TEST(HipDecodeEmulated, SeqlensBeyondTheBlockTableAreClamped) {
  const argus::gpu::test::DecodeProblem p{4, 2, 64, 64, 16, {40, 3}, 0.0f};
  std::mt19937 rng(9);
  argus::gpu::test::DecodeData data(p, rng);
  for (int i = 0; i < p.maxPagesPerSeq(); ++i)  // every entry of the first row a real page
    data.blockTable[size_t(i)] = i % 3;
  argus::gpu::test::DecodeData expected = data;
  expected.seqlens = {p.maxPagesPerSeq() * p.pageSize, 0};  // all the table addresses; nothing
  data.seqlens = {1 << 20, -5};
  for (argus::gpu::test::DecodeData *d : {&expected, &data}) {
    const DecodeParams params{d->q.data(),       d->kCache.data(), d->vCache.data(), d->blockTable.data(),
                              d->seqlens.data(), d->o.data(),      p.maxPagesPerSeq(), p.heads,
                              p.kvHeads,         p.headDim,        p.valueDim,       p.pageSize,
                              p.effectiveScale() * float(M_LOG2E)};
    test::emulateDecode(params, p.kvHeads, p.batch());
  }
  EXPECT_EQ(data.o, expected.o);
}

TEST(HipDecodeEmulated, LatentAttentionWidthsOneHeadPerGroup) {
  check({4, 4, 192, 128, 64, {300, 63}, 0.0f}, 3);
}

} // namespace
