// The Hopper GEMM kernels (dist/runtime/cuda/argus_sm90_gemm.cuh: TMA into a swizzled mbarrier ring,
// wgmma from shared-memory descriptors, warp-specialised producer and consumer warpgroups), their own
// source run on the cluster emulator's model of Hopper's asynchronous units, against float64
// (gemm_problem.h): the persistent kernel with element and TMA-store epilogues, one and two consumer
// warpgroups, CTAs walking several tiles round one ring; the split-K kernel, whose cluster of CTAs
// adds its partial tiles through distributed shared memory. Ragged m, n and k, alpha, beta and bias.
// These kernels ran correctly on an H100 (bench/results/cuda-gemm-h100.md), so this test holds the
// emulator to the hardware as much as it holds the kernels to the reference.
#include "argus_cuda_emulator.h"
#include "argus_sm90_gemm.cuh"
#include "argus_sm90_gemm_rows.cuh"
#include "gemm_problem.h"

#include <gtest/gtest.h>

using namespace argus::sm90;
using argus::gpu::test::GemmData;
using argus::gpu::test::GemmProblem;
namespace emu = argus::cuda::emu;

namespace {

struct Operands {
  CUtensorMap a, b, c;
  GemmEpilogue epilogue;
};

// The tensor maps argus_sm90_gemm_launch.h encodes (128-byte-wide boxes, 128-byte swizzle).
Operands operands(const GemmProblem &p, GemmData &d, int bm, int bn) {
  Operands o{};
  emu::encodeTensorMap2d(&o.a, d.a.data(), 2, uint64_t(p.k), uint64_t(p.m), uint64_t(p.lda()) * 2, 64, uint32_t(bm),
                         true);
  emu::encodeTensorMap2d(&o.b, d.b.data(), 2, uint64_t(p.k), uint64_t(p.n), uint64_t(p.ldb()) * 2, 64, uint32_t(bn),
                         true);
  emu::encodeTensorMap2d(&o.c, d.c.data(), 2, uint64_t(p.n), uint64_t(p.m), uint64_t(p.ldc()) * 2, 64, 64, true);
  o.epilogue = {d.c.data(), p.ldc(), d.biasOrNull(p), p.alpha, p.beta, p.m, p.n};
  return o;
}

template <int BM, int BN, int Stages, bool StoreByTma>
std::string persistent(const GemmProblem &p, int ctas, unsigned seed) {
  std::mt19937 rng(seed);
  GemmData d(p, rng);
  const Operands o = operands(p, d, BM, BN);
  using Layout = GemmSharedLayout<BM, BN, Stages, (BM / 64) * 64 * BN * 2>;
  emu::Launch launch;
  launch.gridX = ctas;
  launch.threads = Layout::kThreads;
  launch.sharedBytes = int(Layout::kBytes);
  emu::run(launch, [&] { gemmTnPersistentBody<BM, BN, Stages, Bf16, StoreByTma>(o.a, o.b, o.c, o.epilogue, p.k); });
  return argus::gpu::test::compareWithFloat64(p, d);
}

template <int BM, int BN, int Stages>
std::string splitK(const GemmProblem &p, int split, unsigned seed) {
  std::mt19937 rng(seed);
  GemmData d(p, rng);
  const Operands o = operands(p, d, BM, BN);
  using Layout = GemmSharedLayout<BM, BN, Stages>;
  emu::Launch launch;
  launch.gridX = (p.m + BM - 1) / BM, launch.gridY = (p.n + BN - 1) / BN, launch.gridZ = split;
  launch.clusterZ = split;
  launch.threads = Layout::kThreads;
  launch.sharedBytes = int(Layout::kBytes);
  emu::run(launch, [&] { gemmTnSplitKBody<BM, BN, Stages, Bf16>(o.a, o.b, o.epilogue, p.k); });
  return argus::gpu::test::compareWithFloat64(p, d);
}

TEST(Sm90GemmEmulated, PersistentOneConsumerElementEpilogue) {
  // 2 x 3 tiles on 2 CTAs: each walks three tiles round one 4-stage ring.
  EXPECT_EQ((persistent<64, 64, 4, false>({100, 150, 300, 1.0f, 0.0f, false}, 2, 1)), "");
  EXPECT_EQ((persistent<64, 64, 4, false>({37, 20, 72, -0.5f, 0.75f, true}, 1, 2)), "");
}

TEST(Sm90GemmEmulated, PersistentTwoConsumersTmaStore) {
  // n + 3 a multiple of 8: C's pitch suits TMA; beta 0: the TMA-store epilogue.
  EXPECT_EQ((persistent<128, 128, 3, true>({150, 133, 200, 2.0f, 0.0f, true}, 2, 3)), "");
}

TEST(Sm90GemmEmulated, SplitKClusterAddsPartialTiles) {
  EXPECT_EQ((splitK<64, 64, 4>({30, 70, 700, 1.0f, 0.0f, true}, 3, 4)), "");
  EXPECT_EQ((splitK<64, 128, 4>({64, 128, 320, 0.5f, -1.0f, false}, 2, 5)), "");
}

// The few-rows kernel: weights read straight into mma.sync fragments, warps over interleaved k
// steps, a cluster of `split` CTAs over contiguous k ranges.
template <int TokenBlocks, int Warps, int Unroll>
std::string rows(const GemmProblem &p, int split, unsigned seed) {
  std::mt19937 rng(seed);
  GemmData d(p, rng);
  using Shape = RowsGemmShape<TokenBlocks, Warps, Unroll>;
  const GemmEpilogue epilogue{d.c.data(), p.ldc(), d.biasOrNull(p), p.alpha, p.beta, p.m, p.n};
  emu::Launch launch;
  launch.gridX = (p.n + Shape::kRows - 1) / Shape::kRows, launch.gridZ = split;
  launch.clusterZ = split;
  launch.threads = Shape::kThreads;
  launch.sharedBytes = Shape::kSharedBytes;
  emu::run(launch, [&] {
    gemmRowsBody<TokenBlocks, Warps, Unroll, Bf16>(reinterpret_cast<const Bf16 *>(d.a.data()), p.lda(),
                                                   reinterpret_cast<const Bf16 *>(d.b.data()), p.ldb(), epilogue, p.k);
  });
  return argus::gpu::test::compareWithFloat64(p, d);
}

TEST(Sm90GemmEmulated, RowsKernelStreamsWeightsIntoMmaFragments) {
  // Ragged rows (n not a multiple of 16), k past the last whole 32-wide step and not a multiple of
  // 8, whole groups of steps and leftovers spread over the warps, one token and a full block.
  EXPECT_EQ((rows<1, 2, 2>({1, 37, 1003, 1.0f, 0.0f, false}, 1, 6)), "");
  EXPECT_EQ((rows<1, 4, 2>({8, 20, 520, -0.5f, 0.75f, true}, 1, 7)), "");
  EXPECT_EQ((rows<1, 2, 4>({5, 16, 8, 1.0f, 0.0f, true}, 1, 8)), "");  // k under one step
}

TEST(Sm90GemmEmulated, RowsKernelTwoTokenBlocksAndClusterSplit) {
  EXPECT_EQ((rows<2, 2, 2>({13, 45, 700, 2.0f, 0.0f, true}, 1, 9)), "");
  EXPECT_EQ((rows<2, 2, 2>({16, 33, 1000, 1.0f, 0.5f, false}, 3, 10)), "");  // three k ranges, ragged
  EXPECT_EQ((rows<1, 2, 2>({3, 17, 72, 1.0f, 0.0f, true}, 4, 11)), "");      // ranks with no steps
}

} // namespace
