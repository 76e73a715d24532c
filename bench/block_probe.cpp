//===- block_probe.cpp - the bf16 register block against the peak, one thread ===//
//
// Splits a GEMM's distance from the peak into the register block's and the
// memory's share: one thread runs the runtime's pre-packed bf16 product
// (mma_bf16_vnni_panels, the code a catalog kernel's k-loop calls) over
// tiles of a llama3-8b-sized GEMM, next to the vdpbf16ps peak loop of
// MachinePeaks, in one binary:
//   block/bf16/resident  one 256 x 64 tile over K = 4096 (8 k-steps of 512,
//                        the tiles the sweep picks on Zen 4 and Zen 5) again
//                        and again: a's 2 MiB from L2/L3, the panels in L2.
//   block/bf16/gemm      every tile of M x 4096 x 4096 (M = 256, 512) in turn,
//                        the accumulator zeroed per tile: the panels stream
//                        from memory, a from L3, as in the library.
// The library adds the epilogue, threads and operand checks to `gemm`.
// Needs AVX512_BF16 at run time (skipped with an error elsewhere).
//
//===----------------------------------------------------------------------===//
#include "argus/Tuning/MachinePeaks.h"
#include "argus_cpu_kernel.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>

namespace {

constexpr int64_t kTileM = 256, kTileN = 64, kStepK = 512, kN = 4096, kK = 4096;

struct Aligned {
  void operator()(void *p) const { std::free(p); }
};
using Bf16Buffer = std::unique_ptr<uint16_t[], Aligned>;

/// Random bf16 values in [1, 2) (never zero), 64-byte aligned as the
/// panels' vector loads require.
Bf16Buffer randomBf16(int64_t count, unsigned seed) {
  Bf16Buffer data(static_cast<uint16_t *>(std::aligned_alloc(64, size_t(count) * 2)));
  std::mt19937 gen(seed);
  for (int64_t i = 0; i < count; ++i) data[i] = uint16_t(0x3f80 + (gen() & 0x7f));
  return data;
}

/// acc += rows [m0, m0 + kTileM) of a times columns [n0, n0 + kTileN) of the
/// packed b, over all of K in steps of kStepK, as a catalog kernel does.
void tileProduct(float *acc, const uint16_t *a, const uint16_t *packedB, int64_t m0, int64_t n0) {
  for (int64_t k0 = 0; k0 < kK; k0 += kStepK) {
    const argus_cpu::tile_ref<uint16_t> aTile{a + m0 * kK + k0, kK};
    /* panel layout: ARGUS_CPU_PANEL_ROWS columns x all of K per panel, pairs of k */
    const argus_cpu::tile_ref<uint16_t> bTile{packedB + n0 * kK + k0 * ARGUS_CPU_PANEL_ROWS,
                                              kK * ARGUS_CPU_PANEL_ROWS, true};
    argus_cpu::detail::mma_bf16_vnni_panels<kTileM, kTileN, kStepK>(acc, aTile, bTile);
  }
}

bool skipWithoutBf16(benchmark::State &st) {
  if (argus::machine::hasAvx512Bf16()) return false;
  st.SkipWithError("no AVX512_BF16 on this CPU");
  return true;
}

void peakBf16(benchmark::State &st) {
  if (skipWithoutBf16(st)) return;
  for (auto _ : st) benchmark::DoNotOptimize(argus::machine::dpbf16Loop());
  st.counters["GFLOP/s"] =
      benchmark::Counter(argus::machine::kDpbf16LoopFlops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

/// `rows` x kN x kK; resident: the first tile only, `rows` / kTileM * kN /
/// kTileN times (the same flops).
void blockBf16(benchmark::State &st, int64_t rows, bool resident) {
  if (skipWithoutBf16(st)) return;
  const Bf16Buffer a = randomBf16(rows * kK, 1), packedB = randomBf16(kN * kK, 2);
  std::unique_ptr<float[], Aligned> acc(static_cast<float *>(std::aligned_alloc(64, kTileM * kTileN * 4)));
  std::fill(acc.get(), acc.get() + kTileM * kTileN, 0.0f);
  for (auto _ : st) {
    for (int64_t m0 = 0; m0 < rows; m0 += kTileM)
      for (int64_t n0 = 0; n0 < kN; n0 += kTileN) {
        if (!resident) std::fill(acc.get(), acc.get() + kTileM * kTileN, 0.0f);
        tileProduct(acc.get(), a.get(), packedB.get(), resident ? 0 : m0, resident ? 0 : n0);
      }
    benchmark::DoNotOptimize(acc[kTileN + 1]);
  }
  st.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * rows * kN * kK * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

} // namespace

int main(int argc, char **argv) {
  auto configure = [](benchmark::internal::Benchmark *b) {
    b->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(0.3)->Repetitions(5)->ReportAggregatesOnly(true);
  };
  configure(benchmark::RegisterBenchmark("peak/bf16_vdpbf16ps_1thread", peakBf16));
  configure(benchmark::RegisterBenchmark("block/bf16/resident", [](benchmark::State &st) { blockBf16(st, 512, true); }));
  for (int64_t rows : {256, 512})
    configure(benchmark::RegisterBenchmark(("block/bf16/gemm/M:" + std::to_string(rows)).c_str(),
                                           [rows](benchmark::State &st) { blockBf16(st, rows, false); }));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
