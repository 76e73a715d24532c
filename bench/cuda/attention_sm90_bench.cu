// Attention of a cuda-sm90a library on an H100/H200, through its C ABI (argus_attention_decode and
// argus_attention_prefill on a stream of the caller's):
//
//   1. Correctness first: the problems of test/emulation/decode_problem.h and prefill_problem.h
//      (fresh random inputs, each problem in bf16 and in f16; decode: every sequence's pages scattered in random order, GQA 1-8,
//      head dims 64-256 and 192/128, sequences empty, shorter than a chunk and long; prefill: varlen
//      batches causal and not, empty sequences, more keys than queries and fewer), o poisoned with
//      NaN and followed by a guard, copied back and compared element by element with float64.
//   2. Decode timing: Llama-3-8B (32 query / 8 KV heads, head_dim 128, pages of 16), batch 1, 8 and
//      32, every sequence `context` tokens long; CUDA events, 3 warm-ups, median of 25 samples; each
//      sample runs over enough cache copies that the bytes it reads exceed twice the L2, so the
//      pages come from HBM. Reported in GB/s of K and V read (the bytes decode must move) and as a
//      fraction of the device-to-device copy bandwidth measured in the same run.
//   3. Prefill timing: Llama-3-8B's heads at head_dim 128 and 64, causal, sequences of 1024-8192
//      tokens, 16384 tokens per call, both kernels (the TMA/wgmma one, selected by passing the row
//      counts total_q and total_kv, and the mma.sync one); the same events and medians; TFLOP/s of
//      the causal half of Q·Kᵀ and P·V. Correctness is checked both ways too.
//
// Build and run (bench/cuda/run_abi_sm90.sh does all of it on the GPU machine).
#include "argus_kernels.h"
#include "decode_problem.h"
#include "prefill_problem.h"
#include "gpu_timing.cuh"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

namespace check = argus::bench;
using argus::bench::toDevice;
using argus::gpu::test::DecodeData;
using argus::gpu::test::DecodeProblem;
using argus::gpu::test::PrefillData;
using argus::gpu::test::PrefillProblem;

