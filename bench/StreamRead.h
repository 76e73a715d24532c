//===- StreamRead.h - the streaming-read roof as a benchmark ---------------===//
//
// stream/read_1GiB: every OpenMP thread sums its share of a 1 GiB buffer, far
// larger than the caches, with the vector loop of argus/Tuning/MachinePeaks.h
// (AVX-512, else AVX2 with FMA: x86-64 machines with neither are not
// measured). The roof that memory-bound results divide by; a
// harness that registers it measures the roof in the same run as the work.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BENCH_STREAM_READ_H
#define ARGUS_BENCH_STREAM_READ_H

#include "argus/Tuning/MachinePeaks.h"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdlib>

inline void benchStreamRead(benchmark::State &st) {
  using namespace argus::machine;
  const bool avx512 = hasAvx512();
  if (!avx512 && !__builtin_cpu_supports("avx2")) return st.SkipWithError("needs AVX-512 or AVX2");
  const size_t n = (size_t(1) << 30) / sizeof(float);
  float *buffer = static_cast<float *>(aligned_alloc(64, n * sizeof(float)));
  if (!buffer) return st.SkipWithError("cannot allocate 1 GiB");
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) buffer[i] = 1.0f; // first touch by the thread that reads it
  for (auto _ : st) {
#pragma omp parallel
    {
      const size_t parts = size_t(omp_get_num_threads()), me = size_t(omp_get_thread_num());
      const size_t chunk = n / parts / 128 * 128;
      benchmark::DoNotOptimize(avx512 ? readSlice(buffer + me * chunk, chunk)
                                      : readSliceAvx2(buffer + me * chunk, chunk));
    }
  }
  st.counters["GB/s"] = benchmark::Counter(double(n / omp_get_max_threads() / 128 * 128) * sizeof(float) *
                                               omp_get_max_threads() * 1e-9,
                                           benchmark::Counter::kIsIterationInvariantRate);
  st.counters["threads"] = omp_get_max_threads();
  free(buffer);
}

#endif // ARGUS_BENCH_STREAM_READ_H
