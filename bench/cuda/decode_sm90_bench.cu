// Paged decode attention of a cuda-sm90a library on an H100/H200, through its C ABI
// (argus_attention_decode on a stream of the caller's):
//
//   1. Correctness first: the problems of test/emulation/decode_problem.h (fresh random bf16 queries
//      and caches, every sequence's pages scattered in random order, GQA 1-8, head dims 64-256 and
//      192/128, sequences empty, shorter than a chunk and long), o poisoned with NaN and followed by
//      a guard, copied back and compared element by element with the float64 reference.
//   2. Timing: Llama-3-8B's decode (32 query / 8 KV heads, head_dim 128, pages of 16), batch 1, 8
//      and 32, every sequence `context` tokens long; CUDA events, 3 warm-ups, median of 25 samples;
//      each sample runs over enough cache copies that the bytes it reads exceed twice the L2, so
//      the pages come from HBM. Reported in GB/s of K and V read (the bytes decode must move) and as
//      a fraction of the device-to-device copy bandwidth measured in the same run.
//
// Build and run (bench/cuda/run_decode_sm90.sh does all of it on the GPU machine).
#include "argus_kernels.h"
#include "decode_problem.h"
#include "gpu_timing.cuh"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace check = argus::bench;
using argus::gpu::test::DecodeData;
using argus::gpu::test::DecodeProblem;

