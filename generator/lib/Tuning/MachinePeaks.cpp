//===- MachinePeaks.cpp - the machine's arithmetic and memory roofs -------===//
#include "argus/Tuning/MachinePeaks.h"

#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

namespace argus::machine {

bool hasAvx512() { return __builtin_cpu_supports("avx512f"); }
bool hasAvx512Bf16() { return __builtin_cpu_supports("avx512bf16"); }

bool amxAvailable() {
  if (!hasAvx512()) return false;
  unsigned eax, ebx, ecx, edx;
  __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(7), "c"(0));
  // AMX-TILE and AMX-BF16, and Linux's permission for the tile state (ARCH_REQ_XCOMP_PERM).
  return (edx & (1u << 24)) && (edx & (1u << 22)) && syscall(SYS_arch_prctl, 0x1023, 18) == 0;
}

__attribute__((target("avx512f"))) float fmaLoop() {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(float(i));
  __m512 x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(1e-9f);
  for (long s = 0; s < kPeakSteps; ++s) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
    __asm__ volatile("" : "+v"(x));
  }
  float sum = 0;
  for (int i = 0; i < 16; ++i) sum += _mm512_reduce_add_ps(acc[i]);
  return sum;
}

bool hasAvx2Fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

// Twelve independent chains: two FMA pipes of four cycles' latency need eight.
__attribute__((target("avx2,fma"))) float fmaLoopAvx2() {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(float(i));
  __m256 x = _mm256_set1_ps(1.0000001f), y = _mm256_set1_ps(1e-9f);
  for (long s = 0; s < kPeakSteps; ++s) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
    __asm__ volatile("" : "+x"(x));
  }
  float lanes[8], sum = 0;
  for (int i = 0; i < 12; ++i) {
    _mm256_storeu_ps(lanes, acc[i]);
    for (float l : lanes) sum += l;
  }
  return sum;
}

__attribute__((target("avx512f,avx512bf16"))) float dpbf16Loop() {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(float(i));
  __m512bh x = (__m512bh)_mm512_set1_epi32(0x3f803f80), y = (__m512bh)_mm512_set1_epi32(0x30003000);
  for (long s = 0; s < kPeakSteps; ++s) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], x, y);
    __asm__ volatile("" : "+v"(x));
  }
  float sum = 0;
  for (int i = 0; i < 16; ++i) sum += _mm512_reduce_add_ps(acc[i]);
  return sum;
}

namespace {
struct TileConfig {
  uint8_t palette = 1, startRow = 0, reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};
} // namespace

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
  for (long s = 0; s < kPeakSteps / 16; ++s) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_release();
}

namespace {

/// p[0..n) as kReadStreams parts read side by side, 128 floats of each in
/// turn, then the rest (under kReadStreams x 128 floats) in one stream: one
/// sequential stream a thread leaves a core's line-fill buffers idle between
/// the hardware prefetcher's requests (2 vCPUs of an Emerald Rapids Xeon,
/// 1 GiB: one stream 33.5 GB/s, 4 streams 40-43, 8 43-45, 16 44-45; the
/// f32 GEMV of a 28672 x 4096 matrix read its weights at 38).
constexpr size_t kReadStreams = 8;

/// The `b`-th block of 128 floats in that order.
inline const float *streamBlock(const float *p, size_t n, size_t b) {
  const size_t part = n / kReadStreams / 128 * 128, interleaved = kReadStreams * (part / 128);
  return b < interleaved ? p + (b % kReadStreams) * part + (b / kReadStreams) * 128
                         : p + kReadStreams * part + (b - interleaved) * 128;
}

} // namespace

__attribute__((target("avx512f"))) float readSlice(const float *p, size_t n) {
  __m512 acc[8];
  for (int i = 0; i < 8; ++i) acc[i] = _mm512_setzero_ps();
  for (size_t b = 0; b < n / 128; ++b) {
    const float *q = streamBlock(p, n, b);
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) acc[j] = _mm512_add_ps(acc[j], _mm512_loadu_ps(q + 16 * j));
  }
  for (int i = 1; i < 8; ++i) acc[0] = _mm512_add_ps(acc[0], acc[i]);
  return _mm512_reduce_add_ps(acc[0]);
}

__attribute__((target("avx2"))) float readSliceAvx2(const float *p, size_t n) {
  __m256 acc[8];
  for (int i = 0; i < 8; ++i) acc[i] = _mm256_setzero_ps();
  for (size_t b = 0; b < n / 128; ++b) {
    const float *q = streamBlock(p, n, b);
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) acc[j % 8] = _mm256_add_ps(acc[j % 8], _mm256_loadu_ps(q + 8 * j));
  }
  for (int i = 1; i < 8; ++i) acc[0] = _mm256_add_ps(acc[0], acc[i]);
  float lanes[8], sum = 0;
  _mm256_storeu_ps(lanes, acc[0]);
  for (float l : lanes) sum += l;
  return sum;
}

namespace {

using Clock = std::chrono::steady_clock;

/// Best seconds of `rounds` runs of `work(thread)` on every thread at once.
double bestParallelSeconds(int threads, int rounds, const std::function<void(int)> &work) {
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    Clock::time_point start;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        ++ready;
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        work(t);
      });
    while (ready.load() < threads) std::this_thread::yield();
    start = Clock::now();
    go.store(true, std::memory_order_release);
    for (std::thread &th : pool) th.join();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

} // namespace

Peaks measurePeaks(int threads) {
  Peaks p;
  p.threads = std::max(1, threads);
  const bool avx512 = hasAvx512();
  if (!avx512 && !hasAvx2Fma()) return p;
  std::atomic<float> sink{0};
  auto gflops = [&](double flopsPerThread, const std::function<float()> &loop) {
    double s = bestParallelSeconds(p.threads, 3, [&](int) { sink = sink + loop(); });
    return flopsPerThread * p.threads / s * 1e-9;
  };
  p.f32Gflops = avx512 ? gflops(kFmaLoopFlops, fmaLoop) : gflops(kFmaAvx2LoopFlops, fmaLoopAvx2);
  if (avx512 && hasAvx512Bf16()) p.bf16Gflops = gflops(kDpbf16LoopFlops, dpbf16Loop);
  if (amxAvailable()) // the tile state is per thread: each worker asks for it too
    p.bf16Gflops = std::max(p.bf16Gflops, gflops(kAmxLoopFlops, [] {
                              if (!amxAvailable()) return 0.0f;
                              amxLoop();
                              return 1.0f;
                            }));

  const size_t n = (size_t(1) << 30) / sizeof(float);
  float *buffer = static_cast<float *>(std::aligned_alloc(64, n * sizeof(float)));
  if (!buffer) return p;
  const size_t chunk = n / size_t(p.threads) / 128 * 128;
  // First touch by the thread that reads the slice.
  bestParallelSeconds(p.threads, 1, [&](int t) { std::fill(buffer + t * chunk, buffer + (t + 1) * chunk, 1.0f); });
  double s = bestParallelSeconds(p.threads, 3, [&](int t) {
    sink = sink + (avx512 ? readSlice : readSliceAvx2)(buffer + t * chunk, chunk);
  });
  p.readGbps = double(chunk) * p.threads * sizeof(float) / s * 1e-9;
  std::free(buffer);
  return p;
}

} // namespace argus::machine
