//===- moe_bench.cpp - generated Argus MoE vs a oneDNN composition --------===//
//
// Why this file exists: a mixture-of-experts layer is not one GEMM, so the
// GEMM bench cannot say whether argus_moe is worth shipping. This harness
// times the whole routed SwiGLU layer (route, group, per-expert gate/up with
// SiLU·mul, down, weighted combine) of two catalog models against the best
// composition a user could build from oneDNN calls, in the same process, on
// the same operands, with the same number of threads:
//
//   qwen3-30b-a3b  hidden 2048, 128 experts of width 768, top-8, renormalised
//                  (shapes/qwen3-30b-a3b.yaml); tokens 1, 16, 128, 512
//   mixtral-8x7b   hidden 4096, 8 experts of width 14336, top-2, renormalised
//                  (shapes/mixtral-8x7b.yaml); tokens 1, 16, 128
//
// Peers, bf16 and f32 (x, weights and out of one dtype, router logits f32):
//   argus   argus_moe of the library in $ARGUS_LIBRARY (dlopen); workspace
//           from argus_moe_workspace_size, allocated once outside the loop.
//   argus_packed  the same with the experts' weights packed once by
//           argus_pack_weights (outside the timed loop), the plain ones unused.
//   onednn  routing and grouping in C++ (argus's algorithm: softmax, top-k
//           by largest logit, renormalise, counting sort by expert), gather;
//           per expert with tokens one oneDNN matmul for gate/up (rows x
//           hidden times [2*inter x hidden]^T -> f32), SiLU·mul in C++ over
//           all routes (rounded to the dtype), one matmul for down (-> f32),
//           weighted combine rounded once. Weights are plain N x K memory
//           seen as K x N `ba` (no pre-packing, like gemm_bench's "plain");
//           primitives are created before timing, cached by (M, N, K).
//
// Routing is realistic: router logits are normal(0, 1) plus a fixed
// per-expert bias (normal(0, 0.5)), so experts get uneven token counts, as in
// trained routers. Counters: tokens, active_experts (experts with at least
// one token), GFLOP/s = 2*tokens*top_k*3*hidden*inter per call, and
// weight_GB/s = bytes of the active experts' weights per call (at small token
// counts an MoE layer is bound by reading weights, not by arithmetic).
//
// Before timing, each peer runs once on NaN-poisoned outputs; every output
// must be finite and up to 4 tokens (all hidden outputs) must match a
// float64 reference within a dtype-appropriate bound, else the benchmark is
// skipped with the numbers. Weights are built once per (model, dtype) and
// shared by every benchmark of that pair (Mixtral's take 2.8 GB in bf16,
// 5.6 GB in f32; only one set lives at a time).
//
// Timing: real time, median of 3 repetitions of >= 0.2 s each;
// --benchmark_min_time / --benchmark_repetitions replace these (smoke runs).
//
// Threads: ARGUS_NUM_THREADS, else OMP_NUM_THREADS, else 2, for Argus (set in
// ARGUS_NUM_THREADS before its first call) and oneDNN and the C++ loops
// (omp_set_num_threads; Debian's oneDNN uses OpenMP).
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"
#include "LibraryLoader.h"
#include "PageAligned.h"
#include "argus_kernels.h"
#include "argus_numerics.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#if ARGUS_BENCH_HAVE_OPENMP
#include <omp.h>
#endif
#if ARGUS_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

using argus_num::bf16_to_f32;
using argus_num::f32_to_bf16;

