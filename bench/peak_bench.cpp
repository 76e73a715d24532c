//===- peak_bench.cpp - the machine's arithmetic peak, measured -----------===//
//
// What "fraction of peak" in the other results divides by: the loops of
// argus/Tuning/MachinePeaks.h (AVX-512 FMA, vdpbf16ps, AMX tdpbf16ps, all
// register-only) run by every thread at once (OpenMP), so the figure is the
// whole machine's at that thread count. GFLOP/s counts 2 flops per
// multiply-add. The memory roof of decode-sized work: stream/read_1GiB,
// every thread summing its share of a buffer far larger than the caches,
// and stream/read_pages_32KiB, the same bytes as a paged KV cache's pages.
//
//===----------------------------------------------------------------------===//
#include "StreamRead.h"
#include "argus/Tuning/MachinePeaks.h"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>

namespace {

using namespace argus::machine;

/// Runs `loop` on every thread per iteration; `flops` per thread per loop.
template <class Loop> void peak(benchmark::State &st, Loop loop, double flops) {
  const int threads = omp_get_max_threads();
  for (auto _ : st) {
#pragma omp parallel
    benchmark::DoNotOptimize(loop());
  }
  st.counters["GFLOP/s"] =
      benchmark::Counter(flops * threads * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["threads"] = threads;
}

} // namespace

int main(int argc, char **argv) {
  auto configure = [](benchmark::internal::Benchmark *b) {
    b->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(0.3)->Repetitions(5)->ReportAggregatesOnly(true);
  };
  if (hasAvx512())
    configure(benchmark::RegisterBenchmark("peak/f32_fma_avx512",
                                           [](benchmark::State &st) { peak(st, fmaLoop, kFmaLoopFlops); }));
  if (hasAvx512Bf16())
    configure(benchmark::RegisterBenchmark("peak/bf16_vdpbf16ps",
                                           [](benchmark::State &st) { peak(st, dpbf16Loop, kDpbf16LoopFlops); }));
  configure(benchmark::RegisterBenchmark("stream/read_1GiB", benchStreamRead));
  configure(benchmark::RegisterBenchmark("stream/read_pages_32KiB", benchStreamReadPages));
  if (amxAvailable())
    configure(benchmark::RegisterBenchmark("peak/bf16_amx_tdpbf16ps", [](benchmark::State &st) {
      peak(st, [] { amxLoop(); return 0; }, kAmxLoopFlops);
    }));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
