//===- MachinePeaks.h - the machine's arithmetic and memory roofs -*- C++ -*-===//
//
// What "fraction of peak" divides by: register-only loops of independent
// AVX-512 FMAs (f32), vdpbf16ps (bf16 pairs) and AMX tdpbf16ps (bf16 tiles),
// run by every thread at once, so a figure is the whole machine's at that
// thread count; and a read of a buffer far larger than the caches, in streams
// (the roof of decode-sized GEMMs, which stream their weights). GFLOP/s
// counts 2 flops per multiply-add. Used by the build's report (roofline) and
// by bench/peak_bench.cpp, which times the same loops with Google Benchmark.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TUNING_MACHINEPEAKS_H
#define ARGUS_TUNING_MACHINEPEAKS_H

#include <cstddef>

namespace argus::machine {

/// Multiply-adds one call of each loop performs on one thread.
inline constexpr long kPeakSteps = 1 << 20;
inline constexpr double kFmaLoopFlops = 16.0 * 16 * 2 * kPeakSteps;
inline constexpr double kFmaAvx2LoopFlops = 12.0 * 8 * 2 * kPeakSteps;
inline constexpr double kDpbf16LoopFlops = 16.0 * 32 * 2 * kPeakSteps;
inline constexpr double kAmxLoopFlops = 4.0 * 16 * 16 * 32 * 2 * (kPeakSteps / 16);

bool hasAvx512();
bool hasAvx512Bf16();
/// AMX-BF16 present and its tile state granted by Linux (arch_prctl).
bool amxAvailable();

/// The loops (call only where the matching has*/amxAvailable is true); the
/// results only keep the work from being optimised away.
float fmaLoop();
float fmaLoopAvx2(); // where there is no AVX-512: AVX2 with FMA
float dpbf16Loop();
void amxLoop();
/// Sums `n` floats (a multiple of 128) with 8 independent AVX-512 (or AVX2)
/// accumulators, reading 8 parts of them side by side (MachinePeaks.cpp:
/// one stream a thread reads a quarter slower).
float readSlice(const float *p, size_t n);
float readSliceAvx2(const float *p, size_t n);

struct Peaks {
  int threads = 0;
  double f32Gflops = 0;  // AVX-512 FMA, else AVX2 FMA
  double bf16Gflops = 0; // the faster of vdpbf16ps and AMX
  double readGbps = 0;   // read of 1 GiB (8 streams a thread)
};

/// Measures every roof with `threads` threads (best of a few runs, about a
/// second in all). Zero where the CPU lacks the instructions.
Peaks measurePeaks(int threads);

} // namespace argus::machine

#endif // ARGUS_TUNING_MACHINEPEAKS_H
