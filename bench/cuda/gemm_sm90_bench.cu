// Hopper bf16 GEMM: Argus tile configurations against cuBLAS, side by side in one run.
//
// For every shape: fresh random inputs, every output poisoned with NaN, each configuration checked
// against a float64 reference, then all timed with CUDA events, taking turns (warm-up, median of
// 25 samples, inputs rotated over enough sets to exceed twice the L2). Prints a table and writes one JSON line per
// (shape, implementation) to the file named by --json.
//
// Build: nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -I dist/runtime/cuda
//        bench/cuda/gemm_sm90_bench.cu -lcublas -o gemm_sm90_bench
#include "argus_sm90_gemm_launch.h"
#include "gpu_check.cuh"
#include "gpu_timing.cuh"

#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using argus::sm90::GemmArgs;
using bf16 = __nv_bfloat16;
namespace check = argus::bench;

namespace {

struct Shape {
  std::string model, op;
  int m, n, k;
};

// The catalogs' GEMMs (argus-gen shapes shapes/llama3-8b.yaml, shapes/llama3-70b-tp8.yaml).
std::vector<Shape> catalogShapes(const std::vector<int> &tokens) {
  const struct {
    const char *model, *op;
    int n, k;
  } weights[] = {
      {"llama3-8b", "qkv", 6144, 4096},        {"llama3-8b", "o", 4096, 4096},
      {"llama3-8b", "gate_up", 28672, 4096},   {"llama3-8b", "down", 4096, 14336},
      {"llama3-8b", "lm_head", 128256, 4096},  {"llama3-70b-tp8", "qkv", 1280, 8192},
      {"llama3-70b-tp8", "o", 8192, 1024},     {"llama3-70b-tp8", "gate_up", 7168, 8192},
      {"llama3-70b-tp8", "down", 8192, 3584},  {"llama3-70b-tp8", "lm_head", 16032, 8192},
  };
  std::vector<Shape> shapes;
  for (int m : tokens)
    for (const auto &w : weights)
      shapes.push_back({w.model, w.op, m, w.n, w.k});
  return shapes;
}

// One way of computing C = A·Bᵀ on the buffers given.
struct Implementation {
  std::string name;
  std::function<cudaError_t(const GemmArgs &)> run;
  int maxM = 1 << 30;  // the most rows of A it takes
};

cublasHandle_t cublas;

cudaError_t runCublas(const GemmArgs &g) {
  // Row-major C (m x n) = A·Bᵀ is column-major Cᵀ (n x m) = B·Aᵀ with B transposed.
  const float alpha = g.epilogue.alpha, beta = g.epilogue.beta;
  cublasStatus_t s = cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, g.n, g.m, g.k, &alpha, g.b, CUDA_R_16BF,
                                  int(g.ldb), g.a, CUDA_R_16BF, int(g.lda), &beta, g.epilogue.c, CUDA_R_16BF,
                                  int(g.epilogue.ldc), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  return s == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

using argus::sm90::GemmSchedule;

template <int BM, int BN, int Stages> Implementation persistentConfig() {
  return {"argus_" + argus::sm90::gemmConfigName({GemmSchedule::Persistent, BM, BN, Stages, 1}),
          [](const GemmArgs &g) { return argus::sm90::launchGemmPersistent<BM, BN, Stages, bf16>(g, nullptr); }};
}

template <int BM, int BN, int Stages> Implementation splitConfig(int split) {
  return {"argus_" + argus::sm90::gemmConfigName({GemmSchedule::SplitK, BM, BN, Stages, split}),
          [split](const GemmArgs &g) {
            return argus::sm90::launchGemmSplitK<BM, BN, Stages, bf16>(g, split, nullptr);
          }};
}

// Few rows of A: weights streamed into mma.sync fragments (argus_sm90_gemm_rows.cuh).
template <int TokenBlocks, int Warps, int Unroll> Implementation rowsConfig(int split) {
  return {"argus_" + argus::sm90::gemmConfigName({GemmSchedule::Rows, 8 * TokenBlocks, 16, Unroll, split}, Warps),
          [split](const GemmArgs &g) {
            return argus::sm90::launchGemmRows<TokenBlocks, Warps, Unroll, bf16>(g, split, nullptr);
          },
          8 * TokenBlocks};
}

std::vector<Implementation> prefillImplementations() {
  // Split-K earns its place where few tiles cover C (N = 1280 at M = 512: 40 tiles of 128 x 128);
  // 128 x 160 tiles cut N = 1280 into 8 columns, so 16 row tiles (or 8 x split 2, 4 x split 4)
  // make 128 CTAs for 132 SMs.
  return {persistentConfig<128, 256, 3>(), persistentConfig<128, 128, 5>(), persistentConfig<128, 192, 4>(),
          persistentConfig<128, 160, 4>(), splitConfig<128, 128, 4>(2),     splitConfig<128, 128, 4>(3),
          splitConfig<128, 160, 4>(2),     splitConfig<128, 160, 4>(4),     {"cublas", runCublas}};
}

std::vector<Implementation> decodeImplementations() {
  std::vector<Implementation> list;
  for (int split : {1, 2, 4, 8}) {
    list.push_back(splitConfig<64, 64, 6>(split));
    list.push_back(splitConfig<64, 128, 4>(split));
  }
  list.push_back(persistentConfig<64, 128, 6>());
  for (int split : {1, 2, 4}) {
    list.push_back(rowsConfig<1, 8, 2>(split));
    list.push_back(rowsConfig<1, 8, 4>(split));
    list.push_back(rowsConfig<2, 8, 2>(split));
    list.push_back(rowsConfig<2, 8, 4>(split));
  }
  for (int split : {1, 2}) {
    list.push_back(rowsConfig<1, 4, 4>(split));
    list.push_back(rowsConfig<1, 16, 2>(split));
  }
  list.push_back(rowsConfig<1, 8, 1>(1));
  list.push_back(rowsConfig<1, 4, 2>(1));
  list.push_back(rowsConfig<2, 16, 2>(1));
  list.push_back({"cublas", runCublas});
  return list;
}

struct Operands {
  bf16 *a, *b, *c;
};

struct CheckResult {
  bool pass;
  double relativeError, worstRatio;
  unsigned long long failures, nonFinite;
};

void launchFill(bf16 *data, size_t count, uint64_t seed) {
  check::fillRandom<<<1024, 256>>>(data, count, seed);
  ARGUS_CUDA_CHECK(cudaGetLastError());
}

class ShapeRun {
public:
  ShapeRun(const Shape &s, size_t l2Bytes, uint64_t seed) : shape(s) {
    const size_t bytesA = size_t(s.m) * s.k * 2, bytesB = size_t(s.n) * s.k * 2, bytesC = size_t(s.m) * s.n * 2;
    // Enough sets that one pass exceeds twice the L2, at most 32 (tiny shapes: launch-bound anyway).
    sets = int(std::min<size_t>(32, (2 * l2Bytes) / (bytesA + bytesB + bytesC) + 1));
    for (int i = 0; i < sets; ++i) {
      Operands o;
      ARGUS_CUDA_CHECK(cudaMalloc(&o.a, bytesA));
      ARGUS_CUDA_CHECK(cudaMalloc(&o.b, bytesB));
      ARGUS_CUDA_CHECK(cudaMalloc(&o.c, bytesC));
      launchFill(o.a, bytesA / 2, seed * 131 + 3 * i);
      launchFill(o.b, bytesB / 2, seed * 131 + 3 * i + 1);
      launchFill(o.c, bytesC / 2, seed * 131 + 3 * i + 2);
      operands.push_back(o);
    }
    ARGUS_CUDA_CHECK(cudaMalloc(&bias, size_t(s.n) * 2));
    launchFill(bias, s.n, seed * 131 + 7777);
    ARGUS_CUDA_CHECK(cudaMalloc(&cBefore, bytesC));
    ARGUS_CUDA_CHECK(cudaMalloc(&ref, size_t(s.m) * s.n * sizeof(double)));
    ARGUS_CUDA_CHECK(cudaMalloc(&magnitude, size_t(s.m) * s.n * sizeof(float)));
    ARGUS_CUDA_CHECK(cudaMalloc(&totals, sizeof(check::CompareTotals)));
  }
  ~ShapeRun() {
    for (auto &o : operands) {
      cudaFree(o.a);
      cudaFree(o.b);
      cudaFree(o.c);
    }
    cudaFree(bias);
    cudaFree(cBefore);
    cudaFree(ref);
    cudaFree(magnitude);
    cudaFree(totals);
  }

  GemmArgs args(int set, float beta, bool withBias) const {
    const Operands &o = operands[set];
    GemmArgs g{};
    g.m = shape.m, g.n = shape.n, g.k = shape.k;
    g.a = o.a, g.lda = shape.k, g.b = o.b, g.ldb = shape.k;
    g.epilogue.c = o.c, g.epilogue.ldc = shape.n, g.epilogue.bias = withBias ? bias : nullptr;
    g.epilogue.alpha = 1.0f, g.epilogue.beta = beta;
    return g;
  }

  // The float64 reference for set 0 with the given epilogue; C's current contents are the beta input.
  void computeReference(float alpha, float beta, bool withBias) {
    const Operands &o = operands[0];
    ARGUS_CUDA_CHECK(cudaMemcpy(cBefore, o.c, size_t(shape.m) * shape.n * 2, cudaMemcpyDeviceToDevice));
    dim3 grid((shape.n + check::kRefTile - 1) / check::kRefTile, (shape.m + check::kRefTile - 1) / check::kRefTile);
    check::referenceGemm<<<grid, 256>>>(o.a, shape.k, o.b, shape.k, cBefore, shape.n, withBias ? bias : nullptr, alpha,
                                        beta, shape.m, shape.n, shape.k, ref, magnitude);
    ARGUS_CUDA_CHECK(cudaGetLastError());
  }

  // Runs `impl` once on set 0 (C restored from cBefore, or poisoned when beta is 0) and compares.
  CheckResult checkOnce(const Implementation &impl, float beta, bool withBias) {
    const Operands &o = operands[0];
    const size_t count = size_t(shape.m) * shape.n;
    if (beta != 0.0f)
      ARGUS_CUDA_CHECK(cudaMemcpy(o.c, cBefore, count * 2, cudaMemcpyDeviceToDevice));
    else
      check::poison<<<1024, 256>>>(o.c, count);
    ARGUS_CUDA_CHECK(impl.run(args(0, beta, withBias)));
    ARGUS_CUDA_CHECK(cudaGetLastError());
    ARGUS_CUDA_CHECK(cudaMemset(totals, 0, sizeof(check::CompareTotals)));
    // bf16 output: 2^-8 of the value covers its rounding; f32 accumulation error grows with the sum of
    // |terms|, far below 2^-16 of it at these K.
    check::compareOutput<<<1024, 256>>>(o.c, shape.n, ref, magnitude, shape.m, shape.n, 1.0 / 256, 1.0 / 65536, totals);
    check::CompareTotals t;
    ARGUS_CUDA_CHECK(cudaMemcpy(&t, totals, sizeof t, cudaMemcpyDeviceToHost));
    CheckResult r;
    r.failures = t.failures, r.nonFinite = t.nonFinite, r.worstRatio = t.worstRatio;
    r.relativeError = std::sqrt(t.squaredError / std::max(t.squaredReference, 1e-300));
    r.pass = t.failures == 0 && t.nonFinite == 0 && r.relativeError < 1e-2;
    return r;
  }

  // Median seconds per call of each implementation over 25 samples, each sample one pass over
  // every input set. The implementations take turns sample by sample, so that a drift of the
  // clocks (power, temperature, neighbours) weighs on all of them alike.
  std::vector<double> time(const std::vector<Implementation> &impls) {
    cudaEvent_t start, stop;
    ARGUS_CUDA_CHECK(cudaEventCreate(&start));
    ARGUS_CUDA_CHECK(cudaEventCreate(&stop));
    for (const Implementation &impl : impls)
      for (int warm = 0; warm < 2; ++warm)
        for (int s = 0; s < sets; ++s)
          ARGUS_CUDA_CHECK(impl.run(args(s, 0.0f, false)));
    std::vector<std::vector<double>> samples(impls.size());
    for (int sample = 0; sample < 25; ++sample)
      for (size_t i = 0; i < impls.size(); ++i) {
        ARGUS_CUDA_CHECK(cudaEventRecord(start));
        for (int s = 0; s < sets; ++s)
          ARGUS_CUDA_CHECK(impls[i].run(args(s, 0.0f, false)));
        ARGUS_CUDA_CHECK(cudaEventRecord(stop));
        ARGUS_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms;
        ARGUS_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        samples[i].push_back(ms * 1e-3 / sets);
      }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::vector<double> medians;
    for (auto &v : samples)
      medians.push_back(check::medianOf(v));
    return medians;
  }

  const Shape shape;
  int sets = 1;

private:
  std::vector<Operands> operands;
  bf16 *bias = nullptr, *cBefore = nullptr;
  double *ref = nullptr;
  float *magnitude = nullptr;
  check::CompareTotals *totals = nullptr;
};

struct Options {
  std::string json = "gemm_sm90.jsonl", only;
  bool quick = false, checkOnly = false;
};

}  // namespace

int main(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--json=", 7))
      options.json = argv[i] + 7;
    else if (!std::strcmp(argv[i], "--quick"))
      options.quick = true;
    else if (!std::strcmp(argv[i], "--check-only"))  // e.g. under compute-sanitizer
      options.checkOnly = true;
    else if (!std::strncmp(argv[i], "--only=", 7))
      options.only = argv[i] + 7;
    else {
      std::fprintf(stderr, "usage: %s [--json=FILE] [--quick] [--check-only] [--only=prefill|decode|cube|ragged]\n", argv[0]);
      return 2;
    }
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress survives a timeout behind a pipe
  cudaDeviceProp prop;
  ARGUS_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  cudaDriverGetVersion(&driver);
  if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    return 2;
  }
  FILE *json = std::fopen(options.json.c_str(), "w");
  if (!json) {
    std::fprintf(stderr, "cannot write %s\n", options.json.c_str());
    return 2;
  }
  const double copyBandwidth = check::measureCopyBandwidth();
  std::printf("device %s, %d SMs, L2 %d MB, driver %d, copy bandwidth %.0f GB/s (read + write)\n", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, driver, copyBandwidth / 1e9);
  std::fprintf(json, "{\"device\": \"%s\", \"sms\": %d, \"driver\": %d, \"copy_bandwidth_gbs\": %.1f}\n", prop.name,
               prop.multiProcessorCount, driver, copyBandwidth / 1e9);

