// MoE of a cuda-sm90a library on an H100/H200, through its C ABI (argus_moe on a stream of the caller's):
//
//   1. Correctness first: the problems of test/emulation/moe_problem.h (fresh random bf16 activations
//      and weights, f32 logits; experts left empty, one expert taking every token, tied logits, 8 to
//      256 experts, top-1 to top-8, sizes off every tile), out poisoned with NaN and followed by a
//      guard, the workspace poisoned too, copied back and compared with float64.
//   2. Timing: the MoE layers of Mixtral-8x7B, Qwen3-30B-A3B and DeepSeek-V2-Lite (routed experts
//      only) at 1 to 4096 tokens; CUDA events, 3 warm-ups, median of 25 samples. Every layer's
//      weights are larger than twice the L2, so they come from HBM. Reported in TFLOP/s of the routed
//      GEMMs and in GB/s of the weights of the experts that received a token, against the
//      device-to-device copy bandwidth measured in the same run.
//
// bench/cuda/run_abi_sm90.sh builds and runs it, then the PyTorch baseline (torch_gpu_baselines.py)
// on the same shapes and routing.
#include "argus_kernels.h"
#include "gpu_check.cuh"
#include "gpu_timing.cuh"
#include "moe_problem.h"

#include <cuda_bf16.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

using argus::bench::toDevice;
using argus::gpu::test::MoeData;
using argus::gpu::test::MoeProblem;

namespace {

argus_moe_args argsOf(const MoeProblem &p, const void *x, const float *logits, const void *wGateUp,
                      const void *wDown, void *out) {
  argus_moe_args a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.num_tokens = p.tokens, a.hidden = p.hidden, a.intermediate = p.intermediate;
  a.num_experts = p.experts, a.top_k = p.topK, a.renormalize = p.renormalize ? 1 : 0;
  a.dtype = ARGUS_DTYPE_BF16;
  a.x = x, a.router_logits = logits, a.w_gate_up = wGateUp, a.w_down = wDown, a.out = out;
  a.workspace_size = argus_moe_workspace_size(&a);
  return a;
}

// Device workspace for `a`, filled with 0xff bytes (NaN in every float, -1 in every int).
void *poisonedWorkspace(argus_moe_args &a) {
  void *workspace = nullptr;
  ARGUS_CUDA_CHECK(cudaMalloc(&workspace, std::max<size_t>(a.workspace_size, 1)));
  ARGUS_CUDA_CHECK(cudaMemset(workspace, 0xff, a.workspace_size));
  a.workspace = workspace;
  return workspace;
}

int checkMoe(const MoeProblem &p, cudaStream_t stream, unsigned seed) {
  std::mt19937 rng(seed);
  MoeData data(p, rng);
  uint16_t *x = toDevice(data.x), *wGateUp = toDevice(data.wGateUp), *wDown = toDevice(data.wDown);
  uint16_t *out = toDevice(data.out);
  float *logits = toDevice(data.logits);
  argus_moe_args a = argsOf(p, x, logits, wGateUp, wDown, out);
  void *workspace = poisonedWorkspace(a);
  const argus_status status = argus_moe(&a, stream);
  ARGUS_CUDA_CHECK(cudaStreamSynchronize(stream));
  ARGUS_CUDA_CHECK(cudaMemcpy(data.out.data(), out, data.out.size() * 2, cudaMemcpyDeviceToHost));
  const std::string problems =
      status == ARGUS_OK ? argus::gpu::test::compareWithFloat64(p, data) : std::string(argus_last_error()) + "\n";
  std::printf("%-4s moe %s\n%s", problems.empty() ? "ok" : "FAIL", p.describe().c_str(), problems.c_str());
  for (void *ptr : {static_cast<void *>(x), static_cast<void *>(wGateUp), static_cast<void *>(wDown),
                    static_cast<void *>(out), static_cast<void *>(logits), workspace})
    cudaFree(ptr);
  return problems.empty() ? 0 : 1;
}

struct MoeLayer {
  const char *model;
  int hidden, intermediate, experts, topK;
  bool renormalize;
};

struct Timing {
  double microseconds, tflops, weightGbps;
};

// One layer at `tokens` tokens: random weights and activations, normal logits (seeded), timed.
Timing timeMoe(const MoeLayer &layer, int tokens, cudaStream_t stream) {
  const MoeProblem p{tokens, layer.hidden, layer.intermediate, layer.experts, layer.topK, layer.renormalize};
  const size_t gateUpCount = size_t(p.experts) * 2 * p.intermediate * p.hidden;
  const size_t downCount = size_t(p.experts) * p.hidden * p.intermediate;
  __nv_bfloat16 *x, *wGateUp, *wDown, *out;
  ARGUS_CUDA_CHECK(cudaMalloc(&x, size_t(tokens) * p.hidden * 2));
  ARGUS_CUDA_CHECK(cudaMalloc(&wGateUp, gateUpCount * 2));
  ARGUS_CUDA_CHECK(cudaMalloc(&wDown, downCount * 2));
  ARGUS_CUDA_CHECK(cudaMalloc(&out, size_t(tokens) * p.hidden * 2));
  argus::bench::fillRandom<<<1024, 256>>>(x, size_t(tokens) * p.hidden, 1);
  argus::bench::fillRandom<<<1024, 256>>>(wGateUp, gateUpCount, 2);
  argus::bench::fillRandom<<<1024, 256>>>(wDown, downCount, 3);
  std::mt19937 rng(unsigned(tokens) * 31u + unsigned(p.experts));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> hostLogits(size_t(tokens) * p.experts);
  for (float &l : hostLogits)
    l = normal(rng);
  float *logits = toDevice(hostLogits);
  argus_moe_args a = argsOf(p, x, logits, wGateUp, wDown, out);
  void *workspace = poisonedWorkspace(a);
  const double us = argus::bench::medianMicroseconds(stream, [&] {
    if (argus_moe(&a, stream) != ARGUS_OK) {
      std::fprintf(stderr, "%s\n", argus_last_error());
      std::exit(1);
    }
  });
  // The experts that received a token read all their weights once; the routed GEMMs do 3 products.
  std::set<int> used;
  for (int t = 0; t < tokens; ++t) {
    std::vector<int> order(size_t(p.experts));
    for (int e = 0; e < p.experts; ++e)
      order[size_t(e)] = e;
    const float *row = hostLogits.data() + size_t(t) * p.experts;
    std::partial_sort(order.begin(), order.begin() + p.topK, order.end(),
                      [&](int l, int r) { return row[l] > row[r] || (row[l] == row[r] && l < r); });
    used.insert(order.begin(), order.begin() + p.topK);
  }
  const double weightBytes = double(used.size()) * 3.0 * p.hidden * p.intermediate * 2.0;
  const double flops = double(tokens) * p.topK * 3.0 * 2.0 * p.hidden * p.intermediate;
  for (void *ptr : {static_cast<void *>(x), static_cast<void *>(wGateUp), static_cast<void *>(wDown),
                    static_cast<void *>(out), static_cast<void *>(logits), workspace})
    cudaFree(ptr);
  return {us, flops / (us * 1e-6) / 1e12, weightBytes / (us * 1e-6) / 1e9};
}

} // namespace