namespace {

struct Model {
  const char *name;
  int64_t hidden, inter, experts, topK;
  bool renormalize;
};
const Model kQwen3{"qwen3-30b-a3b", 2048, 768, 128, 8, true};
const Model kMixtral{"mixtral-8x7b", 4096, 14336, 8, 2, true};

enum class DType { F32, BF16 };
const char *dtypeName(DType t) { return t == DType::F32 ? "f32" : "bf16"; }
size_t elementBytes(DType t) { return t == DType::F32 ? 4 : 2; }
argus_dtype abiType(DType t) { return t == DType::F32 ? ARGUS_DTYPE_F32 : ARGUS_DTYPE_BF16; }

//===--- Operands ---------------------------------------------------------===//

/// n elements of one dtype; f32 values are the bf16 values widened, so both
/// dtypes see the same numbers (and share one float64 reference).
struct Storage {
  DType type = DType::F32;
  size_t n = 0;
  argus::bench::PageAlignedVector<float> f; // on a page, as an engine's tensors (PageAligned.h)
  argus::bench::PageAlignedVector<uint16_t> h;
  void allocate(DType t, size_t count) {
    type = t, n = count;
    if (t == DType::F32) f = argus::bench::PageAlignedVector<float>(count);
    else h = argus::bench::PageAlignedVector<uint16_t>(count);
  }
  void release() { f = {}, h = {}, n = 0; }
  void *data() { return type == DType::F32 ? static_cast<void *>(f.data()) : static_cast<void *>(h.data()); }
  const void *data() const { return const_cast<Storage *>(this)->data(); }
  char *bytes() { return static_cast<char *>(data()); }
  float at(size_t i) const { return type == DType::F32 ? f[i] : bf16_to_f32(h[i]); }
  void set(size_t i, float v) {
    if (type == DType::F32) f[i] = v;
    else h[i] = f32_to_bf16(v);
  }
  /// scale * Rng values rounded to bf16, in chunks seeded by their index so
  /// the result does not depend on the thread count.
  void fill(uint64_t seed, float scale) {
    const int64_t chunk = int64_t(1) << 20, chunks = (int64_t(n) + chunk - 1) / chunk;
#pragma omp parallel for schedule(dynamic)
    for (int64_t c = 0; c < chunks; ++c) {
      Rng r{seed ^ (uint64_t(c + 1) * 0x9E3779B97F4A7C15ull)};
      for (int i = 0; i < 4; ++i) r.next();
      const size_t end = std::min(n, size_t(c + 1) * size_t(chunk));
      for (size_t i = size_t(c) * size_t(chunk); i < end; ++i) {
        const uint16_t b = f32_to_bf16(scale * r.next());
        if (type == DType::F32) f[i] = bf16_to_f32(b);
        else h[i] = b;
      }
    }
  }
};

/// The expert weights of one (model, dtype): [E, 2I, H] gate/up (gate rows
/// first) and [E, H, I] down, scaled by 1/sqrt(fan-in) so gate values are
/// O(1) and SiLU is exercised where it bends. Rebuilt only when the pair
/// changes (benchmarks are registered model by model, dtype by dtype).
struct Weights {
  const Model *model = nullptr;
  DType type = DType::F32;
  Storage gateUp, down;
  double gib() const { return double(gateUp.n + down.n) * double(elementBytes(type)) / double(1ull << 30); }
};

/// The shared weights of (m, t), or null with `error` set when they do not fit.
const Weights *weightsFor(const Model &m, DType t, std::string &error) {
  static Weights w;
  if (w.model == &m && w.type == t) return &w;
  w.gateUp.release(), w.down.release(), w.model = nullptr; // the old set goes first
  const size_t gu = size_t(m.experts * 2 * m.inter * m.hidden), dn = size_t(m.experts * m.hidden * m.inter);
  try {
    w.gateUp.allocate(t, gu);
    w.down.allocate(t, dn);
  } catch (const std::bad_alloc &) {
    w.gateUp.release(), w.down.release();
    char buf[160];
    std::snprintf(buf, sizeof buf, "cannot allocate %.1f GiB of %s expert weights for %s",
                  double(gu + dn) * double(elementBytes(t)) / double(1ull << 30), dtypeName(t), m.name);
    error = buf;
    return nullptr;
  }
  w.gateUp.fill(0x5851F42D4C957F2Dull ^ uint64_t(m.hidden), 1.0f / std::sqrt(float(m.hidden)));
  w.down.fill(0x2545F4914F6CDD1Dull ^ uint64_t(m.inter), 1.0f / std::sqrt(float(m.inter)));
  w.model = &m, w.type = t;
  return &w;
}

/// Token t's hidden row (bf16 values as float), the same for every token count.
std::vector<float> tokenRow(const Model &m, int64_t t) {
  Rng r{0xD1B54A32D192ED03ull ^ (uint64_t(t + 1) * 0xBF58476D1CE4E5B9ull)};
  std::vector<float> x(static_cast<size_t>(m.hidden));
  for (float &v : x) v = bf16_to_f32(f32_to_bf16(r.next()));
  return x;
}

/// Token t's router logits: normal(0, 1) plus a per-expert popularity bias.
std::vector<float> logitRow(const Model &m, int64_t t) {
  static std::map<const Model *, std::vector<float>> biases;
  std::vector<float> &bias = biases[&m];
  if (bias.empty()) {
    std::mt19937_64 g(uint64_t(m.experts) * 7919);
    std::normal_distribution<float> d(0.f, 0.5f);
    for (int64_t e = 0; e < m.experts; ++e) bias.push_back(d(g));
  }
  std::mt19937_64 g(uint64_t(t) * 104729 + 11);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> l(static_cast<size_t>(m.experts));
  for (int64_t e = 0; e < m.experts; ++e) l[e] = d(g) + bias[e];
  return l;
}

struct Problem {
  const Model &m;
  int64_t tokens;
  DType type;
  const Weights *w;
  Storage x, out;
  std::vector<float> logits;
  int64_t activeExperts = 0;

