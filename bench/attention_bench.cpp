//===- attention_bench.cpp - generated Argus attention vs a oneDNN composition -===//
//
// Prefill: one Llama-3-8B layer's attention (32 query heads, 8 KV heads,
// head_dim 128) over one sequence of S tokens, causal and not, f32 and bf16.
// The peer is the composition a user would build from oneDNN primitives:
// per query head, S = scale * Q·Kᵀ (matmul, f32 scores, the causal mask
// added by a binary post-op), softmax over rows, O = P·V (matmul; P
// reordered to bf16 for bf16). GFLOP/s counts the useful work (4·D flops per visible
// query-key pair), the same for both, so a composition that computes the
// masked half of a causal S is charged for it.
//
// Decode: batch B sequences of C tokens of context each in a paged cache
// (pages of 16, shuffled), bf16; GB/s counts the K and V bytes read. The
// roofs, measured by the same threads in the same run: a copy (memcpy of
// 256 MiB) and a streaming read of 1 GiB (StreamRead.h, with OpenMP).
//
// Every Argus result is checked against the oneDNN composition's (prefill)
// or an untimed reference (decode: a few heads in double) before timing.
// The Argus library is loaded with dlopen from $ARGUS_LIBRARY.
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"
#include "LibraryLoader.h"
#include "PageAligned.h"
#include "argus_kernels.h"
#include "argus_numerics.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#if ARGUS_BENCH_HAVE_OPENMP
#include "StreamRead.h"

#include <omp.h>
#endif
#if ARGUS_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace {

constexpr int64_t kHeads = 32, kKvHeads = 8, kDim = 128, kGroup = kHeads / kKvHeads;

enum class DType { F32, BF16 };

/// Random values of one dtype, stored in their storage type, from a page
/// boundary as an engine's tensors are (PageAligned.h).
struct Buffer {
  DType type;
  argus::bench::PageAlignedVector<float> f32;
  argus::bench::PageAlignedVector<uint16_t> bf16;
  Buffer(DType t, int64_t n, uint64_t seed, float range) : type(t) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(-range, range);
    if (t == DType::F32) {
      f32.resize(size_t(n));
      for (float &x : f32) x = dist(rng);
    } else {
      bf16.resize(size_t(n));
      for (uint16_t &x : bf16) x = argus_num::f32_to_bf16(dist(rng));
    }
  }
  void *data() { return type == DType::F32 ? static_cast<void *>(f32.data()) : static_cast<void *>(bf16.data()); }
  float at(int64_t i) const { return type == DType::F32 ? f32[i] : argus_num::bf16_to_f32(bf16[i]); }
};

argus_dtype abiType(DType t) { return t == DType::F32 ? ARGUS_DTYPE_F32 : ARGUS_DTYPE_BF16; }

/// Query-key pairs a causal (or full) S x S attention computes, per head.
double visiblePairs(int64_t s, bool causal) { return causal ? double(s) * double(s + 1) / 2 : double(s) * double(s); }

