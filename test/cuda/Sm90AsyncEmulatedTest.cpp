// Hopper's asynchronous units on the cluster emulator (argus_sm90.cuh under ARGUS_CUDA_EMULATE): a
// warp-specialised 64 x N tile product built the way the Hopper GEMM is (a producer thread's TMA
// loads into a ring of 128-byte-swizzled stages, full/empty mbarriers with parity waits, a consumer
// warpgroup's wgmma from shared-memory descriptors, commit and wait), checked against float64 on
// ragged shapes (TMA's zero fill past the tensor) and several K slices; a TMA store of the result
// through a swizzled staging box; and the emulator's strictness: a consumer that skips the wait on
// its stage is stopped (the copy lands under its wgmma), so is one that releases a stage before the
// wgmma reading it has retired (the producer refills it under the wgmma), and an unbalanced wait
// deadlocks and is reported. Named barriers hand turns over (bar.arrive), an arrival left pending at
// exit is reported, and so are A registers written under the wgmma that reads them. cp.async copies
// land at the wait that retires their group (zero-filled past what they read); ones never waited
// for, and misaligned ones, are reported.
#include "argus_cuda_emulator.h"
#include "argus_sm90.cuh"
#include "argus_sm90_schedule.h"
#include "gemm_problem.h"

#include "argus_numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
#include <vector>

using namespace argus::sm90;
namespace emu = argus::cuda::emu;

namespace {

constexpr int kSlice = 64;  // K per stage: one 128-byte swizzled row of bf16
constexpr int kStages = 2;

enum class Mistake { None, SkipFullWait, ReleaseBeforeRetire };

struct Problem {
  int m, n, k;
};

template <int N>
struct TileKernel {
  const CUtensorMap *mapA, *mapB;
  float *c;  // m x N, f32
  Problem p;
  Mistake mistake;

  static constexpr int kSharedBytes = kStages * (64 + N) * kSlice * 2 + 1024;

  void operator()() const {
    auto *tiles = reinterpret_cast<uint16_t *>(emu::dynamicShared());
    uint16_t *tilesA = tiles, *tilesB = tiles + kStages * 64 * kSlice;
    auto *full = reinterpret_cast<uint64_t *>(tiles + kStages * (64 + N) * kSlice);
    uint64_t *empty = full + kStages;
    const int tid = emu::threadIndex(), slices = (p.k + kSlice - 1) / kSlice;
    if (tid == 0)
      for (int s = 0; s < kStages; ++s) {
        barrierInit(&full[s], 1);
        barrierInit(&empty[s], 4);  // one arrival per consumer warp
      }
    fenceBarrierInit();
    emu::syncThreads();
    RingCursor cursor;
    if (tid < 128) {  // the producer warpgroup: thread 0 issues every copy
      if (tid != 0)
        return;
      for (int i = 0; i < slices; ++i) {
        barrierWait(&empty[cursor.stage], cursor.emptyParity());
        barrierArriveExpectBytes(&full[cursor.stage], (64 + N) * kSlice * 2);
        tmaLoad2d(tilesA + cursor.stage * 64 * kSlice, mapA, &full[cursor.stage], i * kSlice, 0);
        tmaLoad2d(tilesB + cursor.stage * N * kSlice, mapB, &full[cursor.stage], i * kSlice, 0);
        cursor.advance(kStages);
      }
      return;
    }
    float acc[N / 2];
    const uint64_t descA = swizzled128Descriptor(tilesA, 0), descB = swizzled128Descriptor(tilesB, 0);
    int previous = 0;
    for (int i = 0; i < slices; ++i) {
      if (mistake != Mistake::SkipFullWait)
        barrierWait(&full[cursor.stage], cursor.fullParity());
      wgmmaFence();
      for (int kk = 0; kk < kSlice / 16; ++kk)
        WgmmaBf16<N>::mma(acc, descA + ((cursor.stage * 64 * kSlice * 2 + kk * 32) >> 4),
                          descB + ((cursor.stage * N * kSlice * 2 + kk * 32) >> 4), i > 0 || kk > 0);
      wgmmaCommit();
      if (mistake == Mistake::ReleaseBeforeRetire) {  // the wgmmas may still be reading this stage
        if (tid % 32 == 0)
          barrierArrive(&empty[cursor.stage]);
        cursor.advance(kStages);
        continue;
      }
      wgmmaWait<1>();  // the previous slice's wgmmas are done: release their stage
      if (i > 0 && tid % 32 == 0)
        barrierArrive(&empty[previous]);
      previous = cursor.stage;
      cursor.advance(kStages);
    }
    wgmmaWait<0>();
    if (mistake != Mistake::ReleaseBeforeRetire && slices > 0 && tid % 32 == 0)
      barrierArrive(&empty[previous]);
    const int warp = (tid / 32) % 4, lane = tid % 32;
    for (int j = 0; j < N / 8; ++j)
      for (int e = 0; e < 4; ++e) {
        const int row = fragmentRow(warp, lane) + 8 * (e / 2), col = fragmentColumn(j, lane) + e % 2;
        if (row < p.m && col < p.n)
          c[row * N + col] = acc[4 * j + e];
      }
  }
};

// C = A · Bᵀ through TileKernel<N> on the emulator; "" when within f32 accumulation of float64.
template <int N>
std::string runTile(const Problem &p, Mistake mistake, unsigned seed) {
  std::mt19937 rng(seed);
  const int pitch = (p.k + 7) / 8 * 8;  // TMA wants 16-byte row pitches
  const std::vector<uint16_t> a = argus::gpu::test::randomBf16(size_t(p.m) * size_t(pitch), rng);
  const std::vector<uint16_t> b = argus::gpu::test::randomBf16(size_t(p.n) * size_t(pitch), rng);
  emu::TensorMap mapA, mapB;
  emu::encodeTensorMap2d(&mapA, a.data(), 2, uint64_t(p.k), uint64_t(p.m), uint64_t(pitch) * 2, kSlice, 64, true);
  emu::encodeTensorMap2d(&mapB, b.data(), 2, uint64_t(p.k), uint64_t(p.n), uint64_t(pitch) * 2, kSlice, N, true);
  std::vector<float> c(size_t(64) * N, std::nanf(""));
  emu::Launch launch;
  launch.threads = 256;
  launch.sharedBytes = TileKernel<N>::kSharedBytes;
  emu::run(launch, TileKernel<N>{&mapA, &mapB, c.data(), p, mistake});
  std::ostringstream bad;
  int wrong = 0;
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      double ref = 0, magnitude = 0;
      for (int k = 0; k < p.k; ++k) {
        const double term = double(argus_num::bf16_to_f32(a[size_t(i * pitch + k)])) *
                            double(argus_num::bf16_to_f32(b[size_t(j * pitch + k)]));
        ref += term;
        magnitude += std::fabs(term);
      }
      const double got = c[size_t(i) * N + size_t(j)];
      if (!(std::fabs(got - ref) <= 1e-5 * magnitude + 1e-6) && ++wrong <= 3)
        bad << "C[" << i << "][" << j << "] = " << got << ", expected " << ref << "\n";
    }
  return bad.str();
}

