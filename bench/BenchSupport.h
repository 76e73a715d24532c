//===- BenchSupport.h - what every harness shares --------------------------===//
//
// Every harness runs the generated library and its peers with the same
// number of threads: ARGUS_NUM_THREADS, else OMP_NUM_THREADS, else 2. Argus
// reads ARGUS_NUM_THREADS at its first call; Debian's oneDNN and the
// harnesses' own loops follow OpenMP. Recorded in the benchmark context.
// Operands come from one deterministic generator, so every library sees the
// same bits.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BENCH_SUPPORT_H
#define ARGUS_BENCH_SUPPORT_H

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#if ARGUS_BENCH_HAVE_OPENMP
#include <omp.h>
#endif

/// Decides the thread count, applies it to Argus and OpenMP, and returns it.
inline int applyBenchThreads() {
  int threads = 2;
  for (const char *var : {"ARGUS_NUM_THREADS", "OMP_NUM_THREADS"})
    if (const char *v = std::getenv(var); v && std::atoi(v) > 0) {
      threads = std::atoi(v);
      break;
    }
  setenv("ARGUS_NUM_THREADS", std::to_string(threads).c_str(), 1);
#if ARGUS_BENCH_HAVE_OPENMP
  omp_set_num_threads(threads);
#endif
  benchmark::AddCustomContext("threads", std::to_string(threads));
  return threads;
}

/// Per-benchmark MinTime/Repetitions would override --benchmark_min_time and
/// --benchmark_repetitions, so a short smoke run would still take full time:
/// the harness defaults apply only where the command line sets nothing.
struct BenchDefaults {
  bool minTimeGiven = false, repetitionsGiven = false;

  static BenchDefaults &get() {
    static BenchDefaults d;
    return d;
  }
  /// Call before registering benchmarks.
  static void readCommandLine(int argc, char **argv) {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      get().minTimeGiven |= arg.rfind("--benchmark_min_time", 0) == 0;
      get().repetitionsGiven |= arg.rfind("--benchmark_repetitions", 0) == 0;
    }
  }
  static void apply(benchmark::internal::Benchmark *b, double minTime, int repetitions) {
    if (!get().minTimeGiven) b->MinTime(minTime);
    if (!get().repetitionsGiven) b->Repetitions(repetitions);
  }
};

/// Deterministic non-zero values in +-[0.125, 1) (xorshift).
struct Rng {
  uint64_t s;
  float next() {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    float mag = 0.125f + 0.875f * float(s >> 40) / float(1ull << 24);
    return (s & 1) ? -mag : mag;
  }
};

#endif // ARGUS_BENCH_SUPPORT_H