  struct Group {
    std::string name;
    std::vector<Shape> shapes;
    std::vector<Implementation> impls;
  };
  std::vector<Group> groups;
  if (options.only.empty() || options.only == "ragged")
    groups.push_back({"ragged",
                      {{"ragged", "tiny", 1, 8, 64}, {"ragged", "tails", 77, 200, 136}, {"ragged", "odd", 1000, 1000, 1000},
                       {"ragged", "mid", 333, 4104, 520}, {"ragged", "decode", 5, 1290, 8200},
                       {"ragged", "rows", 13, 333, 1000}},
                      [] {  // alpha, beta and bias: cuBLAS's GemmEx has no bias, so Argus alone
                        std::vector<Implementation> list;
                        for (auto &impl : prefillImplementations())
                          if (impl.name != "cublas")
                            list.push_back(impl);
                        for (auto &impl : decodeImplementations())
                          if (impl.name != "cublas")
                            list.push_back(impl);
                        return list;
                      }()});
  if (options.only.empty() || options.only == "cube")
    groups.push_back({"cube", {{"square", "8192^3", 8192, 8192, 8192}}, prefillImplementations()});
  if (options.only.empty() || options.only == "prefill")
    groups.push_back({"prefill", catalogShapes(options.quick ? std::vector<int>{2048} : std::vector<int>{512, 1024, 2048, 4096, 8192}),
                      prefillImplementations()});
  if (options.only.empty() || options.only == "decode")
    groups.push_back({"decode", catalogShapes(options.quick ? std::vector<int>{1, 64} : std::vector<int>{1, 8, 16, 32, 64}),
                      decodeImplementations()});