TEST(Sm90AsyncEmulated, WarpSpecialisedTileMatchesFloat64) {
  EXPECT_EQ(runTile<64>({64, 64, 64}, Mistake::None, 1), "");
  EXPECT_EQ(runTile<64>({50, 37, 300}, Mistake::None, 2), "");    // ragged: TMA fills zeros past the tensor
  EXPECT_EQ(runTile<128>({64, 128, 520}, Mistake::None, 3), "");  // 9 slices round a 2-stage ring
  EXPECT_EQ(runTile<16>({9, 16, 40}, Mistake::None, 4), "");
}

TEST(Sm90AsyncEmulated, ReadingAStageBeforeItsBarrierIsCaught) {
  // The wgmma takes its operands before the copy lands; the landing changes them under it.
  EXPECT_DEATH(runTile<64>({64, 64, 128}, Mistake::SkipFullWait, 5), "changed between its issue");
}

TEST(Sm90AsyncEmulated, ReleasingAStageBeforeItsWgmmaRetiresIsCaught) {
  EXPECT_DEATH(runTile<64>({64, 64, 512}, Mistake::ReleaseBeforeRetire, 6), "changed between its issue");
}

TEST(Sm90AsyncEmulated, AWaitNoArrivalCompletesIsReportedAsADeadlock) {
  EXPECT_DEATH(
      {
        emu::Launch launch;
        launch.threads = 32;
        launch.sharedBytes = 1024;
        emu::run(launch, [] {
          auto *barrier = reinterpret_cast<uint64_t *>(emu::dynamicShared());
          if (emu::threadIndex() == 0)
            barrierInit(barrier, 2);
          emu::syncThreads();
          if (emu::threadIndex() == 0)
            barrierArrive(barrier);  // one arrival of the two the phase needs
          barrierWait(barrier, 0);
        });
      },
      "every thread waits");
}