void setPrefillFlops(benchmark::State &st, int64_t s, bool causal) {
  st.counters["GFLOP/s"] = benchmark::Counter(4.0 * kDim * kHeads * visiblePairs(s, causal) * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

struct Argus {
  std::string error;
  decltype(&argus_attention_prefill) prefill = nullptr;
  decltype(&argus_attention_decode) decode = nullptr;
  decltype(&argus_last_error) lastError = nullptr;
};
const Argus &argus() {
  static Argus a = [] {
    Argus r;
    const argus_test::GeneratedLibrary &lib = argus_test::GeneratedLibrary::get();
    r.error = lib.error();
    r.prefill = lib.symbol<argus_status(const argus_attention_prefill_args *, void *)>("argus_attention_prefill");
    r.decode = lib.symbol<argus_status(const argus_attention_decode_args *, void *)>("argus_attention_decode");
    r.lastError = lib.symbol<const char *()>("argus_last_error");
    if (r.error.empty() && (!r.prefill || !r.decode || !r.lastError)) r.error = "the library lacks the attention ABI";
    return r;
  }();
  return a;
}

struct PrefillProblem {
  int64_t s;
  bool causal;
  DType type;
  Buffer q, k, v, o;
  int32_t cu[2];
  PrefillProblem(int64_t s_, bool causal_, DType t)
      : s(s_), causal(causal_), type(t), q(t, s_ * kHeads * kDim, 1, 2.f), k(t, s_ * kKvHeads * kDim, 2, 2.f),
        v(t, s_ * kKvHeads * kDim, 3, 1.f), o(t, s_ * kHeads * kDim, 4, 1.f), cu{0, int32_t(s_)} {}
  float scale() const { return 1.0f / std::sqrt(float(kDim)); }
};

argus_status runArgusPrefill(PrefillProblem &p) {
  argus_attention_prefill_args a = {sizeof a};
  a.batch = 1, a.num_heads = kHeads, a.num_kv_heads = kKvHeads, a.head_dim = kDim;
  a.max_seqlen_q = a.max_seqlen_kv = p.s, a.dtype = abiType(p.type);
  a.q = p.q.data(), a.k = p.k.data(), a.v = p.v.data(), a.o = p.o.data();
  a.cu_seqlens_q = a.cu_seqlens_kv = p.cu, a.causal = p.causal, a.scale = 0.f;
  return argus().prefill(&a, nullptr);
}

/// Reference rows of head 0 and head 31 at a few query positions, in double.
std::string checkPrefill(const PrefillProblem &p) {
  for (int64_t h : {int64_t(0), kHeads - 1})
    for (int64_t i : {int64_t(0), p.s / 3, p.s - 1}) {
      const int64_t g = h / kGroup, visible = p.causal ? i + 1 : p.s;
      std::vector<double> w(static_cast<size_t>(visible));
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < visible; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < kDim; ++c)
          dot += double(p.q.at((i * kHeads + h) * kDim + c)) * p.k.at((j * kKvHeads + g) * kDim + c);
        w[j] = dot * p.scale();
        mx = std::max(mx, w[j]);
      }
      for (double &x : w) sum += x = std::exp(x - mx);
      for (int64_t c = 0; c < kDim; c += 17) {
        double want = 0;
        for (int64_t j = 0; j < visible; ++j) want += w[j] * p.v.at((j * kKvHeads + g) * kDim + c);
        want /= sum;
        const double got = p.o.at((i * kHeads + h) * kDim + c);
        if (std::fabs(got - want) > (p.type == DType::F32 ? 1e-4 : 2e-2))
          return "wrong output at query " + std::to_string(i) + ", head " + std::to_string(h) + ": " +
                 std::to_string(got) + " vs " + std::to_string(want);
      }
    }
  return "";
}

void benchArgusPrefill(benchmark::State &st, int64_t s, bool causal, DType t) {
  if (!argus().error.empty()) return st.SkipWithError(argus().error.c_str());
  PrefillProblem p(s, causal, t);
  if (runArgusPrefill(p) != ARGUS_OK) return st.SkipWithError(argus().lastError());
  if (std::string e = checkPrefill(p); !e.empty()) return st.SkipWithError(e.c_str());
  for (auto _ : st) {
    runArgusPrefill(p);
    benchmark::ClobberMemory();
  }
  setPrefillFlops(st, s, causal);
}

#if ARGUS_BENCH_HAVE_DNNL
using dnnl::memory;
using tag = memory::format_tag;

/// The oneDNN composition, one query head at a time (2-D matmuls with
/// leading dimensions take oneDNN's fast paths; batched ones over strided
/// heads fall back to its reference kernel), primitives created once.
struct DnnlPrefill {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::matmul qk, pv;
  dnnl::softmax_forward softmax;
  dnnl::reorder toBf16;
  memory scores, probs, mask;
  memory::desc qd, kd, vd, od;