  Problem(const Model &model, int64_t n, DType t, const Weights *weights) : m(model), tokens(n), type(t), w(weights) {
    x.allocate(t, size_t(n * m.hidden));
    out.allocate(t, size_t(n * m.hidden));
    for (int64_t i = 0; i < n; ++i) {
      std::vector<float> row = tokenRow(m, i), l = logitRow(m, i);
      for (int64_t c = 0; c < m.hidden; ++c) x.set(size_t(i * m.hidden + c), row[c]);
      logits.insert(logits.end(), l.begin(), l.end());
    }
  }
  void poison() {
    for (size_t i = 0; i < out.n; ++i) out.set(i, NAN);
  }
  double weightBytesPerExpert() const { return 3.0 * double(m.hidden) * double(m.inter) * double(elementBytes(type)); }
};

//===--- Routing (argus_moe's algorithm, shared by the composition) --------===//

/// Top-k experts of one token (largest logit first, ties to the lower index)
/// and their softmax weights, renormalised on request.
void routeToken(const Model &m, const float *logits, int32_t *experts, float *weights) {
  const int64_t E = m.experts, K = m.topK;
  float top = logits[0];
  for (int64_t e = 1; e < E; ++e) top = std::max(top, logits[e]);
  double sum = 0, chosen = 0;
  for (int64_t e = 0; e < E; ++e) sum += std::exp(double(logits[e]) - top);
  for (int64_t j = 0; j < K; ++j) {
    int64_t best = -1;
    for (int64_t e = 0; e < E; ++e) {
      bool taken = false;
      for (int64_t i = 0; i < j && !taken; ++i) taken = experts[i] == e;
      if (!taken && (best < 0 || logits[e] > logits[best])) best = e;
    }
    experts[j] = int32_t(best);
    const double p = std::exp(double(logits[best]) - top) / sum;
    weights[j] = float(p);
    chosen += p;
  }
  if (m.renormalize)
    for (int64_t j = 0; j < K; ++j) weights[j] = float(weights[j] / chosen);
}

/// Routes of every token grouped by expert (counting sort, token order kept).
struct Routing {
  std::vector<int32_t> expertOf;
  std::vector<float> weightOf;
  std::vector<int64_t> offsets, slotOf, next;

  void run(const Problem &p) {
    const Model &m = p.m;
    const int64_t K = m.topK, routes = p.tokens * K;
    expertOf.resize(size_t(routes)), weightOf.resize(size_t(routes)), slotOf.resize(size_t(routes));
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t < p.tokens; ++t)
      routeToken(m, p.logits.data() + t * m.experts, expertOf.data() + t * K, weightOf.data() + t * K);
    offsets.assign(size_t(m.experts + 1), 0);
    for (int64_t r = 0; r < routes; ++r) ++offsets[expertOf[r] + 1];
    for (int64_t e = 0; e < m.experts; ++e) offsets[e + 1] += offsets[e];
    next.assign(offsets.begin(), offsets.end() - 1);
    for (int64_t r = 0; r < routes; ++r) slotOf[r] = next[expertOf[r]]++;
  }
  int64_t active() const {
    int64_t n = 0;
    for (size_t e = 0; e + 1 < offsets.size(); ++e) n += offsets[e + 1] > offsets[e];
    return n;
  }
};

//===--- Float64 reference and check --------------------------------------===//

struct Reference {
  std::vector<double> out, l2, mag; // per hidden output
};

