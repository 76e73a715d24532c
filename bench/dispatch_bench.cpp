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
// With --catalog-library=PATH it also times argus_gemm of that library (a
// generated library relinked with no-op kernels by stub_catalog_library.sh,
// so its real tables are searched) for every catalog GEMM shape its
// manifest lists, at the first, a middle and the last bucket:
//   catalog/<ops>/<m>   through dlsym'd entry points, like a plugin loader
//
//===----------------------------------------------------------------------===//
#include "argus_kernels.h"
#include "cpu/argus_cpu_abi.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <string>
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

using GemmFn = argus_status (*)(const argus_gemm_args *, void *);
using LastErrorFn = const char *(*)(void);

/// argus_gemm (of whichever library `gemmFn` belongs to) for an m x n x k
/// problem; the no-op kernel reads nothing, so small buffers stand in for
/// the operands.
void gemm(benchmark::State &state, GemmFn gemmFn, LastErrorFn lastError, int64_t m, int64_t n, int64_t k,
          argus_dtype a, argus_dtype c) {
  static std::vector<uint64_t> buffer(64);
  argus_gemm_args g = {sizeof g};
  g.m = m;
  g.n = n;
  g.k = k;
  g.a_type = g.b_type = a;
  g.c_type = c;
  g.a = g.b = g.c = buffer.data();
  g.lda = g.ldb = k;
  g.ldc = n;
  g.alpha = 1;
  for (auto _ : state) {
    if (gemmFn(&g, nullptr) != ARGUS_OK) {
      state.SkipWithError(lastError());
      break;
    }
    benchmark::ClobberMemory();
  }
}

void catalogShape(benchmark::State &state) { // down: the 4th of 5 groups
  gemm(state, argus_gemm, argus_last_error, state.range(0), 4096, 14336, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16);
}
void otherShape(benchmark::State &state) { // not in the catalog: the fallback
  gemm(state, argus_gemm, argus_last_error, state.range(0), 1000, 1000, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16);
}

argus_dtype dtypeOf(const std::string &name) {
  return name == "f32" ? ARGUS_DTYPE_F32 : name == "f16" ? ARGUS_DTYPE_F16 : ARGUS_DTYPE_BF16;
}

/// Registers catalog/<ops>/<m> for every GEMM group of the library's
/// manifest; false (with a message) when the library cannot serve.
bool registerCatalogLibrary(const char *path) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    return false;
  }
  auto gemmFn = reinterpret_cast<GemmFn>(dlsym(lib, "argus_gemm"));
  auto lastError = reinterpret_cast<LastErrorFn>(dlsym(lib, "argus_last_error"));
  auto manifestFn = reinterpret_cast<const char *(*)(void)>(dlsym(lib, "argus_manifest_json"));
  if (!gemmFn || !lastError || !manifestFn) {
    std::fprintf(stderr, "%s lacks the C ABI (argus_gemm, argus_last_error, argus_manifest_json)\n", path);
    return false;
  }
  nlohmann::json manifest = nlohmann::json::parse(manifestFn(), nullptr, false);
  if (manifest.is_discarded() || !manifest.contains("gemm_groups")) {
    std::fprintf(stderr, "%s: its manifest lists no gemm_groups\n", path);
    return false;
  }
  for (const nlohmann::json &g : manifest["gemm_groups"]) {
    std::string ops;
    for (const nlohmann::json &op : g["ops"]) ops += (ops.empty() ? "" : ",") + op.get<std::string>();
    const nlohmann::json &buckets = g["buckets"];
    const int64_t n = g["n"], k = g["k"];
    const argus_dtype a = dtypeOf(g["a_type"]), c = dtypeOf(g["c_type"]);
    for (size_t b : {size_t(0), buckets.size() / 2, buckets.size() - 1}) {
      const int64_t m = buckets[b]["m_min"];
      benchmark::RegisterBenchmark(("catalog/" + ops + "/" + std::to_string(m)).c_str(),
                                   [=](benchmark::State &state) { gemm(state, gemmFn, lastError, m, n, k, a, c); })
          ->Repetitions(5)
          ->ReportAggregatesOnly(true);
    }
  }
  return true;
}

void settings(benchmark::internal::Benchmark *b) { b->Repetitions(5)->ReportAggregatesOnly(true); }

} // namespace

BENCHMARK(direct)->Apply(settings);
BENCHMARK(catalogShape)->Name("argus_gemm/catalog")->Arg(1)->Arg(100)->Arg(8192)->Apply(settings);
BENCHMARK(otherShape)->Name("argus_gemm/fallback")->Arg(1)->Arg(100)->Apply(settings);
int main(int argc, char **argv) {
  const char *prefix = "--catalog-library=";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix, std::strlen(prefix)) == 0) {
      if (!registerCatalogLibrary(argv[i] + std::strlen(prefix))) return 1;
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
      break;
    }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