  DnnlPrefill(int64_t s, bool causal, DType t) {
    const memory::data_type dt = t == DType::F32 ? memory::data_type::f32 : memory::data_type::bf16;
    const memory::dim S = s, D = kDim;
    qd = memory::desc({S, D}, dt, {kHeads * D, 1});
    kd = memory::desc({D, S}, dt, {1, kKvHeads * D}); // Kᵀ of one KV head
    vd = memory::desc({S, D}, dt, {kKvHeads * D, 1});
    od = memory::desc({S, D}, dt, {kHeads * D, 1});
    memory::desc sd({S, S}, memory::data_type::f32, tag::ab);
    dnnl::primitive_attr qkAttr;
    qkAttr.set_output_scales(0, {1.0f / std::sqrt(float(kDim))});
    if (causal) {
      mask = memory(sd, eng);
      float *m = static_cast<float *>(mask.get_data_handle());
      for (int64_t i = 0; i < s; ++i)
        for (int64_t j = 0; j < s; ++j) m[i * s + j] = j <= i ? 0.f : -INFINITY;
      dnnl::post_ops po;
      po.append_binary(dnnl::algorithm::binary_add, sd);
      qkAttr.set_post_ops(po);
    }
    qk = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(qd, kd, sd), qkAttr, eng));
    scores = memory(sd, eng);
    softmax = dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, sd, 1), eng));
    memory::desc pd({S, S}, dt, tag::ab);
    if (t == DType::BF16) {
      probs = memory(pd, eng);
      toBf16 = dnnl::reorder(scores, probs);
    } else {
      probs = scores;
    }
    pv = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(pd, vd, od), eng));
  }

  void run(PrefillProblem &p) {
    const size_t el = p.type == DType::F32 ? 4 : 2;
    for (int64_t h = 0; h < kHeads; ++h) {
      const int64_t g = h / kGroup;
      memory qm(qd, eng, static_cast<char *>(p.q.data()) + h * kDim * el);
      memory km(kd, eng, static_cast<char *>(p.k.data()) + g * kDim * el);
      memory vm(vd, eng, static_cast<char *>(p.v.data()) + g * kDim * el);
      memory om(od, eng, static_cast<char *>(p.o.data()) + h * kDim * el);
      std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, qm}, {DNNL_ARG_WEIGHTS, km}, {DNNL_ARG_DST, scores}};
      if (p.causal) args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = mask;
      qk.execute(strm, args);
      softmax.execute(strm, {{DNNL_ARG_SRC, scores}, {DNNL_ARG_DST, scores}});
      if (p.type == DType::BF16) toBf16.execute(strm, scores, probs);
      pv.execute(strm, {{DNNL_ARG_SRC, probs}, {DNNL_ARG_WEIGHTS, vm}, {DNNL_ARG_DST, om}});
    }
    strm.wait();
  }
};

void benchDnnlPrefill(benchmark::State &st, int64_t s, bool causal, DType t) {
  try {
    PrefillProblem p(s, causal, t);
    DnnlPrefill d(s, causal, t);
    d.run(p);
    if (std::string e = checkPrefill(p); !e.empty()) return st.SkipWithError(e.c_str());
    for (auto _ : st) {
      d.run(p);
      benchmark::ClobberMemory();
    }
    setPrefillFlops(st, s, causal);
  } catch (const dnnl::error &e) {
    st.SkipWithError(e.what());
  }
}
#endif

//===--- Decode -------------------------------------------------------------===//

constexpr int64_t kPage = 16;

