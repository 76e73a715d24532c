//===- gemm_bench.cpp - generated Argus GEMM vs oneDNN and OpenBLAS -------===//
//
// Why this file exists: the only honest way to say whether a generated library
// is worth shipping is to time it against what a serving engine would use
// otherwise, in the same process, on the same operands, with the same number
// of threads. The Argus library is loaded with dlopen from $ARGUS_LIBRARY so
// the harness builds without one; its benchmarks are skipped (with a message)
// when the variable is unset or the library does not load.
//
// Every benchmark computes C = A * B^T with A M x K and B N x K, both
// row-major (B is the weight matrix, y = x W^T), on the Llama-3-8B linear
// layers, and reports GFLOP/s = 2*M*N*K per iteration. Before timing, 16
// output elements are checked against a float64 reference so a fast but
// wrong kernel cannot win. Iterations rotate through copies of the weights
// that together hold twice the last-level cache, so each call reads its
// weights from memory, as a serving engine's layer does (the other layers'
// weights evict it between tokens), not from the cache the previous call
// filled (before 11-30 one copy: decode shapes of up to ~250 MB read partly
// from the 300 MiB L3 of the VM, faster than its memory).
//
// Threads: ARGUS_NUM_THREADS, else OMP_NUM_THREADS, else 2, applied to Argus
// (ARGUS_NUM_THREADS), oneDNN (OpenMP) and OpenBLAS (openblas_set_num_threads).
// OpenBLAS picks its kernels when it loads: set OPENBLAS_CORETYPE (e.g.
// SkylakeX) in the environment; the chosen core is printed in the context.
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"
#include "PageAligned.h"
#include "argus_kernels.h"
#include "argus_numerics.h"

#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#if ARGUS_BENCH_HAVE_OPENMP
#include <omp.h>
#endif
#if ARGUS_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif
#if ARGUS_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

using argus_num::bf16_to_f32;
using argus_num::f32_to_bf16;

namespace {

struct Layer { const char *name; int64_t n, k; };
constexpr Layer kLayers[] = {
    {"qkv", 6144, 4096}, {"o", 4096, 4096}, {"gate_up", 28672, 4096}, {"down", 4096, 14336}};
constexpr int64_t kTokens[] = {1, 16, 128, 512};

enum class DType { F32, BF16 };
const char *dtypeName(DType t) { return t == DType::F32 ? "f32" : "bf16"; }

//===--- Operands ---------------------------------------------------------===//

// The weights of one layer in both types, in `copies` identical copies;
// rebuilt only when the layer changes (benchmarks are registered layer by
// layer), so 28672x4096 is filled once.
struct Weights {
  int64_t n = -1, k = -1, copies = 0;
  std::vector<argus::bench::PageAlignedVector<float>> f32; // on pages, as an engine's weights (PageAligned.h)
  std::vector<argus::bench::PageAlignedVector<uint16_t>> bf16;
};

Weights &weightsFor(int64_t n, int64_t k) {
  static Weights w;
  if (w.n != n || w.k != k) {
    w.n = n; w.k = k; w.copies = argus::bench::copiesBeyondCache(2.0 * double(n) * double(k)); /* in bf16 */
    w.f32.assign(1, argus::bench::PageAlignedVector<float>(size_t(n * k)));
    w.bf16.assign(1, argus::bench::PageAlignedVector<uint16_t>(size_t(n * k)));
    Rng r{0x9E3779B97F4A7C15ull ^ uint64_t(n * 131 + k)};
    for (size_t i = 0; i < w.f32[0].size(); ++i) {
      w.bf16[0][i] = f32_to_bf16(r.next());
      w.f32[0][i] = bf16_to_f32(w.bf16[0][i]); // same values in both types
    }
    w.f32.resize(size_t(w.copies), w.f32[0]);
    w.bf16.resize(size_t(w.copies), w.bf16[0]);
  }
  return w;
}

struct Problem {
  int64_t m, n, k;
  DType type;
  argus::bench::PageAlignedVector<float> a32, c32;
  argus::bench::PageAlignedVector<uint16_t> a16, c16;
  const Weights *w;
  const void *a() const { return type == DType::F32 ? (const void *)a32.data() : a16.data(); }
  int64_t copies() const { return w->copies; }
  /// Copy `i` of the weights (all hold the same values).
  const void *b(int64_t i = 0) const {
    return type == DType::F32 ? (const void *)w->f32[size_t(i)].data() : w->bf16[size_t(i)].data();
  }
  void *c() { return type == DType::F32 ? (void *)c32.data() : c16.data(); }
  float cAt(int64_t i) const { return type == DType::F32 ? c32[i] : bf16_to_f32(c16[i]); }
};

Problem makeProblem(int64_t m, const Layer &l, DType t) {
  Problem p{m, l.n, l.k, t, {}, {}, {}, {}, &weightsFor(l.n, l.k)};
  Rng r{0xD1B54A32D192ED03ull ^ uint64_t(m)};
  p.a32.resize(size_t(m * l.k));
  p.a16.resize(size_t(m * l.k));
  for (size_t i = 0; i < p.a32.size(); ++i) {
    p.a16[i] = f32_to_bf16(r.next());
    p.a32[i] = bf16_to_f32(p.a16[i]);
  }
  if (t == DType::F32) p.c32.assign(size_t(m * l.n), NAN);
  else p.c16.assign(size_t(m * l.n), f32_to_bf16(NAN));
  return p;
}

// Checks 16 spread-out output elements against float64. The tolerance is
// relative to sum |a||b| (f32: accumulation error; bf16: one output rounding).
std::string checkOutput(const Problem &p) {
  const double tol = p.type == DType::F32 ? 1e-5 : 1e-2;
  for (int s = 0; s < 16; ++s) {
    int64_t i = (s * 7919) % p.m, j = (int64_t(s) * 104729 + 17) % p.n;
    double ref = 0, mag = 0;
    for (int64_t kk = 0; kk < p.k; ++kk) {
      double x = p.a32[size_t(i * p.k + kk)], y = p.w->f32[0][size_t(j * p.k + kk)];
      ref += x * y; mag += std::fabs(x * y);
    }
    double got = p.cAt(i * p.n + j);
    if (!(std::fabs(got - ref) <= tol * mag)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "wrong result: C[%lld][%lld] expected %.6g, found %.6g",
                    (long long)i, (long long)j, ref, got);
      return buf;
    }
  }
  return "";
}