template <class T> float widen(T v);
template <> float widen<float>(float v) { return v; }
template <> float widen<uint16_t>(uint16_t v) { return bf16_to_f32(v); }

template <class T>
Reference referenceToken(const Model &m, const T *gateUp, const T *down, const std::vector<float> &x,
                         const std::vector<float> &logits) {
  const int64_t H = m.hidden, I = m.inter, K = m.topK;
  std::vector<int32_t> experts(static_cast<size_t>(K));
  std::vector<float> unusedWeights(static_cast<size_t>(K));
  routeToken(m, logits.data(), experts.data(), unusedWeights.data()); // only the choice; weights in double below
  double top = logits[0], sum = 0, chosen = 0;
  for (float l : logits) top = std::max(top, double(l));
  for (float l : logits) sum += std::exp(double(l) - top);
  std::vector<double> w(static_cast<size_t>(K));
  for (int64_t j = 0; j < K; ++j) chosen += w[j] = std::exp(double(logits[experts[j]]) - top) / sum;
  if (m.renormalize)
    for (double &v : w) v /= chosen;
  Reference ref;
  ref.out.assign(size_t(H), 0), ref.l2.assign(size_t(H), 0), ref.mag.assign(size_t(H), 0);
  std::vector<double> h(static_cast<size_t>(I));
  for (int64_t j = 0; j < K; ++j) {
    const T *wg = gateUp + size_t(experts[j]) * size_t(2 * I * H), *wd = down + size_t(experts[j]) * size_t(H * I);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < I; ++i) {
      double g = 0, u = 0;
      const T *gr = wg + size_t(i * H), *ur = wg + size_t((I + i) * H);
      for (int64_t c = 0; c < H; ++c) g += double(x[c]) * widen(gr[c]), u += double(x[c]) * widen(ur[c]);
      h[i] = g / (1 + std::exp(-g)) * u;
    }
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < H; ++c) {
      double y = 0, sq = 0, ab = 0;
      const T *dr = wd + size_t(c * I);
      for (int64_t i = 0; i < I; ++i) {
        const double term = h[i] * widen(dr[i]);
        y += term, sq += term * term, ab += std::fabs(term);
      }
      ref.out[c] += w[j] * y, ref.l2[c] += w[j] * w[j] * sq, ref.mag[c] += w[j] * ab;
    }
  }
  for (double &v : ref.l2) v = std::sqrt(v);
  return ref;
}

/// The reference of token t, computed once per process (weights and inputs
/// of a token do not depend on the dtype or the token count).
const Reference &referenceFor(const Model &m, const Weights &w, int64_t t) {
  static std::map<std::pair<const Model *, int64_t>, Reference> cache;
  auto it = cache.find({&m, t});
  if (it != cache.end()) return it->second;
  const std::vector<float> x = tokenRow(m, t), l = logitRow(m, t);
  Reference r = w.type == DType::F32 ? referenceToken(m, w.gateUp.f.data(), w.down.f.data(), x, l)
                                     : referenceToken(m, w.gateUp.h.data(), w.down.h.data(), x, l);
  return cache.emplace(std::make_pair(&m, t), std::move(r)).first->second;
}

/// Every output finite; tokens {0, n/3, 2n/3, n-1}, all hidden outputs,
/// against float64. bf16: the intermediate activations are rounded to bf16
/// (relative error <= 2^-9 each, independent), so the bound is 12 * 2^-9
/// times the root-sum-square of the down terms (room for an implementation
/// that also rounds gate and up) plus the output's own rounding; a wrong
/// expert or weight is off by about the root-sum-square itself. f32: 1e-5 of
/// the sum of |terms| (accumulation order). The label reports the largest
/// error as a fraction of its bound (err/tol).
std::string checkOutput(const Problem &p, double *worst = nullptr) {
  for (size_t i = 0; i < p.out.n; ++i)
    if (!std::isfinite(p.out.at(i)))
      return "output element " + std::to_string(i) + " (token " + std::to_string(int64_t(i) / p.m.hidden) +
             ") is not finite: not written, or overflowed";
  std::vector<int64_t> samples = {0, p.tokens / 3, 2 * p.tokens / 3, p.tokens - 1};
  samples.erase(std::unique(samples.begin(), samples.end()), samples.end());
  for (int64_t t : samples) {
    const Reference &ref = referenceFor(p.m, *p.w, t);
    for (int64_t c = 0; c < p.m.hidden; ++c) {
      const double want = ref.out[c], got = p.out.at(size_t(t * p.m.hidden + c));
      const double tol = p.type == DType::F32 ? 1e-5 * ref.mag[c] + 1e-6 * std::fabs(want)
                                              : 12 * 0x1p-9 * ref.l2[c] + 0x1p-8 * std::fabs(want) + 1e-5 * ref.mag[c];
      if (worst) *worst = std::max(*worst, std::fabs(got - want) / tol);
      if (!(std::fabs(got - want) <= tol)) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "wrong result: out[token %lld][%lld] expected %.6g, found %.6g (tolerance %.3g)",
                      (long long)t, (long long)c, want, got, tol);
        return buf;
      }
    }
  }
  return "";
}

