//===- overlap_probe.cpp - how far one core overlaps decode's reads with its math ===//
//
// Paged decode reads, each step, one KV head's 16 rows of keys and of values
// (256 bytes each, 2 KiB apart in a 32 KiB page of Llama-3-8B's cache) and
// fetches the next step's rows into L2 while it computes. This probe walks
// the same pattern over two 512 MiB pools of pages (keys, values) in a
// random page order, with FMAS fused multiply-adds (8 chains) for every
// 64-byte line read (decode's step runs about 16 instructions a line),
// on one thread, and reports GB/s of pages read:
//
//   overlap/layout:L/fmas:F/ahead:D/spread:S/cached:0  pages from memory
//   overlap/layout:L/fmas:F/ahead:D/spread:S/cached:1  the same walk over 4
//       pages, again and again (L1/L2): the arithmetic and loads alone
//
// layout 0: the catalog's (P x PAGE x KVH x D: a head's rows 2 KiB apart);
// layout 1: head-major (P x KVH x PAGE x D: a head's 4 KiB contiguous).
// ahead: the step whose rows are fetched, D steps on (8 steps: a page).
// spread 1: one line of that step per line read, as decode's product
// shadows do; spread 0: all its lines at the start of the step.
// Were reads and arithmetic overlapped, the walk from memory would run at
// min(memory with fmas:0, cached); were they serial, at 1 / (1/memory +
// 1/cached). Needs AVX-512 (skipped with an error elsewhere).
//
//===----------------------------------------------------------------------===//
#include "argus/Tuning/MachinePeaks.h"

#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace {

constexpr size_t kPageBytes = 32768, kHeads = 8, kRows = 16, kRowBytes = 256;
constexpr size_t kPoolBytes = size_t(512) << 20, kPages = kPoolBytes / kPageBytes, kSteps = kPages * kHeads;

/// Byte offsets of a step's rows within its page, for each layout.
struct Layout {
  size_t headBytes, rowPitch;
};
constexpr Layout kLayouts[2] = {{kRowBytes, kHeads * kRowBytes}, {kRows * kRowBytes, kRowBytes}};

struct Pools {
  char *keys = nullptr, *values = nullptr;
  std::vector<size_t> scattered, resident; /* page order from memory; 4 pages round and round */
  Pools() {
    keys = static_cast<char *>(std::aligned_alloc(4096, kPoolBytes));
    values = static_cast<char *>(std::aligned_alloc(4096, kPoolBytes));
    if (!keys || !values) return;
    std::memset(keys, 1, kPoolBytes);
    std::memset(values, 1, kPoolBytes);
    scattered.resize(kPages);
    std::iota(scattered.begin(), scattered.end(), size_t(0));
    std::shuffle(scattered.begin(), scattered.end(), std::mt19937(1));
    resident.resize(kPages);
    for (size_t i = 0; i < kPages; ++i) resident[i] = i % 4;
  }
};

Pools &pools() {
  static Pools p;
  return p;
}

/// One walk over every step of the pools (pages in `order`); returns a sum
/// so that nothing is optimised away.
template <int FMAS, bool SPREAD>
__attribute__((target("avx512f,fma"), noinline)) float walk(const Pools &p, const std::vector<size_t> &order,
                                                           Layout layout, size_t ahead) {
  __m512 sum = _mm512_setzero_ps(), c[8];
  for (int i = 0; i < 8; ++i) c[i] = _mm512_set1_ps(1.0f + float(i));
  const __m512 m = _mm512_set1_ps(0.999f);
  auto offset = [&](size_t step) { return order[step / kHeads] * kPageBytes + (step % kHeads) * layout.headBytes; };
  for (size_t s = 0; s < kSteps; ++s) {
    const size_t here = offset(s), next = offset(std::min(s + ahead, kSteps - 1));
    for (const char *pool : {p.keys, p.values}) {
      const char *rows = pool + here, *fetch = pool + next;
      if (!SPREAD)
        for (size_t r = 0; r < kRows; ++r)
          for (size_t b = 0; b < kRowBytes; b += 64) _mm_prefetch(fetch + r * layout.rowPitch + b, _MM_HINT_T1);
      for (size_t r = 0; r < kRows; ++r)
        for (size_t b = 0; b < kRowBytes; b += 64) {
          if (SPREAD) _mm_prefetch(fetch + r * layout.rowPitch + b, _MM_HINT_T1);
          sum = _mm512_add_ps(sum, _mm512_load_ps(rows + r * layout.rowPitch + b));
#pragma GCC unroll 32
          for (int f = 0; f < FMAS; ++f) c[f % 8] = _mm512_fmadd_ps(c[f % 8], m, m);
        }
    }
  }
  for (int i = 0; i < 8; ++i) sum = _mm512_add_ps(sum, c[i]);
  alignas(64) float lanes[16]; /* (_mm512_reduce_add_ps draws a false -Wuninitialized from GCC 12) */
  _mm512_store_ps(lanes, sum);
  return std::accumulate(lanes, lanes + 16, 0.0f);
}

template <bool SPREAD> float walkWith(int fmas, const Pools &p, const std::vector<size_t> &order, Layout l, size_t ahead) {
  switch (fmas) {
  case 0: return walk<0, SPREAD>(p, order, l, ahead);
  case 8: return walk<8, SPREAD>(p, order, l, ahead);
  case 16: return walk<16, SPREAD>(p, order, l, ahead);
  default: return walk<24, SPREAD>(p, order, l, ahead);
  }
}

void benchOverlap(benchmark::State &st) {
  if (!argus::machine::hasAvx512()) return st.SkipWithError("needs AVX-512");
  const Pools &p = pools();
  if (!p.keys || !p.values) return st.SkipWithError("cannot allocate 1 GiB");
  const Layout layout = kLayouts[st.range(0)];
  const int fmas = int(st.range(1));
  const size_t ahead = size_t(st.range(2));
  const bool spread = st.range(3) != 0;
  const std::vector<size_t> &order = st.range(4) != 0 ? p.resident : p.scattered;
  for (auto _ : st)
    benchmark::DoNotOptimize(spread ? walkWith<true>(fmas, p, order, layout, ahead)
                                    : walkWith<false>(fmas, p, order, layout, ahead));
  st.counters["GB/s"] = benchmark::Counter(2.0 * double(kPoolBytes) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void overlapArgs(benchmark::internal::Benchmark *b) {
  b->ArgNames({"layout", "fmas", "ahead", "spread", "cached"});
  for (int cached : {0, 1})
    for (int layout : {0, 1})
      for (int fmas : {0, 16, 24}) {
        b->Args({layout, fmas, 1, 1, cached});
        if (layout == 0 && fmas == 16)
          for (int ahead : {2, 8}) b->Args({layout, fmas, ahead, 1, cached});
        if (fmas == 16) b->Args({layout, fmas, 1, 0, cached});
      }
}

BENCHMARK(benchOverlap)->Name("overlap")->Apply(overlapArgs)->UseRealTime()->MinTime(0.3)->Repetitions(3);

} // namespace

BENCHMARK_MAIN();