void setFlops(benchmark::State &st, const Problem &p) {
  st.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * double(p.m) * double(p.n) * double(p.k) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate);
}

// Runs `once` untimed on each copy of the weights, checks the last, then
// times it, the copies in turn. `once(copy)` returns "" or an error.
void timeIt(benchmark::State &st, Problem &p, const std::function<std::string(int64_t)> &once) {
  std::string err;
  for (int64_t i = 0; i < p.copies() && err.empty(); ++i) err = once(i);
  if (err.empty()) err = checkOutput(p);
  if (!err.empty()) { st.SkipWithError(err.c_str()); return; }
  int64_t copy = 0;
  for (auto _ : st) {
    once(copy);
    copy = (copy + 1) % p.copies();
    benchmark::ClobberMemory();
  }
  st.counters["weight_copies"] = double(p.copies());
  setFlops(st, p);
}

//===--- Argus (dlopen) ---------------------------------------------------===//

struct ArgusLib {
  std::string error; // why it is unusable, "" when loaded
  decltype(&argus_gemm) gemm = nullptr;
  decltype(&argus_last_error) lastError = nullptr;
  decltype(&argus_version) version = nullptr;
  decltype(&argus_gemm_kernel_name) kernelName = nullptr; // optional
  decltype(&argus_pack_weights) pack = nullptr;            // optional: libraries before b_packed lack it
  decltype(&argus_packed_weights_size) packedSize = nullptr;
};
const ArgusLib &argusLib() {
  static ArgusLib lib = [] {
    ArgusLib l;
    const char *path = std::getenv("ARGUS_LIBRARY");
    if (!path || !*path) { l.error = "ARGUS_LIBRARY is not set (expected the path of libargus_kernels.so)"; return l; }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) { l.error = std::string("cannot load ARGUS_LIBRARY: ") + dlerror(); return l; }
    l.gemm = (decltype(l.gemm))dlsym(h, "argus_gemm");
    l.lastError = (decltype(l.lastError))dlsym(h, "argus_last_error");
    l.version = (decltype(l.version))dlsym(h, "argus_version");
    l.kernelName = (decltype(l.kernelName))dlsym(h, "argus_gemm_kernel_name");
    l.pack = (decltype(l.pack))dlsym(h, "argus_pack_weights");
    l.packedSize = (decltype(l.packedSize))dlsym(h, "argus_packed_weights_size");
    if (!l.gemm || !l.lastError || !l.version)
      l.error = std::string(path) + " lacks argus_gemm/argus_last_error/argus_version";
    return l;
  }();
  return lib;
}