/// " err/tol=0.12": the largest checked error as a fraction of its bound.
std::string errorLabel(double worst) {
  char buf[32];
  std::snprintf(buf, sizeof buf, " err/tol=%.2g", worst);
  return buf;
}

void setCounters(benchmark::State &st, const Problem &p) {
  const Model &m = p.m;
  st.counters["tokens"] = double(p.tokens);
  st.counters["active_experts"] = double(p.activeExperts);
  st.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * double(p.tokens) * double(m.topK) * 3.0 * double(m.hidden) * double(m.inter) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate);
  st.counters["weight_GB/s"] = benchmark::Counter(double(p.activeExperts) * p.weightBytesPerExpert() * 1e-9,
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

/// The problem with its shared weights and its routing statistics, or null
/// after SkipWithError.
std::unique_ptr<Problem> makeProblem(benchmark::State &st, const Model &m, int64_t n, DType t) {
  std::string error;
  const Weights *w = weightsFor(m, t, error);
  if (!w) {
    st.SkipWithError(error.c_str());
    return nullptr;
  }
  auto p = std::make_unique<Problem>(m, n, t, w);
  Routing r;
  r.run(*p);
  p->activeExperts = r.active();
  return p;
}

//===--- Argus (dlopen) ---------------------------------------------------===//

struct Argus {
  std::string error;
  decltype(&argus_moe) moe = nullptr;
  decltype(&argus_moe_workspace_size) workspaceSize = nullptr;
  decltype(&argus_last_error) lastError = nullptr;
  decltype(&argus_version) version = nullptr;
  decltype(&argus_manifest_json) manifest = nullptr;
  decltype(&argus_pack_weights) pack = nullptr; // optional: libraries before packing lack them
  decltype(&argus_packed_weights_size) packedSize = nullptr;
};
const Argus &argusLibrary() {
  static Argus a = [] {
    Argus r;
    const argus_test::GeneratedLibrary &lib = argus_test::GeneratedLibrary::get();
    r.error = lib.error();
    r.moe = lib.symbol<argus_status(const argus_moe_args *, void *)>("argus_moe");
    r.workspaceSize = lib.symbol<size_t(const argus_moe_args *)>("argus_moe_workspace_size");
    r.lastError = lib.symbol<const char *()>("argus_last_error");
    r.version = lib.symbol<const char *()>("argus_version");
    r.manifest = lib.symbol<const char *()>("argus_manifest_json");
    r.pack = lib.symbol<decltype(argus_pack_weights)>("argus_pack_weights");
    r.packedSize = lib.symbol<decltype(argus_packed_weights_size)>("argus_packed_weights_size");
    if (r.error.empty() && (!r.moe || !r.workspaceSize || !r.lastError || !r.version))
      r.error = "the library lacks argus_moe/argus_moe_workspace_size/argus_last_error/argus_version";
    return r;
  }();
  return a;
}

/// The manifest's MoE kernel set argus_moe picks for (m, t), as the runtime
/// does: the entry of the dtype with the model's sizes, else its generic one.
/// The C ABI has no argus_moe_kernel_name, so the manifest is the only witness.
std::string kernelSetOf(const Model &m, DType t) {
  if (!argusLibrary().manifest) return "?";
  const nlohmann::json j = nlohmann::json::parse(argusLibrary().manifest(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("moe") || !j["moe"].is_array()) return "? (no moe in the manifest)";
  std::string generic = "none";
  for (const nlohmann::json &e : j["moe"]) {
    if (e.value("dtype", "") != dtypeName(t)) continue;
    if (e.value("generic", false)) generic = e.value("name", "?") + " (generic)";
    else if (e.value("hidden", int64_t(0)) == m.hidden && e.value("intermediate", int64_t(0)) == m.inter)
      return e.value("name", "?");
  }
  return generic;
}

/// The experts' weights of `w` packed by the library (gate/up as 2E matrices
/// I x H, down as E of H x I), built once per weight set like the weights.
struct PackedWeights {
  const Weights *of = nullptr;
  const Model *model = nullptr;
  DType type = DType::F32;
  std::unique_ptr<void, void (*)(void *)> gateUp{nullptr, std::free}, down{nullptr, std::free};
};

const PackedWeights *packedFor(const Weights &w, const Model &m, DType t, std::string &error) {
  static PackedWeights pw;
  if (pw.of == &w && pw.model == &m && pw.type == t) return &pw;
  pw.gateUp.reset(), pw.down.reset(), pw.of = nullptr;
  const Argus &lib = argusLibrary();
  if (!lib.pack || !lib.packedSize) {
    error = "this library has no argus_pack_weights";
    return nullptr;
  }
  auto packOne = [&](const Storage &src, int64_t count, int64_t rows, int64_t cols,
                     std::unique_ptr<void, void (*)(void *)> &into) {
    argus_weights_desc d{sizeof d, count, rows, cols, abiType(t), src.data(), cols, rows * cols};
    const size_t bytes = lib.packedSize(&d);
    into.reset(bytes ? std::aligned_alloc(64, (bytes + 63) / 64 * 64) : nullptr);
    if (!into || lib.pack(&d, into.get(), bytes, nullptr) != ARGUS_OK) {
      error = std::string("argus_pack_weights failed: ") + lib.lastError();
      return false;
    }
    return true;
  };
  if (!packOne(w.gateUp, 2 * m.experts, m.inter, m.hidden, pw.gateUp) ||
      !packOne(w.down, m.experts, m.hidden, m.inter, pw.down))
    return nullptr;
  pw.of = &w, pw.model = &m, pw.type = t;
  return &pw;
}

void benchArgus(benchmark::State &st, const Model &m, int64_t n, DType t, bool packed) {
  const Argus &lib = argusLibrary();
  if (!lib.error.empty()) return st.SkipWithError(lib.error.c_str());
  std::unique_ptr<Problem> p = makeProblem(st, m, n, t);
  if (!p) return;
  const PackedWeights *pw = nullptr;
  if (packed) {
    std::string error;
    if (!(pw = packedFor(*p->w, m, t, error))) return st.SkipWithError(error.c_str());
  }
  argus_moe_args a{};
  a.struct_size = sizeof a;
  a.num_tokens = n, a.hidden = m.hidden, a.intermediate = m.inter, a.num_experts = m.experts, a.top_k = m.topK;
  a.dtype = abiType(t);
  a.x = p->x.data(), a.router_logits = p->logits.data();
  a.w_gate_up = p->w->gateUp.data(), a.w_down = p->w->down.data();
  a.out = p->out.data(), a.renormalize = m.renormalize ? 1 : 0;
  if (pw) a.w_gate_up_packed = pw->gateUp.get(), a.w_down_packed = pw->down.get();
  const size_t bytes = lib.workspaceSize(&a);
  std::unique_ptr<char[]> storage(new char[bytes + 64]);
  a.workspace = bytes ? reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(storage.get()) + 63) & ~uintptr_t(63))
                      : nullptr;
  a.workspace_size = bytes;
  p->poison();
  if (lib.moe(&a, nullptr) != ARGUS_OK) return st.SkipWithError((std::string("argus_moe failed: ") + lib.lastError()).c_str());
  double worst = 0;
  if (std::string e = checkOutput(*p, &worst); !e.empty()) return st.SkipWithError(e.c_str());
  st.SetLabel("kernels=" + kernelSetOf(m, t) + " workspace=" + std::to_string(bytes >> 10) + "KiB" + errorLabel(worst));
  for (auto _ : st) {
    lib.moe(&a, nullptr);
    benchmark::ClobberMemory();
  }
  setCounters(st, *p);
}