int main(int argc, char **argv) {
  const char *jsonPath = argc > 1 ? argv[1] : "moe_sm90.jsonl";
  cudaStream_t stream;
  ARGUS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const MoeProblem problems[] = {
      {45, 136, 104, 8, 2, true},         {1, 72, 24, 8, 2, true},
      {80, 64, 72, 8, 2, false, 5},       {6, 80, 40, 128, 8, true},
      {20, 64, 48, 32, 4, true, -1, true}, {7, 64, 32, 256, 1, false},
      {300, 1024, 704, 64, 6, true},
  };
  int failures = 0;
  unsigned seed = 1;
  for (const MoeProblem &p : problems)
    failures += checkMoe(p, stream, seed++);
  std::printf("%d failed of %zu\n", failures, sizeof problems / sizeof problems[0]);
  if (failures)
    return 1;

  cudaDeviceProp prop;
  ARGUS_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const double copyBandwidth = argus::bench::measureCopyBandwidth();
  std::printf("%s, %d SMs, L2 %d MiB, copy %.0f GB/s\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
              copyBandwidth / 1e9);
  const MoeLayer layers[] = {
      {"mixtral-8x7b", 4096, 14336, 8, 2, true},
      {"qwen3-30b-a3b", 2048, 768, 128, 8, true},
      {"deepseek-v2-lite", 2048, 1408, 64, 6, false},
  };
  std::FILE *json = std::fopen(jsonPath, "w");
  for (const MoeLayer &layer : layers)
    for (int tokens : {1, 16, 128, 512, 4096}) {
      const Timing t = timeMoe(layer, tokens, stream);
      std::printf("%-17s tokens %5d  %9.1f us  %6.1f TFLOP/s  %6.0f GB/s of weights (%3.0f%% of copy)\n",
                  layer.model, tokens, t.microseconds, t.tflops, t.weightGbps,
                  100.0 * t.weightGbps * 1e9 / copyBandwidth);
      if (json)
        std::fprintf(json,
                     "{\"device\": \"%s\", \"impl\": \"argus\", \"model\": \"%s\", \"tokens\": %d, \"us\": %.2f, "
                     "\"tflops\": %.2f, \"weight_gbps\": %.1f, \"copy_gbps\": %.1f}\n",
                     prop.name, layer.model, tokens, t.microseconds, t.tflops, t.weightGbps, copyBandwidth / 1e9);
    }
  if (json)
    std::fclose(json);
  return 0;
}