/// `packed`: the weights go through argus_pack_weights once, outside the
/// timed loop (the counterpart of oneDNN's reorder to format_tag::any).
void benchArgus(benchmark::State &st, Layer l, int64_t m, DType t, bool packed) {
  const ArgusLib &lib = argusLib();
  if (!lib.error.empty()) { st.SkipWithError(lib.error.c_str()); return; }
  if (packed && (!lib.pack || !lib.packedSize)) {
    st.SkipWithError("this library has no argus_pack_weights");
    return;
  }
  Problem p = makeProblem(m, l, t);
  argus_dtype dt = t == DType::F32 ? ARGUS_DTYPE_F32 : ARGUS_DTYPE_BF16;
  std::vector<std::unique_ptr<void, void (*)(void *)>> packedB; // one per copy of the weights
  for (int64_t i = 0; packed && i < p.copies(); ++i) {
    argus_weights_desc w{sizeof(argus_weights_desc), 1, l.n, l.k, dt, p.b(i), l.k, 0};
    const size_t bytes = lib.packedSize(&w);
    packedB.emplace_back(bytes ? std::aligned_alloc(64, (bytes + 63) / 64 * 64) : nullptr, std::free);
    if (!packedB.back() || lib.pack(&w, packedB.back().get(), bytes, nullptr) != ARGUS_OK) {
      st.SkipWithError((std::string("argus_pack_weights failed: ") + lib.lastError()).c_str());
      return;
    }
  }
  argus_gemm_args args{};
  args.struct_size = sizeof args;
  args.m = m; args.n = l.n; args.k = l.k;
  args.a_type = args.b_type = args.c_type = dt;
  args.a = p.a(); args.lda = l.k;
  args.b = p.b(); args.ldb = l.k;
  args.c = p.c(); args.ldc = l.n;
  args.bias = nullptr; args.alpha = 1.f; args.beta = 0.f;
  args.b_packed = packed ? packedB[0].get() : nullptr;
  if (lib.kernelName)
    if (const char *kn = lib.kernelName(&args)) st.SetLabel(kn);
  timeIt(st, p, [&](int64_t copy) -> std::string {
    args.b = p.b(copy);
    if (packed) args.b_packed = packedB[size_t(copy)].get();
    argus_status s = lib.gemm(&args, nullptr);
    return s == ARGUS_OK ? "" : std::string("argus_gemm failed: ") + lib.lastError();
  });
}

//===--- oneDNN -----------------------------------------------------------===//

#if ARGUS_BENCH_HAVE_DNNL
void benchDnnl(benchmark::State &st, Layer l, int64_t m, DType t, bool packed) {
  using namespace dnnl;
  Problem p = makeProblem(m, l, t);
  try {
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    memory::data_type dt = t == DType::F32 ? memory::data_type::f32 : memory::data_type::bf16;
    memory::desc aMd({m, l.k}, dt, memory::format_tag::ab);
    memory::desc bPlainMd({l.k, l.n}, dt, memory::format_tag::ba); // N x K row-major seen as K x N
    memory::desc cMd({m, l.n}, dt, memory::format_tag::ab);
    memory::desc bMd = packed ? memory::desc({l.k, l.n}, dt, memory::format_tag::any) : bPlainMd;
#if DNNL_VERSION_MAJOR >= 3
    matmul::primitive_desc pd(eng, aMd, bMd, cMd);
#else
    matmul::primitive_desc pd(matmul::desc(aMd, bMd, cMd), eng);
#endif
    memory aMem(aMd, eng, const_cast<void *>(p.a()));
    memory cMem(cMd, eng, p.c());
    std::vector<memory> bMems; // one per copy of the weights
    for (int64_t i = 0; i < p.copies(); ++i) {
      memory bPlain(bPlainMd, eng, const_cast<void *>(p.b(i)));
      if (packed && pd.weights_desc() != bPlainMd) { // pack once, outside the timed loop
        memory bPacked(pd.weights_desc(), eng);
        reorder(bPlain, bPacked).execute(strm, bPlain, bPacked);
        strm.wait();
        bMems.push_back(bPacked);
      } else {
        bMems.push_back(bPlain);
      }
    }
    matmul prim(pd);
    st.SetLabel(std::string("impl=") + pd.impl_info_str());
    timeIt(st, p, [&](int64_t copy) -> std::string {
      prim.execute(strm, {{DNNL_ARG_SRC, aMem}, {DNNL_ARG_WEIGHTS, bMems[size_t(copy)]}, {DNNL_ARG_DST, cMem}});
      strm.wait();
      return "";
    });
  } catch (const dnnl::error &e) {
    st.SkipWithError((std::string("oneDNN: ") + e.what()).c_str());
  }
}
#endif