//===--- oneDNN composition -----------------------------------------------===//

#if ARGUS_BENCH_HAVE_DNNL
using dnnl::memory;
using tag = memory::format_tag;

struct DnnlMoe {
  const Model &m;
  DType type;
  memory::data_type dt;
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  std::map<std::tuple<int64_t, int64_t, int64_t>, dnnl::matmul> prims; // (M, N, K)
  std::string impl;                                                    // one implementation name, for the label
  Routing routing;
  Storage xp, h;                   // routed rows grouped by expert; SiLU·mul rows (dtype)
  std::vector<float> gu, y;        // gate/up rows [routes, 2I]; down rows [routes, H]

  DnnlMoe(const Model &model, const Problem &p)
      : m(model), type(p.type), dt(p.type == DType::F32 ? memory::data_type::f32 : memory::data_type::bf16) {
    const size_t routes = size_t(p.tokens * m.topK);
    xp.allocate(type, routes * size_t(m.hidden));
    h.allocate(type, routes * size_t(m.inter));
    gu.resize(routes * size_t(2 * m.inter));
    y.resize(routes * size_t(m.hidden));
    // Routing is deterministic: create every primitive the timed runs use now.
    routing.run(p);
    for (int64_t e = 0; e < m.experts; ++e)
      if (int64_t rows = routing.offsets[e + 1] - routing.offsets[e]) {
        prim(rows, 2 * m.inter, m.hidden);
        prim(rows, m.hidden, m.inter);
      }
  }