namespace {

// A timed call must succeed: a failure there is a bug the checks missed.
void succeed(argus_status status) {
  if (status != ARGUS_OK) {
    std::fprintf(stderr, "%s\n", argus_last_error());
    std::exit(1);
  }
}

argus_attention_decode_args argsOf(const DecodeProblem &p, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                                   const int32_t *table, const int32_t *lengths, uint16_t *o) {
  argus_attention_decode_args a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.batch = p.batch(), a.num_heads = p.heads, a.num_kv_heads = p.kvHeads, a.head_dim = p.headDim;
  a.v_head_dim = p.valueDim, a.page_size = p.pageSize, a.max_pages_per_seq = p.maxPagesPerSeq();
  a.dtype = p.f16 ? ARGUS_DTYPE_F16 : ARGUS_DTYPE_BF16;
  a.q = q, a.k_cache = k, a.v_cache = v, a.block_table = table, a.seqlens_kv = lengths, a.o = o;
  a.scale = p.scale;
  return a;
}

// After `status` = a call writing `deviceO`: the output back into data.o, compared with float64
// (`compare`), one line printed, the device buffers freed; 1 when anything was wrong.
template <class Problem, class Data>
int finishCheck(const char *what, const Problem &p, Data &data, argus_status status, const uint16_t *deviceO,
                cudaStream_t stream, std::initializer_list<void *> buffers) {
  ARGUS_CUDA_CHECK(cudaStreamSynchronize(stream));
  ARGUS_CUDA_CHECK(cudaMemcpy(data.o.data(), deviceO, data.o.size() * 2, cudaMemcpyDeviceToHost));
  const std::string problems =
      status == ARGUS_OK ? argus::gpu::test::compareWithFloat64(p, data) : std::string(argus_last_error()) + "\n";
  std::printf("%-4s %s %s\n%s", problems.empty() ? "ok" : "FAIL", what, p.describe().c_str(), problems.c_str());
  for (void *ptr : buffers)
    cudaFree(ptr);
  return problems.empty() ? 0 : 1;
}

int checkDecode(const DecodeProblem &p, cudaStream_t stream, unsigned seed) {
  std::mt19937 rng(seed);
  DecodeData data(p, rng);
  uint16_t *q = toDevice(data.q), *k = toDevice(data.kCache), *v = toDevice(data.vCache), *o = toDevice(data.o);
  int32_t *table = toDevice(data.blockTable), *lengths = toDevice(data.seqlens);
  const argus_attention_decode_args args = argsOf(p, q, k, v, table, lengths, o);
  return finishCheck("decode", p, data, argus_attention_decode(&args, stream), o, stream, {q, k, v, o, table, lengths});
}

// `wgmma`: pass the packed tensors' row counts, which selects the TMA and wgmma kernel where the head
// dims fit it; without them the mma.sync kernel runs.
int checkPrefill(const PrefillProblem &p, cudaStream_t stream, unsigned seed, bool wgmma) {
  std::mt19937 rng(seed);
  PrefillData data(p, rng);
  uint16_t *q = toDevice(data.q), *k = toDevice(data.k), *v = toDevice(data.v), *o = toDevice(data.o);
  int32_t *cuQ = toDevice(data.cuSeqlensQ), *cuKv = toDevice(data.cuSeqlensKv);
  argus_attention_prefill_args a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.batch = p.batch(), a.num_heads = p.heads, a.num_kv_heads = p.kvHeads, a.head_dim = p.headDim;
  a.v_head_dim = p.valueDim, a.max_seqlen_q = p.maxSeqQ();
  for (const auto &s : p.seqlens)
    a.max_seqlen_kv = std::max<int64_t>(a.max_seqlen_kv, s.second);
  a.dtype = p.f16 ? ARGUS_DTYPE_F16 : ARGUS_DTYPE_BF16;
  a.q = q, a.k = k, a.v = v, a.o = o, a.cu_seqlens_q = cuQ, a.cu_seqlens_kv = cuKv;
  a.causal = p.causal ? 1 : 0, a.scale = p.scale;
  if (wgmma)
    a.total_q = data.cuSeqlensQ.back(), a.total_kv = data.cuSeqlensKv.back();
  return finishCheck(wgmma ? "prefill (totals given)" : "prefill", p, data, argus_attention_prefill(&a, stream), o, stream, {q, k, v, o, cuQ, cuKv});
}

// Llama-3-8B's heads (32 query, 8 KV) of head_dim d, causal, `tokens` / `length` sequences of
// `length` tokens; microseconds per call.
double timePrefill(int d, int length, int tokens, bool wgmma, cudaStream_t stream) {
  const int batch = tokens / length, heads = 32, kvHeads = 8;
  std::vector<int32_t> offsets(size_t(batch) + 1);
  for (int b = 0; b <= batch; ++b)
    offsets[size_t(b)] = b * length;
  int32_t *cu = toDevice(offsets);
  uint16_t *q, *k, *v, *o;
  ARGUS_CUDA_CHECK(cudaMalloc(&q, size_t(tokens) * heads * d * 2));
  ARGUS_CUDA_CHECK(cudaMalloc(&k, size_t(tokens) * kvHeads * d * 2));
  ARGUS_CUDA_CHECK(cudaMalloc(&v, size_t(tokens) * kvHeads * d * 2));
  ARGUS_CUDA_CHECK(cudaMalloc(&o, size_t(tokens) * heads * d * 2));
  check::fillRandom<<<1024, 256>>>(reinterpret_cast<__nv_bfloat16 *>(q), size_t(tokens) * heads * d, 11);
  check::fillRandom<<<1024, 256>>>(reinterpret_cast<__nv_bfloat16 *>(k), size_t(tokens) * kvHeads * d, 12);
  check::fillRandom<<<1024, 256>>>(reinterpret_cast<__nv_bfloat16 *>(v), size_t(tokens) * kvHeads * d, 13);
  argus_attention_prefill_args a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.batch = batch, a.num_heads = heads, a.num_kv_heads = kvHeads, a.head_dim = d, a.v_head_dim = d;
  a.max_seqlen_q = a.max_seqlen_kv = length;
  a.dtype = ARGUS_DTYPE_BF16;
  a.q = q, a.k = k, a.v = v, a.o = o, a.cu_seqlens_q = cu, a.cu_seqlens_kv = cu, a.causal = 1;
  if (wgmma)
    a.total_q = a.total_kv = tokens;
  const double us = check::medianMicroseconds(stream, [&] { succeed(argus_attention_prefill(&a, stream)); });
  for (void *ptr : {(void *)q, (void *)k, (void *)v, (void *)o, (void *)cu})
    cudaFree(ptr);
  return us;
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
  const double us = check::medianMicroseconds(stream, [&] {
                      for (int c = 0; c < copies; ++c) {
                        const argus_attention_decode_args args =
                            argsOf(p, q, k[size_t(c)], v[size_t(c)], dTable, dLengths, o);
                        succeed(argus_attention_decode(&args, stream));
                      }
                    }) / copies;
  for (int c = 0; c < copies; ++c) {
    cudaFree(k[size_t(c)]);
    cudaFree(v[size_t(c)]);
  }
  for (void *ptr : {(void *)q, (void *)o, (void *)dTable, (void *)dLengths})
    cudaFree(ptr);
  return {us, bytesRead};
}

}  // namespace

