//===- dispatch_bench.cpp - what one argus_gemm call costs before the kernel ===//
//
// Links a library made like a generated one (the runtime, the export map)
// whose Llama-3-8B tables hold no-op kernels (dispatch_stub_tables.cpp), and
// times, in the same run:
//   direct           the no-op kernel called through the library's PLT, with
//                    ready-made arguments: the floor of any call
//   argus_gemm/...   the C ABI: checks, shape lookup, bucket search, kernel
//                    arguments, then the same no-op kernel
// Dispatch overhead = argus_gemm - direct (median of the repetitions).
//
//===----------------------------------------------------------------------===//
#include "argus_kernels.h"
#include "cpu/argus_cpu_abi.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

extern "C" void argus_dispatch_stub_noop(const argus_cpu_arg *args, int threads);

namespace {

void direct(benchmark::State &state) {
  argus_cpu_arg args[7] = {};
  for (auto _ : state) {
    argus_dispatch_stub_noop(args, 1);
    benchmark::ClobberMemory();
  }
}

/// argus_gemm for an m x n x k bf16 problem; the no-op kernel reads nothing,
/// so small buffers stand in for the operands.
void gemm(benchmark::State &state, int64_t n, int64_t k) {
  static std::vector<uint16_t> buffer(64);
  argus_gemm_args g = {sizeof g};
  g.m = state.range(0);
  g.n = n;
  g.k = k;
  g.a_type = g.b_type = g.c_type = ARGUS_DTYPE_BF16;
  g.a = g.b = g.c = buffer.data();
  g.lda = g.ldb = k;
  g.ldc = n;
  g.alpha = 1;
  for (auto _ : state) {
    if (argus_gemm(&g, nullptr) != ARGUS_OK) {
      state.SkipWithError(argus_last_error());
      break;
    }
    benchmark::ClobberMemory();
  }
}

void catalogShape(benchmark::State &state) { gemm(state, 4096, 14336); } // down: the 4th of 5 groups
void otherShape(benchmark::State &state) { gemm(state, 1000, 1000); }    // not in the catalog: the fallback

void settings(benchmark::internal::Benchmark *b) { b->Repetitions(5)->ReportAggregatesOnly(true); }

} // namespace

BENCHMARK(direct)->Apply(settings);
BENCHMARK(catalogShape)->Name("argus_gemm/catalog")->Arg(1)->Arg(100)->Arg(8192)->Apply(settings);
BENCHMARK(otherShape)->Name("argus_gemm/fallback")->Arg(1)->Arg(100)->Apply(settings);
BENCHMARK_MAIN();