  /// dst[M, N] (f32) = src[M, K] (dtype) * W^T, W N x K row-major seen as K x N `ba`.
  dnnl::matmul &prim(int64_t M, int64_t N, int64_t K) {
    auto key = std::make_tuple(M, N, K);
    auto it = prims.find(key);
    if (it != prims.end()) return it->second;
    memory::desc src({M, K}, dt, tag::ab), wei({K, N}, dt, tag::ba), dst({M, N}, memory::data_type::f32, tag::ab);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, wei, dst), eng);
    if (impl.empty()) impl = pd.impl_info_str();
    return prims.emplace(key, dnnl::matmul(pd)).first->second;
  }

  void run(Problem &p) {
    const int64_t H = m.hidden, I = m.inter, K = m.topK, routes = p.tokens * K;
    const size_t el = elementBytes(type);
    routing.run(p);
    const int64_t *offsets = routing.offsets.data(), *slotOf = routing.slotOf.data();
    // Gather the routed rows, grouped by expert.
    const char *x = static_cast<const char *>(p.x.data());
    char *xb = xp.bytes();
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < routes; ++r)
      std::memcpy(xb + slotOf[r] * H * el, x + (r / K) * H * el, size_t(H) * el);
    // Gate/up of every expert with rows.
    const char *wgu = static_cast<const char *>(p.w->gateUp.data()), *wdn = static_cast<const char *>(p.w->down.data());
    for (int64_t e = 0; e < m.experts; ++e) {
      const int64_t row0 = offsets[e], rows = offsets[e + 1] - row0;
      if (!rows) continue;
      dnnl::matmul &mm = prim(rows, 2 * I, H);
      memory src({{rows, H}, dt, tag::ab}, eng, xb + row0 * H * el);
      memory wei({{H, 2 * I}, dt, tag::ba}, eng, const_cast<char *>(wgu) + size_t(e * 2 * I * H) * el);
      memory dst({{rows, 2 * I}, memory::data_type::f32, tag::ab}, eng, gu.data() + row0 * 2 * I);
      mm.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
    }
    strm.wait();
    // SiLU(gate) * up over all routes, rounded to the dtype.
    float *hf = h.f.data();
    uint16_t *hh = h.h.data();
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < routes; ++r) {
      const float *g = gu.data() + r * 2 * I, *u = g + I;
      if (hf)
        for (int64_t i = 0; i < I; ++i) hf[r * I + i] = g[i] / (1.f + std::exp(-g[i])) * u[i];
      else
        for (int64_t i = 0; i < I; ++i) hh[r * I + i] = f32_to_bf16(g[i] / (1.f + std::exp(-g[i])) * u[i]);
    }
    // Down of every expert with rows.
    char *hb = h.bytes();
    for (int64_t e = 0; e < m.experts; ++e) {
      const int64_t row0 = offsets[e], rows = offsets[e + 1] - row0;
      if (!rows) continue;
      dnnl::matmul &mm = prim(rows, H, I);
      memory src({{rows, I}, dt, tag::ab}, eng, hb + row0 * I * el);
      memory wei({{I, H}, dt, tag::ba}, eng, const_cast<char *>(wdn) + size_t(e * H * I) * el);
      memory dst({{rows, H}, memory::data_type::f32, tag::ab}, eng, y.data() + row0 * H);
      mm.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
    }
    strm.wait();
    // Weighted combine, rounded once.
    const float *weightOf = routing.weightOf.data();
    float *of = p.out.f.data();
    uint16_t *oh = p.out.h.data();
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t < p.tokens; ++t) {
      float row[512];
      for (int64_t c0 = 0; c0 < H; c0 += 512) {
        const int64_t w = std::min<int64_t>(512, H - c0);
        std::fill(row, row + w, 0.f);
        for (int64_t j = 0; j < K; ++j) {
          const float s = weightOf[t * K + j], *yr = y.data() + slotOf[t * K + j] * H + c0;
          for (int64_t c = 0; c < w; ++c) row[c] += s * yr[c];
        }
        if (of) std::copy(row, row + w, of + t * H + c0);
        else
          for (int64_t c = 0; c < w; ++c) oh[t * H + c0 + c] = f32_to_bf16(row[c]);
      }
    }
  }
};

