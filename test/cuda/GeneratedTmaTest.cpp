// The CUDA backend's TMA copies (generator/lib/Backend/Lanes/TmaCopies.h) in the Hopper GEMM
// template's generated kernel, on the cluster emulator, whose launches here land a TMA copy only at
// a wait on its own mbarrier (cuda_emulate_launch.cpp): the launch takes TMA where it can encode
// every operand's tensor map and cp.async where it cannot, and both match float64. And the ring of
// mbarriers itself (argus_cuda_tile.h: TmaRing) with more copies in flight than it has barriers.
#include "generated/gen_gemm_sm90_schedule.cu"

#include "generated_kernels.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

using namespace argus::gpu::test;

ak::Tensor matrix(const void *data, int64_t rows, int64_t cols, int64_t pitch) {
  return {data, {rows, cols, 0, 0}, {pitch, 1, 0, 0}};
}

// Runs the kernel on `p` with A read from `a` (d.a's values); the launch's tma_copies.
int runSchedule(const GemmProblem &p, GemmData &d, const uint16_t *a) {
  gen_gemm_sm90_schedule_params params{};
  params.A = matrix(a, p.m, p.k, p.lda());
  params.B = matrix(d.b.data(), p.n, p.k, p.ldb());
  params.C = matrix(d.c.data(), p.m, p.n, p.ldc());
  params.bias = {d.biasOrNull(p), {p.n, 0, 0, 0}, {1, 0, 0, 0}};
  params.alpha = p.alpha;
  params.beta = p.beta;
  params.has_bias = p.bias ? 1 : 0;
  params.tma_copies = -1;
  emulate(gen_gemm_sm90_schedule_launch(params), [&] { gen_gemm_sm90_schedule_body(params); });
  return params.tma_copies;
}

TEST(GeneratedTma, TheGemmScheduleStagesThroughTmaWhereItCanAddressTheOperands) {
  std::mt19937 rng(77);
  // Ragged M, N and K; 9 K steps put 22 copies through each warpgroup's ring of 8 barriers.
  const GemmProblem problems[] = {{130, 136, 520, 1.0f, 0.0f, false}, {77, 300, 72, -0.5f, 0.75f, true}};
  for (const GemmProblem &p : problems) {
    GemmData d(p, rng);
    EXPECT_EQ(runSchedule(p, d, d.a.data()), 1) << p.describe();
    EXPECT_EQ(compareWithFloat64(p, d), "") << p.describe();
  }
}

TEST(GeneratedTma, OperandsTmaCannotAddressFallBackToCpAsync) {
  std::mt19937 rng(78);
  const GemmProblem shifted{70, 200, 136, 1.0f, 0.5f, true};
  GemmData d(shifted, rng);
  std::vector<uint16_t> a(d.a.size() + 1);
  std::copy(d.a.begin(), d.a.end(), a.begin() + 1); // A one element past a 16-byte boundary
  EXPECT_EQ(runSchedule(shifted, d, a.data() + 1), 0);
  EXPECT_EQ(compareWithFloat64(shifted, d), "") << shifted.describe();

  const GemmProblem empty{65, 70, 0, 1.0f, -1.0f, true}; // K = 0: no tensor map has an empty dimension
  GemmData e(empty, rng);
  EXPECT_EQ(runSchedule(empty, e, e.a.data()), 0);
  EXPECT_EQ(compareWithFloat64(empty, e), "") << empty.describe();
}

// Five 8 x 64 boxes of a 37-row matrix through a ring of 2 barriers: each copy past the second
// first waits for the oldest (its barrier is the next one), and wait(0) lands the rest. Every slot
// must hold its rows in the 128-byte swizzle, zeros past the matrix.
TEST(GeneratedTma, ARingOfTwoBarriersTakesFiveCopiesInFlight) {
  constexpr int kRows = 37, kCopies = 5, kRing = 2, kSlotElems = 8 * 64;
  std::mt19937 rng(79);
  const std::vector<uint16_t> source = randomBf16(size_t(kRows) * 64, rng);
  ak::TmaMap map;
  ASSERT_TRUE(ak::encodeSwizzledRows<8>(map, matrix(source.data(), kRows, 64, 64)));
  std::vector<uint16_t> slots(size_t(kCopies) * kSlotElems);
  const int64_t shared = kCopies * kSlotElems * 2 + kRing * 8;
  emulate(ak::LaunchShape{{1, 1, 1}, 128, int(shared)}, [&] {
    auto *staged = reinterpret_cast<uint16_t *>(argus::cuda::dynamicShared());
    ak::TmaRing<kRing> ring{reinterpret_cast<uint64_t *>(staged + kCopies * kSlotElems)};
    ring.init<ak::Warpgroup>();
    for (int c = 0; c < kCopies; ++c)
      ak::copyTma<8, ak::Warpgroup>(ring, staged + c * kSlotElems, map, {8 * c, 0});
    ak::waitTma<0, ak::Warpgroup>(ring);
    if (ak::Warpgroup::lane() == 0)
      std::copy(staged, staged + slots.size(), slots.begin());
  });
  int wrong = 0;
  for (int row = 0; row < kCopies * 8; ++row)
    for (int col = 0; col < 64; ++col) {
      const int x = (row % 8) * 64 + col, at = (row / 8) * kSlotElems + (x ^ ((x & 448) >> 3));
      const uint16_t want = row < kRows ? source[size_t(row * 64 + col)] : 0;
      wrong += slots[size_t(at)] != want;
    }
  EXPECT_EQ(wrong, 0);
}

} // namespace
