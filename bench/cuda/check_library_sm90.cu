// A cuda-sm90a library through its C ABI on an H100/H200: argus_gemm on catalog and generic shapes,
// with alpha, beta, bias and k = 0, and (an argus-gen library) the generated fallback for a pitch TMA
// cannot stride, on a stream of the caller's, each output poisoned first and compared with the
// float64 reference of gpu_check.cuh.
//
// Build (bench/cuda/run_library_check_sm90.sh does all of it on the GPU machine):
//   test/cuda/build_cuda_library.sh nvcc . test/cuda/cuda_test_tables.cu LIBDIR
//   nvcc -std=c++20 -gencode=arch=compute_90a,code=sm_90a -I dist/include bench/cuda/check_library_sm90.cu
//        -L LIBDIR -largus_kernels -Xlinker -rpath=LIBDIR -o check_library_sm90
#include "argus_kernels.h"
#include "gpu_check.cuh"

#include <cmath>
#include <cstring>
#include <vector>

namespace check = argus::bench;
using bf16 = __nv_bfloat16;

namespace {

struct Case {
  const char *what;
  int64_t m, n, k;
  float alpha, beta;
  bool bias;
  int64_t padA = 0; // lda = k + padA: a pitch that is not a multiple of 8 needs the generated fallback
};

int runCase(const Case &c, cudaStream_t stream, uint64_t seed) {
  const int64_t m = c.m, n = c.n, k = c.k, lda = k + c.padA;
  bf16 *a, *b, *out, *before, *bias;
  double *ref;
  float *magnitude;
  check::CompareTotals *totals;
  ARGUS_CUDA_CHECK(cudaMalloc(&a, std::max<int64_t>(m * lda, 1) * 2));
  ARGUS_CUDA_CHECK(cudaMalloc(&b, std::max<int64_t>(n * k, 1) * 2));
  ARGUS_CUDA_CHECK(cudaMalloc(&out, m * n * 2));
  ARGUS_CUDA_CHECK(cudaMalloc(&before, m * n * 2));
  ARGUS_CUDA_CHECK(cudaMalloc(&bias, n * 2));
  ARGUS_CUDA_CHECK(cudaMalloc(&ref, m * n * sizeof(double)));
  ARGUS_CUDA_CHECK(cudaMalloc(&magnitude, m * n * sizeof(float)));
  ARGUS_CUDA_CHECK(cudaMalloc(&totals, sizeof(check::CompareTotals)));
  check::fillRandom<<<1024, 256>>>(a, m * lda, seed);
  check::fillRandom<<<1024, 256>>>(b, n * k, seed + 1);
  check::fillRandom<<<1024, 256>>>(bias, n, seed + 2);
  if (c.beta != 0.0f)
    check::fillRandom<<<1024, 256>>>(out, m * n, seed + 3);
  else
    check::poison<<<1024, 256>>>(out, m * n);
  ARGUS_CUDA_CHECK(cudaMemcpy(before, out, m * n * 2, cudaMemcpyDeviceToDevice));
  dim3 grid((n + check::kRefTile - 1) / check::kRefTile, (m + check::kRefTile - 1) / check::kRefTile);
  check::referenceGemm<<<grid, 256>>>(a, lda, b, k, before, n, c.bias ? bias : nullptr, c.alpha, c.beta, int(m), int(n),
                                      int(k), ref, magnitude);
  ARGUS_CUDA_CHECK(cudaDeviceSynchronize());

  argus_gemm_args args;
  std::memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.m = m, args.n = n, args.k = k;
  args.a_type = args.b_type = args.c_type = ARGUS_DTYPE_BF16;
  args.a = a, args.lda = lda, args.b = b, args.ldb = k, args.c = out, args.ldc = n;
  args.bias = c.bias ? bias : nullptr, args.alpha = c.alpha, args.beta = c.beta;
  const char *kernel = argus_gemm_kernel_name(&args);
  const argus_status status = argus_gemm(&args, stream);
  ARGUS_CUDA_CHECK(cudaStreamSynchronize(stream));
  int failed = status != ARGUS_OK;
  if (!failed) {
    ARGUS_CUDA_CHECK(cudaMemset(totals, 0, sizeof(check::CompareTotals)));
    check::compareOutput<<<1024, 256>>>(out, n, ref, magnitude, int(m), int(n), 1.0 / 256, 1.0 / 65536, totals);
    check::CompareTotals t;
    ARGUS_CUDA_CHECK(cudaMemcpy(&t, totals, sizeof t, cudaMemcpyDeviceToHost));
    const double relative = std::sqrt(t.squaredError / std::max(t.squaredReference, 1e-300));
    failed = t.failures != 0 || t.nonFinite != 0 || relative >= 1e-2;
    std::printf("%-4s %-34s %5lld x %6lld x %5lld  %-36s rel %.2e worst %.2f\n", failed ? "FAIL" : "ok", c.what,
                (long long)m, (long long)n, (long long)k, kernel ? kernel : "?", relative, t.worstRatio);
  } else {
    std::printf("FAIL %-34s status %s: %s\n", c.what, argus_status_string(status), argus_last_error());
  }
  for (void *p : {(void *)a, (void *)b, (void *)out, (void *)before, (void *)bias, (void *)ref, (void *)magnitude,
                  (void *)totals})
    cudaFree(p);
  return failed;
}

}  // namespace

int main() {
  cudaStream_t stream;
  ARGUS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const Case cases[] = {
      {"catalog group, decode bucket", 16, 4096, 4096, 1.0f, 0.0f, false},
      {"catalog group, m = 1", 1, 4096, 4096, 1.0f, 0.0f, false},
      {"catalog group, prefill bucket", 3000, 4096, 4096, 1.0f, 0.0f, false},
      {"catalog group, alpha, beta, bias", 777, 4096, 4096, 0.5f, 0.25f, true},
      {"generic, N = 1280", 2048, 1280, 8192, 1.0f, 0.0f, false},
      {"generic, small grid (split-K)", 512, 1280, 8192, 1.0f, 0.0f, false},
      {"generic, decode", 8, 7168, 8192, 1.0f, 0.0f, false},
      {"generic, ragged, beta and bias", 77, 200, 136, 0.75f, 0.5f, true},
      {"generic, few rows, split, ragged, beta and bias", 13, 1290, 1000, 0.75f, 0.5f, true},
      {"generic, one row, ragged k", 1, 333, 8200, 1.0f, 0.0f, true},
      {"k = 0: C = beta C + bias", 33, 65, 0, 1.0f, 0.5f, true},
      {"fallback: lda not a TMA pitch, decode", 5, 4096, 4096, 1.0f, 0.0f, false, 4},
      {"fallback: lda not a TMA pitch, ragged", 300, 200, 136, 0.75f, 0.5f, true, 4},
  };
  // An argus-gen library runs what TMA cannot address on generated kernels; the test tables have none.
  const bool fallback = std::strstr(argus_manifest_json(), "\"generated_kernels\"") != nullptr;
  int failures = 0, run = 0;
  uint64_t seed = 12345;
  for (const Case &c : cases) {
    seed += 10;
    if (c.padA && !fallback) {
      std::printf("skip %-34s (this library has no generated fallback kernels)\n", c.what);
      continue;
    }
    failures += runCase(c, stream, seed);
    ++run;
  }
  std::printf("%d failed of %d run\n", failures, run);
  return failures ? 1 : 0;
}