//===--- OpenBLAS ---------------------------------------------------------===//

#if ARGUS_BENCH_HAVE_OPENBLAS
void benchOpenBlas(benchmark::State &st, Layer l, int64_t m) {
  Problem p = makeProblem(m, l, DType::F32);
  timeIt(st, p, [&](int64_t copy) -> std::string {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(m), int(l.n), int(l.k), 1.f,
                p.a32.data(), int(l.k), p.w->f32[size_t(copy)].data(), int(l.k), 0.f, p.c32.data(), int(l.n));
    return "";
  });
}
#endif

//===--- Registration -----------------------------------------------------===//

void configure(benchmark::internal::Benchmark *b) {
  b->Unit(benchmark::kMillisecond)->ReportAggregatesOnly(true)->UseRealTime();
  BenchDefaults::apply(b, 0.2, 3);
}

std::string nameOf(const char *lib, DType t, const Layer &l, int64_t m) {
  return std::string(lib) + "/" + dtypeName(t) + "/" + l.name + "_n" + std::to_string(l.n) + "_k" +
         std::to_string(l.k) + "/M:" + std::to_string(m);
}

void registerAll() {
  for (const Layer &l : kLayers)
    for (DType t : {DType::BF16, DType::F32})
      for (int64_t m : kTokens) {
        configure(benchmark::RegisterBenchmark(nameOf("argus", t, l, m).c_str(),
                                               [=](benchmark::State &s) { benchArgus(s, l, m, t, false); }));
        configure(benchmark::RegisterBenchmark(nameOf("argus_packed", t, l, m).c_str(),
                                               [=](benchmark::State &s) { benchArgus(s, l, m, t, true); }));
#if ARGUS_BENCH_HAVE_DNNL
        configure(benchmark::RegisterBenchmark(
            nameOf("onednn_plain", t, l, m).c_str(),
            [=](benchmark::State &s) { benchDnnl(s, l, m, t, false); }));
        configure(benchmark::RegisterBenchmark(
            nameOf("onednn_packed", t, l, m).c_str(),
            [=](benchmark::State &s) { benchDnnl(s, l, m, t, true); }));
#endif
#if ARGUS_BENCH_HAVE_OPENBLAS
        if (t == DType::F32)
          configure(benchmark::RegisterBenchmark(
              nameOf("openblas", t, l, m).c_str(),
              [=](benchmark::State &s) { benchOpenBlas(s, l, m); }));
#endif
      }
}

} // namespace

int main(int argc, char **argv) {
  [[maybe_unused]] const int threads = applyBenchThreads();
#if ARGUS_BENCH_HAVE_OPENBLAS
  openblas_set_num_threads(threads);
  benchmark::AddCustomContext("openblas_core", openblas_get_corename());
#endif
#if ARGUS_BENCH_HAVE_DNNL
  const dnnl_version_t *v = dnnl_version();
  benchmark::AddCustomContext("onednn", std::to_string(v->major) + "." + std::to_string(v->minor) +
                                            "." + std::to_string(v->patch));
#endif
  const ArgusLib &lib = argusLib();
  benchmark::AddCustomContext("argus_library", lib.error.empty() ? std::getenv("ARGUS_LIBRARY")
                                                                 : "unavailable: " + lib.error);
  if (lib.error.empty()) benchmark::AddCustomContext("argus_version", lib.version());

  BenchDefaults::readCommandLine(argc, argv);
  registerAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