void benchDnnl(benchmark::State &st, const Model &m, int64_t n, DType t) {
  std::unique_ptr<Problem> p = makeProblem(st, m, n, t);
  if (!p) return;
  try {
    DnnlMoe d(m, *p);
    p->poison();
    d.run(*p);
    double worst = 0;
    if (std::string e = checkOutput(*p, &worst); !e.empty()) return st.SkipWithError(e.c_str());
    st.SetLabel("impl=" + d.impl + " primitives=" + std::to_string(d.prims.size()) + errorLabel(worst));
    for (auto _ : st) {
      d.run(*p);
      benchmark::ClobberMemory();
    }
    setCounters(st, *p);
  } catch (const dnnl::error &e) {
    st.SkipWithError((std::string("oneDNN: ") + e.what()).c_str());
  }
}
#endif

//===--- Registration -----------------------------------------------------===//

void configure(benchmark::internal::Benchmark *b) {
  b->Unit(benchmark::kMillisecond)->ReportAggregatesOnly(true)->UseRealTime();
  BenchDefaults::apply(b, 0.2, 3);
}

std::string nameOf(const char *lib, DType t, const Model &m, int64_t n) {
  return std::string("moe/") + lib + "/" + dtypeName(t) + "/" + m.name + "/T:" + std::to_string(n);
}

void registerAll() {
  // Model by model, dtype by dtype: each weight set is built once.
  const std::pair<const Model *, std::vector<int64_t>> runs[] = {{&kQwen3, {1, 16, 128, 512}},
                                                                  {&kMixtral, {1, 16, 128}}};
  for (const auto &[model, tokens] : runs)
    for (DType t : {DType::BF16, DType::F32})
      for (int64_t n : tokens) {
        const Model &m = *model;
        configure(benchmark::RegisterBenchmark(nameOf("argus", t, m, n).c_str(),
                                               [&m, n, t](benchmark::State &s) { benchArgus(s, m, n, t, false); }));
        configure(benchmark::RegisterBenchmark(nameOf("argus_packed", t, m, n).c_str(),
                                               [&m, n, t](benchmark::State &s) { benchArgus(s, m, n, t, true); }));
#if ARGUS_BENCH_HAVE_DNNL
        configure(benchmark::RegisterBenchmark(nameOf("onednn", t, m, n).c_str(),
                                               [&m, n, t](benchmark::State &s) { benchDnnl(s, m, n, t); }));
#endif
      }
}

} // namespace

int main(int argc, char **argv) {
  applyBenchThreads();
#if ARGUS_BENCH_HAVE_DNNL
  const dnnl_version_t *v = dnnl_version();
  benchmark::AddCustomContext("onednn", std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                                            std::to_string(v->patch));
#endif
  const Argus &lib = argusLibrary();
  benchmark::AddCustomContext("argus_library",
                              lib.error.empty() ? std::getenv("ARGUS_LIBRARY") : "unavailable: " + lib.error);
  if (lib.error.empty()) benchmark::AddCustomContext("argus_version", lib.version());

  BenchDefaults::readCommandLine(argc, argv);
  registerAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