// Usage: attention_sm90_bench [OUT.jsonl] [--only=decode|prefill]: checks and times both, or one.
int main(int argc, char **argv) {
  const char *jsonPath = "attention_sm90.jsonl";
  bool decode = true, prefill = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--only=decode"))
      prefill = false;
    else if (!std::strcmp(argv[i], "--only=prefill"))
      decode = false;
    else if (argv[i][0] != '-')
      jsonPath = argv[i];
    else {
      std::fprintf(stderr, "usage: %s [OUT.jsonl] [--only=decode|prefill]\n", argv[0]);
      return 2;
    }
  }
  cudaStream_t stream;
  ARGUS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const DecodeProblem problems[] = {
      {32, 8, 128, 128, 16, {0, 1, 77, 1100, 4096}, 0.0f},
      {16, 2, 64, 64, 1, {5, 130, 0}, 0.3f},
      {4, 4, 192, 128, 64, {900, 63}, 0.0f},
      {8, 1, 256, 256, 16, {520, 31}, 0.0f},
      {64, 8, 128, 128, 256, {20000}, 0.0f},
  };
  const PrefillProblem prefills[] = {
      {4, 1, 128, 128, true, {{130, 130}, {0, 0}, {5, 77}, {70, 20}}, 0.0f},
      {2, 2, 64, 64, false, {{33, 200}, {129, 65}}, 0.2f},
      {2, 2, 192, 128, true, {{40, 100}, {64, 64}}, 0.0f},
      {32, 8, 128, 128, true, {{2048, 2048}, {1000, 3000}}, 0.0f},
  };
  int failures = 0;
  unsigned seed = 1;
  size_t checks = 0;
  for (bool f16 : {false, true}) {  // every problem in bf16, then in f16
    for (DecodeProblem p : problems) {
      if (!decode)
        break;
      p.f16 = f16;
      failures += checkDecode(p, stream, seed++);
      ++checks;
    }
    for (PrefillProblem p : prefills) {
      if (!prefill)
        break;
      p.f16 = f16;
      failures += checkPrefill(p, stream, seed, false);
      failures += checkPrefill(p, stream, seed++, true);
      checks += 2;
    }
  }
  std::printf("%d failed of %zu\n", failures, checks);
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
      if (!decode)
        break;
      const Timing t = timeDecode(batch, context, stream, size_t(prop.l2CacheSize));
      const double gbps = t.bytes / (t.microseconds * 1e-6) / 1e9;
      std::printf("llama3-8b decode  batch %2d  context %5d  %8.1f us  %6.0f GB/s  %3.0f%% of copy\n", batch, context,
                  t.microseconds, gbps, 100.0 * gbps * 1e9 / copyBandwidth);
      if (json)
        std::fprintf(json,
                     "{\"device\": \"%s\", \"impl\": \"argus\", \"batch\": %d, \"context\": %d, \"us\": %.2f, "
                     "\"gbps\": %.1f, \"copy_gbps\": %.1f}\n",
                     prop.name, batch, context, t.microseconds, gbps, copyBandwidth / 1e9);
    }
  for (int d : {128, 64})
    for (int length : {1024, 2048, 4096, 8192})
      for (bool wgmma : {true, false}) {
        if (!prefill)
          break;
        const int tokens = 16384;
        const double us = timePrefill(d, length, tokens, wgmma, stream);
        // Causal: half of the length x length scores, Q·Kᵀ and P·V each 2 d flops per score, 32 heads.
        const double flops = 2.0 * 2.0 * d * 32 * (double(tokens) / length) * 0.5 * double(length) * length;
        const double tflops = flops / (us * 1e-6) / 1e12;
        const char *impl = wgmma ? "argus_wgmma" : "argus_mma_sync";
        std::printf("llama3-8b heads prefill causal  %-14s d %3d  length %5d  %8.1f us  %6.1f TFLOP/s\n", impl, d,
                    length, us, tflops);
        if (json)
          std::fprintf(json,
                       "{\"device\": \"%s\", \"impl\": \"%s\", \"head_dim\": %d, \"prefill_length\": %d, "
                       "\"tokens\": %d, \"us\": %.2f, \"tflops\": %.1f}\n",
                       prop.name, impl, d, length, tokens, us, tflops);
      }
  if (json)
    std::fclose(json);
  return 0;
}
