//===- peak_bench.cpp - the machine's arithmetic peak, measured -----------===//
//
// What "fraction of peak" in the other results divides by: register-only
// loops of independent AVX-512 FMAs (f32), vdpbf16ps (bf16 pairs) and AMX
// tdpbf16ps (bf16 tiles), run by every thread at once (OpenMP), so the
// figure is the whole machine's at that thread count. Nothing touches
// memory inside those loops. GFLOP/s counts 2 flops per multiply-add.
// The memory roof of decode-sized work: stream/read_1GiB, every thread
// summing its share of a buffer far larger than the caches (GB/s read).
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>

namespace {

constexpr long kSteps = 1 << 20;

__attribute__((target("avx512f"))) float fmaLoop() {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(float(i));
  __m512 x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(1e-9f);
  for (long s = 0; s < kSteps; ++s) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
    __asm__ volatile("" : "+v"(x));
  }
  float sum = 0;
  for (int i = 0; i < 16; ++i) sum += _mm512_reduce_add_ps(acc[i]);
  return sum;
}

__attribute__((target("avx512f,avx512bf16"))) float dpbf16Loop() {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(float(i));
  __m512bh x = (__m512bh)_mm512_set1_epi32(0x3f803f80), y = (__m512bh)_mm512_set1_epi32(0x30003000);
  for (long s = 0; s < kSteps; ++s) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], x, y);
    __asm__ volatile("" : "+v"(x));
  }
  float sum = 0;
  for (int i = 0; i < 16; ++i) sum += _mm512_reduce_add_ps(acc[i]);
  return sum;
}

struct TileConfig {
  uint8_t palette = 1, startRow = 0, reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

/// 4 independent C tiles, each += A (16 x 32) * B (32 x 16) per step.
__attribute__((target("amx-tile,amx-bf16"))) void amxLoop() {
  alignas(64) TileConfig cfg;
  for (int t = 0; t < 8; ++t) cfg.rows[t] = 16, cfg.colsb[t] = 64;
  alignas(64) uint16_t data[16 * 32] = {};
  // GCC does not see ldtilecfg read the struct and may drop the stores above.
  __asm__ volatile("" : : "r"(&cfg) : "memory");
  _tile_loadconfig(&cfg);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, data, 64);
  _tile_loadd(5, data, 64);
  _tile_loadd(6, data, 64);
  _tile_loadd(7, data, 64);
  for (long s = 0; s < kSteps / 16; ++s) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_release();
}

bool amxAvailable() {
  if (!__builtin_cpu_supports("avx512f")) return false;
  unsigned eax, ebx, ecx, edx;
  __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(7), "c"(0));
  return (edx & (1u << 24)) && (edx & (1u << 22)) && syscall(SYS_arch_prctl, 0x1023, 18) == 0;
}

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

/// Sums a slice of floats with 8 independent AVX-512 accumulators: a pure
/// sequential read, the pattern of a GEMV streaming its weights.
__attribute__((target("avx512f"))) float readSlice(const float *p, size_t n) {
  __m512 acc[8];
  for (int i = 0; i < 8; ++i) acc[i] = _mm512_setzero_ps();
  for (size_t i = 0; i + 128 <= n; i += 128)
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) acc[j] = _mm512_add_ps(acc[j], _mm512_loadu_ps(p + i + 16 * j));
  for (int i = 1; i < 8; ++i) acc[0] = _mm512_add_ps(acc[0], acc[i]);
  return _mm512_reduce_add_ps(acc[0]);
}

void streamRead(benchmark::State &st) {
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
      benchmark::DoNotOptimize(readSlice(buffer + me * chunk, chunk));
    }
  }
  st.counters["GB/s"] = benchmark::Counter(double(n / omp_get_max_threads() / 128 * 128) * sizeof(float) *
                                               omp_get_max_threads() * 1e-9,
                                           benchmark::Counter::kIsIterationInvariantRate);
  st.counters["threads"] = omp_get_max_threads();
  free(buffer);
}

} // namespace

int main(int argc, char **argv) {
  auto configure = [](benchmark::internal::Benchmark *b) {
    b->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(0.3)->Repetitions(5)->ReportAggregatesOnly(true);
  };
  if (__builtin_cpu_supports("avx512f"))
    configure(benchmark::RegisterBenchmark("peak/f32_fma_avx512", [](benchmark::State &st) {
      peak(st, fmaLoop, 16.0 * 16 * 2 * kSteps);
    }));
  if (__builtin_cpu_supports("avx512bf16"))
    configure(benchmark::RegisterBenchmark("peak/bf16_vdpbf16ps", [](benchmark::State &st) {
      peak(st, dpbf16Loop, 16.0 * 32 * 2 * kSteps);
    }));
  if (__builtin_cpu_supports("avx512f")) configure(benchmark::RegisterBenchmark("stream/read_1GiB", streamRead));
  if (amxAvailable())
    configure(benchmark::RegisterBenchmark("peak/bf16_amx_tdpbf16ps", [](benchmark::State &st) {
      // 4 tile products of 16 x 16 x 32 multiply-adds per step.
      peak(st, [] { amxLoop(); return 0; }, 4.0 * 16 * 16 * 32 * 2 * (kSteps / 16));
    }));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
