//===- AbProbe.h - two Argus libraries in one process, calls alternating ---===//
//
// Why this exists: on a shared machine throughput drifts 10-30% within
// minutes, so two libraries timed one after the other (two benchmark runs)
// cannot resolve a 5% change. The A/B probes (gemm_ab.cpp, decode_ab.cpp)
// load both libraries into one process (dlopen, RTLD_LOCAL | RTLD_DEEPBIND:
// each keeps its own runtime) and call them alternately on the same
// operands, swapping which goes first every iteration. They are timing
// probes for changes that keep the results, not peer benchmarks.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_BENCH_AB_PROBE_H
#define ARGUS_BENCH_AB_PROBE_H

#include "PageAligned.h"
#include "argus_kernels.h"
#include "argus_numerics.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

namespace argus::bench {

/// `symbol` of the library at `path`, loaded with its own runtime; exits
/// with a message naming `probe` when either is missing.
template <class Fn> Fn loadAbSymbol(const char *probe, const char *path, const char *symbol) {
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!library) {
    std::fprintf(stderr, "%s: %s\n", probe, dlerror());
    std::exit(1);
  }
  auto fn = reinterpret_cast<Fn>(dlsym(library, symbol));
  if (!fn) {
    std::fprintf(stderr, "%s: %s has no %s\n", probe, path, symbol);
    std::exit(1);
  }
  return fn;
}

/// Weights packed by the library at `path` (argus_pack_weights: the packed
/// bytes are a library's own), 64-byte aligned; exits naming `probe` when
/// the library cannot pack them.
inline std::unique_ptr<void, void (*)(void *)> packWithLibrary(const char *probe, const char *path,
                                                               const argus_weights_desc &weights) {
  const auto size = loadAbSymbol<decltype(&argus_packed_weights_size)>(probe, path, "argus_packed_weights_size");
  const auto pack = loadAbSymbol<decltype(&argus_pack_weights)>(probe, path, "argus_pack_weights");
  const size_t bytes = size(&weights);
  std::unique_ptr<void, void (*)(void *)> out(bytes ? std::aligned_alloc(64, (bytes + 63) / 64 * 64) : nullptr,
                                              std::free);
  if (!out || pack(&weights, out.get(), bytes, nullptr) != ARGUS_OK) {
    std::fprintf(stderr, "%s: %s could not pack the weights\n", probe, path);
    std::exit(1);
  }
  return out;
}

/// `count` bf16 values uniform in [-1, 1), on pages (as an engine's tensors).
inline PageAlignedVector<uint16_t> randomBf16(size_t count, std::mt19937 &rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  PageAlignedVector<uint16_t> out(count);
  for (uint16_t &x : out) x = argus_num::f32_to_bf16(value(rng));
  return out;
}

/// Exits with a message naming `probe` unless the two libraries' outputs
/// (`count` values read through `at(which, i)`) agree within `tolerance` of
/// the largest; returns the largest difference.
template <class At> double checkAgreement(const char *probe, size_t count, double tolerance, At at) {
  double largest = 0, diff = 0;
  for (size_t i = 0; i < count; ++i) {
    const double a = at(0, i), b = at(1, i);
    largest = std::max(largest, std::fabs(a));
    diff = std::max(diff, std::fabs(a - b));
  }
  if (!(diff <= tolerance * largest)) {
    std::fprintf(stderr, "%s: the libraries disagree by %g (largest output %g)\n", probe, diff, largest);
    std::exit(1);
  }
  return diff;
}

inline double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Per-library call times and per-iteration time ratios A / B.
struct AbTimes {
  std::vector<double> seconds[2], ratio;
};

/// Calls run(0) and run(1) `iterations` times each, A first on even
/// iterations and B first on odd ones.
template <class Run> AbTimes alternate(int iterations, Run run) {
  auto now = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
  AbTimes times;
  for (int it = 0; it < iterations; ++it) {
    double t[2];
    for (int i = 0; i < 2; ++i) {
      const int which = (it + i) % 2;
      const double start = now();
      run(which);
      t[which] = now() - start;
      times.seconds[which].push_back(t[which]);
    }
    times.ratio.push_back(t[0] / t[1]);
  }
  return times;
}

} // namespace argus::bench

#endif // ARGUS_BENCH_AB_PROBE_H