  const uint64_t seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  int failures = 0;
  for (const Group &group : groups) {
    std::printf("\n== %s ==\n%-16s %-8s %6s %6s %6s | %-22s %10s %10s %7s %8s %8s\n", group.name.c_str(), "model", "op",
                "M", "N", "K", "best argus", "argus us", "cublas us", "ratio", "TFLOP/s", "GB/s");
    double logRatioSum = 0;
    int ratioCount = 0;
    for (size_t index = 0; index < group.shapes.size(); ++index) {
      const Shape &shape = group.shapes[index];
      ShapeRun run(shape, size_t(prop.l2CacheSize), seed + 1000 * index);
      const bool epilogueCase = group.name == "ragged";
      const float beta = epilogueCase ? 0.5f : 0.0f;
      run.computeReference(1.0f, beta, epilogueCase);
      const double flops = 2.0 * shape.m * shape.n * shape.k;
      const double bytes = 2.0 * (double(shape.m) * shape.k + double(shape.n) * shape.k + double(shape.m) * shape.n);
      double bestArgus = 1e30, cublasTime = 0;
      std::string bestName;
      std::vector<Implementation> impls;
      for (const Implementation &impl : group.impls)
        if (shape.m <= impl.maxM)
          impls.push_back(impl);
      std::vector<CheckResult> checks;
      for (const Implementation &impl : impls)
        checks.push_back(run.checkOnce(impl, beta, epilogueCase));
      const std::vector<double> times =
          options.checkOnly ? std::vector<double>(impls.size(), 1e-30) : run.time(impls);
      for (size_t i = 0; i < impls.size(); ++i) {
        const Implementation &impl = impls[i];
        const CheckResult &c = checks[i];
        const double seconds = times[i];
        if (!c.pass) {
          ++failures;
          std::printf("FAIL %s on %s %s %dx%dx%d: rel %.3g worst %.3g failures %llu nonfinite %llu\n", impl.name.c_str(),
                      shape.model.c_str(), shape.op.c_str(), shape.m, shape.n, shape.k, c.relativeError, c.worstRatio,
                      c.failures, c.nonFinite);
        }
        std::fprintf(json,
                     "{\"group\": \"%s\", \"model\": \"%s\", \"op\": \"%s\", \"m\": %d, \"n\": %d, \"k\": %d, "
                     "\"impl\": \"%s\", \"seconds\": %.9g, \"tflops\": %.2f, \"gbs\": %.1f, \"correct\": %s, "
                     "\"relative_error\": %.3g, \"worst_ratio\": %.3g, \"input_sets\": %d}\n",
                     group.name.c_str(), shape.model.c_str(), shape.op.c_str(), shape.m, shape.n, shape.k,
                     impl.name.c_str(), seconds, flops / seconds / 1e12, bytes / seconds / 1e9, c.pass ? "true" : "false",
                     c.relativeError, c.worstRatio, run.sets);
        if (impl.name == "cublas")
          cublasTime = seconds;
        else if (c.pass && seconds < bestArgus)
          bestArgus = seconds, bestName = impl.name;
      }
      std::fflush(json);
      const double ratio = cublasTime > 0 ? cublasTime / bestArgus : 0.0;
      if (ratio > 0) {
        logRatioSum += std::log(ratio);
        ++ratioCount;
      }
      std::printf("%-16s %-8s %6d %6d %6d | %-22s %10.1f %10.1f %7.3f %8.1f %8.0f\n", shape.model.c_str(),
                  shape.op.c_str(), shape.m, shape.n, shape.k, bestName.c_str(), bestArgus * 1e6, cublasTime * 1e6, ratio,
                  flops / bestArgus / 1e12, bytes / bestArgus / 1e9);
    }
    std::printf("%s: geometric mean argus/cublas speed %.3f over %d shapes\n", group.name.c_str(),
                std::exp(logRatioSum / std::max(ratioCount, 1)), ratioCount);
  }
  std::fclose(json);
  std::printf("\n%d failed checks\n", failures);
  return failures ? 1 : 0;
}