/// A batch's paged KV cache in `copies` identical pools side by side (twice
/// the last-level cache in all: copiesBeyondCache), one block table each;
/// the timed calls take the copies in turn, so each reads its pages from
/// memory as a layer's decode does (before 11-30 one pool: up to 128 MB of
/// pages stayed in the VM's 300 MiB L3 from call to call).
struct DecodeProblem {
  int64_t batch, context, maxPages, copies;
  Buffer q, kc, vc, o;
  std::vector<int32_t> table, lens; /* copy c's table: `table` + c * pool pages */
  DecodeProblem(int64_t b, int64_t c)
      : batch(b), context(c), maxPages((c + kPage - 1) / kPage), copies(argus::bench::copiesBeyondCache(kvBytes())),
        q(DType::BF16, b * kHeads * kDim, 5, 2.f), kc(DType::BF16, poolElements(), 6, 2.f),
        vc(DType::BF16, poolElements(), 7, 1.f), o(DType::BF16, b * kHeads * kDim, 8, 1.f),
        table(size_t(b * maxPages)), lens(size_t(b), int32_t(c)) {
    std::iota(table.begin(), table.end(), 0);
    std::shuffle(table.begin(), table.end(), std::mt19937_64(9)); // pages scattered over the pool
    for (Buffer *pool : {&kc, &vc}) {
      const argus::bench::PageAlignedVector<uint16_t> one = pool->bf16;
      pool->bf16.reserve(size_t(copies) * one.size());
      for (int64_t i = 1; i < copies; ++i) pool->bf16.insert(pool->bf16.end(), one.begin(), one.end());
    }
  }
  int64_t poolElements() const { return batch * maxPages * kPage * kKvHeads * kDim; }
  double kvBytes() const { return 2.0 * double(batch) * double(context) * kKvHeads * kDim * 2; }
  /// Copy `c`'s block table.
  std::vector<int32_t> tableOf(int64_t c) const {
    std::vector<int32_t> t(table);
    for (int32_t &page : t) page += int32_t(c * batch * maxPages);
    return t;
  }
};

argus_status runArgusDecode(DecodeProblem &p, const std::vector<int32_t> &table) {
  argus_attention_decode_args a = {sizeof a};
  a.batch = p.batch, a.num_heads = kHeads, a.num_kv_heads = kKvHeads, a.head_dim = kDim;
  a.page_size = kPage, a.max_pages_per_seq = p.maxPages, a.dtype = ARGUS_DTYPE_BF16;
  a.q = p.q.data(), a.k_cache = p.kc.data(), a.v_cache = p.vc.data(), a.o = p.o.data();
  a.block_table = table.data(), a.seqlens_kv = p.lens.data(), a.scale = 0.f;
  return argus().decode(&a, nullptr);
}

/// Head 0 and the last head of the last sequence, in double.
std::string checkDecode(const DecodeProblem &p) {
  const int64_t b = p.batch - 1;
  for (int64_t h : {int64_t(0), kHeads - 1}) {
    const int64_t g = h / kGroup;
    std::vector<double> w(static_cast<size_t>(p.context));
    double mx = -INFINITY, sum = 0;
    auto row = [&](int64_t j) { return (int64_t(p.table[b * p.maxPages + j / kPage]) * kPage + j % kPage) * kKvHeads + g; };
    for (int64_t j = 0; j < p.context; ++j) {
      double dot = 0;
      for (int64_t c = 0; c < kDim; ++c) dot += double(p.q.at((b * kHeads + h) * kDim + c)) * p.kc.at(row(j) * kDim + c);
      w[j] = dot / std::sqrt(double(kDim));
      mx = std::max(mx, w[j]);
    }
    for (double &x : w) sum += x = std::exp(x - mx);
    for (int64_t c = 0; c < kDim; c += 13) {
      double want = 0;
      for (int64_t j = 0; j < p.context; ++j) want += w[j] * p.vc.at(row(j) * kDim + c);
      want /= sum;
      const double got = p.o.at((b * kHeads + h) * kDim + c);
      if (std::fabs(got - want) > 2e-2)
        return "wrong decode output, head " + std::to_string(h) + ": " + std::to_string(got) + " vs " + std::to_string(want);
    }
  }
  return "";
}