// Ping-pong turns: warp 1 may run its step only after warp 0 handed the turn over with bar.arrive, and
// warp 0 does not wait for it.
TEST(Sm90AsyncEmulated, NamedBarrierArriveHandsATurnOver) {
  std::vector<int> order;
  emu::Launch launch;
  launch.threads = 64;
  launch.schedule = 1;  // warp 1's threads run first: without the barrier, it would go first
  emu::run(launch, [&] {
    const int warp = emu::threadIndex() / 32, lane = emu::threadIndex() % 32;
    if (warp == 1)
      namedBarrierArrive(1, 64);  // warp 0 takes the first turn
    for (int turn = 0; turn < 3; ++turn) {
      namedBarrier(1 + warp, 64);
      if (lane == 0)
        order.push_back(2 * turn + warp);
      if (warp == 0 || turn < 2)
        namedBarrierArrive(2 - warp, 64);
    }
  });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST(Sm90AsyncEmulated, AnArrivalNobodySynchronisesOnIsReported) {
  EXPECT_DEATH(
      {
        emu::Launch launch;
        launch.threads = 64;
        emu::run(launch, [] {
          if (emu::threadIndex() < 32)
            namedBarrierArrive(3, 64);
        });
      },
      "no thread synchronised on");
}

// A wgmma reads A from registers when it executes: writing them before its wait_group is a race.
TEST(Sm90AsyncEmulated, OverwritingRegisterOperandsInFlightIsCaught) {
  EXPECT_DEATH(
      {
        emu::Launch launch;
        launch.threads = 128;
        launch.sharedBytes = 64 * 128;
        emu::run(launch, [] {
          auto *b = reinterpret_cast<uint8_t *>(emu::dynamicShared());
          for (int e = emu::threadIndex(); e < 64 * 64; e += 128)
            reinterpret_cast<uint16_t *>(b)[e] = 0x3f80;  // 1.0
          emu::syncThreads();
          uint32_t a[4] = {0x3f803f80u, 0x3f803f80u, 0x3f803f80u, 0x3f803f80u};
          float d[32] = {};
          wgmmaFence();
          WgmmaBf16Rs<64>::mma(d, a, swizzled128Descriptor(b, 0), 0);
          wgmmaCommit();
          a[0] = 0;  // the next block's P written too early
          wgmmaWait<0>();
        });
      },
      "registers a wgmma reads as A");
}

// A 64 x 64 bf16 tile written through a 128-byte swizzled staging box and stored by TMA, clipped.
TEST(Sm90AsyncEmulated, TmaStoreUnswizzlesAndClips) {
  const int rows = 40, cols = 50;
  std::vector<uint16_t> out(size_t(rows) * 56, 0x7fc1);
  emu::TensorMap map;
  emu::encodeTensorMap2d(&map, out.data(), 2, cols, rows, 56 * 2, 64, 64, true);
  emu::Launch launch;
  launch.threads = 32;
  launch.sharedBytes = 64 * 128;
  emu::run(launch, [&] {
    auto *box = reinterpret_cast<uint8_t *>(emu::dynamicShared());
    for (int e = emu::threadIndex(); e < 64 * 64; e += 32) {
      const int r = e / 64, c = e % 64;
      const uint32_t offset = outputBoxOffset(r, c, 2);
      *reinterpret_cast<uint16_t *>(box + offset) = uint16_t(r * 64 + c);
    }
    fenceAsyncShared();
    emu::syncWarp();
    if (emu::threadIndex() == 0) {
      tmaStore2d(&map, box, 0, 0);
      bulkCommit();
      bulkWait<0>();
    }
  });
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < 56; ++c)
      ASSERT_EQ(out[size_t(r) * 56 + size_t(c)], c < cols ? uint16_t(r * 64 + c) : uint16_t(0x7fc1))
          << "row " << r << ", column " << c;
}

// cp.async (the CUDA backend's copy_async): a copy lands at the wait that retires its group, not
// before, zero-filling past the bytes it reads.
TEST(Sm90AsyncEmulated, CpAsyncLandsAtTheWaitThatRetiresItsGroup) {
  std::vector<uint8_t> source(32);
  for (size_t i = 0; i < source.size(); ++i)
    source[i] = uint8_t(i + 1);
  std::vector<int> seen;
  emu::Launch launch;
  launch.threads = 32;
  launch.sharedBytes = 64;
  emu::run(launch, [&] {
    if (emu::threadIndex() != 0)
      return;
    auto *shared = reinterpret_cast<uint8_t *>(emu::dynamicShared());
    argus::cuda::cpAsync16(shared, source.data(), 10); // group 0: 10 bytes read, 6 zeros
    argus::cuda::cpAsyncCommit();
    argus::cuda::cpAsync16(shared + 16, source.data() + 16, 16); // group 1
    argus::cuda::cpAsyncCommit();
    seen.push_back(shared[0]); // nothing has landed: the poison
    argus::cuda::cpAsyncWait<1>();
    seen.push_back(shared[9]);
    seen.push_back(shared[10]);
    seen.push_back(shared[16]); // group 1 is still in flight
    argus::cuda::cpAsyncWait<0>();
    seen.push_back(shared[31]);
  });
  EXPECT_EQ(seen, (std::vector<int>{0xff, 10, 0, 0xff, 32}));
}

TEST(Sm90AsyncEmulated, CpAsyncNeverWaitedForIsReported) {
  EXPECT_DEATH(
      {
        std::vector<uint8_t> source(16, 1);
        emu::Launch launch;
        launch.threads = 32;
        launch.sharedBytes = 16;
        emu::run(launch, [&] {
          argus::cuda::cpAsync16(emu::dynamicShared(), source.data(), 16);
          argus::cuda::cpAsyncCommit();
        });
      },
      "cp.async copies it never waited for");
}

TEST(Sm90AsyncEmulated, MisalignedCpAsyncIsRefused) {
  EXPECT_DEATH(
      {
        std::vector<uint8_t> source(64, 1);
        emu::Launch launch;
        launch.threads = 32;
        launch.sharedBytes = 64;
        emu::run(launch, [&] { argus::cuda::cpAsync16(emu::dynamicShared() + 8, source.data(), 16); });
      },
      "aligned to its size");
}

} // namespace