namespace {

template <class T>
T *toDevice(const std::vector<T> &host) {
  T *device;
  ARGUS_CUDA_CHECK(cudaMalloc(&device, std::max<size_t>(host.size(), 1) * sizeof(T)));
  ARGUS_CUDA_CHECK(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

argus_attention_decode_args argsOf(const DecodeProblem &p, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                                   const int32_t *table, const int32_t *lengths, uint16_t *o) {
  argus_attention_decode_args a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.batch = p.batch(), a.num_heads = p.heads, a.num_kv_heads = p.kvHeads, a.head_dim = p.headDim;
  a.v_head_dim = p.valueDim, a.page_size = p.pageSize, a.max_pages_per_seq = p.maxPagesPerSeq();
  a.dtype = ARGUS_DTYPE_BF16;
  a.q = q, a.k_cache = k, a.v_cache = v, a.block_table = table, a.seqlens_kv = lengths, a.o = o;
  a.scale = p.scale;
  return a;
}

int checkProblem(const DecodeProblem &p, cudaStream_t stream, unsigned seed) {
  std::mt19937 rng(seed);
  DecodeData data(p, rng);
  uint16_t *q = toDevice(data.q), *k = toDevice(data.kCache), *v = toDevice(data.vCache), *o = toDevice(data.o);
  int32_t *table = toDevice(data.blockTable), *lengths = toDevice(data.seqlens);
  const argus_attention_decode_args args = argsOf(p, q, k, v, table, lengths, o);
  const argus_status status = argus_attention_decode(&args, stream);
  ARGUS_CUDA_CHECK(cudaStreamSynchronize(stream));
  ARGUS_CUDA_CHECK(cudaMemcpy(data.o.data(), o, data.o.size() * 2, cudaMemcpyDeviceToHost));
  const std::string problems =
      status == ARGUS_OK ? argus::gpu::test::compareWithFloat64(p, data) : std::string(argus_last_error()) + "\n";
  std::printf("%-4s %s\n%s", problems.empty() ? "ok" : "FAIL", p.describe().c_str(), problems.c_str());
  for (void *ptr : {(void *)q, (void *)k, (void *)v, (void *)o, (void *)table, (void *)lengths})
    cudaFree(ptr);
  return problems.empty() ? 0 : 1;
}

struct Timing {
  double microseconds, bytes;
};

// `copies` caches with the same block tables (pages in order), taking turns sample by sample.
Timing timeDecode(int batch, int context, cudaStream_t stream, size_t l2Bytes) {
  const DecodeProblem p{32, 8, 128, 128, 16, std::vector<int>(size_t(batch), context), 0.0f};
  const int pagesPerSeq = p.maxPagesPerSeq(), pages = batch * pagesPerSeq;
  const size_t cacheElements = size_t(pages) * p.pageSize * p.kvHeads * p.headDim;
  const double bytesRead = 2.0 * 2.0 * double(batch) * context * p.kvHeads * p.headDim;  // K and V, bf16
  const int copies = int(std::min<double>(32.0, std::ceil(2.0 * double(l2Bytes) / bytesRead)));
  std::vector<int32_t> table(size_t(batch) * pagesPerSeq), lengths(size_t(batch), context);
  for (size_t i = 0; i < table.size(); ++i)
    table[i] = int32_t(i);
  int32_t *dTable = toDevice(table), *dLengths = toDevice(lengths);
  uint16_t *q, *o;
  ARGUS_CUDA_CHECK(cudaMalloc(&q, size_t(batch) * p.heads * p.headDim * 2));
  ARGUS_CUDA_CHECK(cudaMalloc(&o, size_t(batch) * p.heads * p.valueDim * 2));
  check::fillRandom<<<1024, 256>>>(reinterpret_cast<__nv_bfloat16 *>(q), size_t(batch) * p.heads * p.headDim, 7);
  std::vector<uint16_t *> k(static_cast<size_t>(copies)), v(static_cast<size_t>(copies));
  for (int c = 0; c < copies; ++c) {
    ARGUS_CUDA_CHECK(cudaMalloc(&k[size_t(c)], cacheElements * 2));
    ARGUS_CUDA_CHECK(cudaMalloc(&v[size_t(c)], cacheElements * 2));
    check::fillRandom<<<1024, 256>>>(reinterpret_cast<__nv_bfloat16 *>(k[size_t(c)]), cacheElements, 100 + c);
    check::fillRandom<<<1024, 256>>>(reinterpret_cast<__nv_bfloat16 *>(v[size_t(c)]), cacheElements, 200 + c);
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<double> samples;
  for (int sample = 0; sample < 28; ++sample) {
    cudaEventRecord(start, stream);
    for (int c = 0; c < copies; ++c) {
      const argus_attention_decode_args args = argsOf(p, q, k[size_t(c)], v[size_t(c)], dTable, dLengths, o);
      if (argus_attention_decode(&args, stream) != ARGUS_OK) {
        std::fprintf(stderr, "argus_attention_decode: %s\n", argus_last_error());
        std::exit(1);
      }
    }
    cudaEventRecord(stop, stream);
    ARGUS_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms;
    cudaEventElapsedTime(&ms, start, stop);
    if (sample >= 3)
      samples.push_back(1e3 * ms / copies);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  for (int c = 0; c < copies; ++c) {
    cudaFree(k[size_t(c)]);
    cudaFree(v[size_t(c)]);
  }
  for (void *ptr : {(void *)q, (void *)o, (void *)dTable, (void *)dLengths})
    cudaFree(ptr);
  return {check::medianOf(samples), bytesRead};
}

}  // namespace

int main(int argc, char **argv) {
  const char *jsonPath = argc > 1 ? argv[1] : "decode_sm90.jsonl";
  cudaStream_t stream;
  ARGUS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const DecodeProblem problems[] = {
      {32, 8, 128, 128, 16, {0, 1, 77, 1100, 4096}, 0.0f},
      {16, 2, 64, 64, 1, {5, 130, 0}, 0.3f},
      {4, 4, 192, 128, 64, {900, 63}, 0.0f},
      {8, 1, 256, 256, 16, {520, 31}, 0.0f},
      {64, 8, 128, 128, 256, {20000}, 0.0f},
  };
  int failures = 0;
  unsigned seed = 1;
  for (const DecodeProblem &p : problems)
    failures += checkProblem(p, stream, seed++);
  std::printf("%d failed of %zu\n", failures, sizeof problems / sizeof problems[0]);
  if (failures)
    return 1;

  cudaDeviceProp prop;
  ARGUS_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const double copyBandwidth = check::measureCopyBandwidth();
  std::printf("%s, %d SMs, L2 %d MiB, copy %.0f GB/s\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
              copyBandwidth / 1e9);
  std::FILE *json = std::fopen(jsonPath, "w");
  for (int batch : {1, 8, 32})
    for (int context : {1024, 4096, 16384}) {
      const Timing t = timeDecode(batch, context, stream, size_t(prop.l2CacheSize));
      const double gbps = t.bytes / (t.microseconds * 1e-6) / 1e9;
      std::printf("llama3-8b decode  batch %2d  context %5d  %8.1f us  %6.0f GB/s  %3.0f%% of copy\n", batch, context,
                  t.microseconds, gbps, 100.0 * gbps * 1e9 / copyBandwidth);
      if (json)
        std::fprintf(json,
                     "{\"device\": \"%s\", \"batch\": %d, \"context\": %d, \"us\": %.2f, \"gbps\": %.1f, "
                     "\"copy_gbps\": %.1f}\n",
                     prop.name, batch, context, t.microseconds, gbps, copyBandwidth / 1e9);
    }
  if (json)
    std::fclose(json);
  return 0;
}