void benchArgusDecode(benchmark::State &st, int64_t batch, int64_t context) {
  if (!argus().error.empty()) return st.SkipWithError(argus().error.c_str());
  DecodeProblem p(batch, context);
  std::vector<std::vector<int32_t>> tables;
  for (int64_t c = 0; c < p.copies; ++c) tables.push_back(p.tableOf(c));
  for (int64_t c = p.copies - 1; c >= 0; --c) /* copy 0 last: checkDecode reads its pages */
    if (runArgusDecode(p, tables[size_t(c)]) != ARGUS_OK) return st.SkipWithError(argus().lastError());
  if (std::string e = checkDecode(p); !e.empty()) return st.SkipWithError(e.c_str());
  int64_t copy = 0;
  for (auto _ : st) {
    runArgusDecode(p, tables[size_t(copy)]);
    copy = (copy + 1) % p.copies;
    benchmark::ClobberMemory();
  }
  st.counters["GB/s"] = benchmark::Counter(p.kvBytes() * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["kv_copies"] = double(p.copies);
  st.counters["huge_pages"] = argus::bench::benchHugePages() ? 1.0 : 0.0; /* ARGUS_BENCH_HUGE_PAGES (PageAligned.h) */
}

/// The bandwidth roof: a threaded copy of 256 MiB, counting the bytes read.
void benchCopy(benchmark::State &st) {
  const size_t n = size_t(256) << 20;
  std::vector<char> src(n, 1), dst(n, 0);
  for (auto _ : st) {
#pragma omp parallel
    {
#if ARGUS_BENCH_HAVE_OPENMP
      const size_t parts = size_t(omp_get_num_threads()), me = size_t(omp_get_thread_num());
#else
      const size_t parts = 1, me = 0;
#endif
      const size_t chunk = n / parts;
      std::memcpy(dst.data() + me * chunk, src.data() + me * chunk, me + 1 == parts ? n - me * chunk : chunk);
    }
    benchmark::ClobberMemory();
  }
  st.counters["GB/s"] = benchmark::Counter(double(n) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void configure(benchmark::internal::Benchmark *b) {
  b->Unit(benchmark::kMillisecond)->UseRealTime()->ReportAggregatesOnly(true);
  BenchDefaults::apply(b, 0.5, 3);
}

void registerAll() {
  configure(benchmark::RegisterBenchmark("copy/256MiB", benchCopy));
#if ARGUS_BENCH_HAVE_OPENMP
  configure(benchmark::RegisterBenchmark("stream/read_1GiB", benchStreamRead));
  configure(benchmark::RegisterBenchmark("stream/read_pages_32KiB", benchStreamReadPages));
#endif
  for (DType t : {DType::BF16, DType::F32})
    for (bool causal : {true, false})
      for (int64_t s : {512, 1024, 2048}) {
        std::string name = std::string(t == DType::F32 ? "f32" : "bf16") + (causal ? "/causal" : "/full") + "/S=" +
                           std::to_string(s);
        configure(benchmark::RegisterBenchmark(("prefill/argus/" + name).c_str(),
                                               [=](benchmark::State &st) { benchArgusPrefill(st, s, causal, t); }));
#if ARGUS_BENCH_HAVE_DNNL
        configure(benchmark::RegisterBenchmark(("prefill/onednn/" + name).c_str(),
                                               [=](benchmark::State &st) { benchDnnlPrefill(st, s, causal, t); }));
#endif
      }
  for (int64_t batch : {1, 8})
    for (int64_t context : {1024, 4096, 16384})
      configure(benchmark::RegisterBenchmark(
          ("decode/argus/bf16/B=" + std::to_string(batch) + "/ctx=" + std::to_string(context)).c_str(),
          [=](benchmark::State &st) { benchArgusDecode(st, batch, context); }));
}

/// The library the run loaded, or why none, in the benchmark context.
void recordLibrary() {
  benchmark::AddCustomContext("argus_library", argus().error.empty() ? std::getenv("ARGUS_LIBRARY")
                                                                     : "unavailable: " + argus().error);
}

} // namespace

int main(int argc, char **argv) {
  applyBenchThreads();
  recordLibrary();
  BenchDefaults::readCommandLine(argc, argv);
  registerAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
