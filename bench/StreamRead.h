//===- StreamRead.h - the streaming-read roof as a benchmark ---------------===//
//
// stream/read_1GiB: every OpenMP thread sums its share of a 1 GiB buffer, far
// larger than the caches, with the vector loop of argus/Tuning/MachinePeaks.h
// (AVX-512, else AVX2 with FMA: x86-64 machines with neither are not
// measured). The roof that memory-bound results divide by; a
// harness that registers it measures the roof in the same run as the work.
// stream/read_pages_32KiB: the same gigabyte as 32 KiB pages in a random
// order, read as paged decode reads a KV cache (Llama-3-8B: a page of 16
// tokens x 8 KV heads x 128 bf16): head by head, each head's 16 rows of
// 256 bytes 2 KiB apart, the next head's rows fetched into L2 first. What
// scattered pages allow, below the sequential stream's roof.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BENCH_STREAM_READ_H
#define ARGUS_BENCH_STREAM_READ_H

#include "argus/Tuning/MachinePeaks.h"

#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

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

namespace argus::bench {

constexpr size_t kPageBytes = 32768, kHeads = 8, kPageRows = 16, kRowBytes = 256, kRowPitch = kHeads * kRowBytes;

/// One page read head by head (see above); `next`: the page after it.
__attribute__((target("avx512f"))) inline float readPageByHeads(const char *page, const char *next) {
  __m512 sum = _mm512_setzero_ps();
  for (size_t h = 0; h < kHeads; ++h) {
    const char *ahead = h + 1 < kHeads ? page + (h + 1) * kRowBytes : next;
    for (size_t r = 0; r < kPageRows; ++r)
      for (size_t b = 0; b < kRowBytes; b += 64) _mm_prefetch(ahead + r * kRowPitch + b, _MM_HINT_T1);
    for (size_t r = 0; r < kPageRows; ++r)
      for (size_t b = 0; b < kRowBytes; b += 64)
        sum = _mm512_add_ps(sum, _mm512_load_ps(page + h * kRowBytes + r * kRowPitch + b));
  }
  return _mm512_reduce_add_ps(sum);
}

} // namespace argus::bench

inline void benchStreamReadPages(benchmark::State &st) {
  using namespace argus::bench;
  if (!argus::machine::hasAvx512()) return st.SkipWithError("needs AVX-512");
  const size_t pages = (size_t(1) << 30) / kPageBytes;
  char *buffer = static_cast<char *>(aligned_alloc(64, pages * kPageBytes));
  if (!buffer) return st.SkipWithError("cannot allocate 1 GiB");
  std::vector<size_t> order(pages);
  std::iota(order.begin(), order.end(), size_t(0));
  std::shuffle(order.begin(), order.end(), std::mt19937(1));
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < pages; ++i) std::fill(buffer + order[i] * kPageBytes, buffer + (order[i] + 1) * kPageBytes, 1);
  for (auto _ : st) {
    float total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (size_t i = 0; i < pages; ++i)
      total += readPageByHeads(buffer + order[i] * kPageBytes, buffer + order[std::min(i + 1, pages - 1)] * kPageBytes);
    benchmark::DoNotOptimize(total);
  }
  st.counters["GB/s"] = benchmark::Counter(double(pages * kPageBytes) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["threads"] = omp_get_max_threads();
  free(buffer);
}

#endif // ARGUS_BENCH_STREAM_READ_H
