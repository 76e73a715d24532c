// Device-side checking for the GPU benchmarks: fresh random inputs, poisoned outputs, a float64
// reference GEMM and an element-wise comparison whose tolerance follows the magnitude of the terms
// each output sums. Everything stays on the GPU: large shapes would take minutes on the host.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define ARGUS_CUDA_CHECK(call)                                                                      \
  do {                                                                                              \
    cudaError_t status_ = (call);                                                                   \
    if (status_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(status_)); \
      std::exit(2);                                                                                 \
    }                                                                                               \
  } while (0)

namespace argus::bench {

// A device copy of `host` (at least one element allocated, so an empty vector still gives a pointer).
template <class T>
T *toDevice(const std::vector<T> &host) {
  T *device;
  ARGUS_CUDA_CHECK(cudaMalloc(&device, std::max<size_t>(host.size(), 1) * sizeof(T)));
  ARGUS_CUDA_CHECK(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

__device__ inline uint32_t mixBits(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return uint32_t(x);
}

// Uniform in [-1, 1): never zeros, never a pattern a wrong index could reproduce.
__global__ void fillRandom(__nv_bfloat16 *data, size_t count, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    data[i] = __float2bfloat16(float(mixBits(seed * 0x9E3779B97F4A7C15ULL + i)) * (2.0f / 4294967296.0f) - 1.0f);
}

// bf16 NaN: an element the kernel forgot to write fails the comparison.
__global__ void poison(__nv_bfloat16 *data, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    data[i] = __ushort_as_bfloat16(0xFFFF);
}

// ref[m, n] = alpha * sum_k A[m,k] B[n,k] + beta * c0[m,n] + bias[n] in float64, and
// magnitude[m, n] = |alpha| sum_k |A[m,k] B[n,k]| + |beta c0| + |bias|, the scale of rounding error.
constexpr int kRefTile = 64, kRefSlice = 16;
__global__ void __launch_bounds__(256) referenceGemm(const __nv_bfloat16 *a, int64_t lda, const __nv_bfloat16 *b,
                                                    int64_t ldb, const __nv_bfloat16 *c0, int64_t ldc,
                                                    const __nv_bfloat16 *bias, double alpha, double beta, int m,
                                                    int n, int k, double *ref, float *magnitude) {
  __shared__ double tileA[kRefSlice][kRefTile + 1], tileB[kRefSlice][kRefTile + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int rowBase = blockIdx.y * kRefTile, colBase = blockIdx.x * kRefTile;
  double sum[4][4] = {}, mag[4][4] = {};
  for (int k0 = 0; k0 < k; k0 += kRefSlice) {
    for (int i = threadIdx.x; i < kRefSlice * kRefTile; i += 256) {
      const int kk = i % kRefSlice, r = i / kRefSlice;
      const int row = rowBase + r, col = colBase + r, kIndex = k0 + kk;
      tileA[kk][r] = (row < m && kIndex < k) ? double(__bfloat162float(a[int64_t(row) * lda + kIndex])) : 0.0;
      tileB[kk][r] = (col < n && kIndex < k) ? double(__bfloat162float(b[int64_t(col) * ldb + kIndex])) : 0.0;
    }
    __syncthreads();
    for (int kk = 0; kk < kRefSlice; ++kk)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          const double p = tileA[kk][ty + 16 * i] * tileB[kk][tx + 16 * j];
          sum[i][j] += p;
          mag[i][j] += fabs(p);
        }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int row = rowBase + ty + 16 * i, col = colBase + tx + 16 * j;
      if (row >= m || col >= n)
        continue;
      double value = alpha * sum[i][j], scale = fabs(alpha) * mag[i][j];
      if (beta != 0.0) {
        const double old = __bfloat162float(c0[int64_t(row) * ldc + col]);
        value += beta * old;
        scale += fabs(beta * old);
      }
      if (bias) {
        const double add = __bfloat162float(bias[col]);
        value += add;
        scale += fabs(add);
      }
      ref[int64_t(row) * n + col] = value;
      magnitude[int64_t(row) * n + col] = float(scale);
    }
}

struct CompareTotals {
  unsigned long long failures, nonFinite;
  double squaredError, squaredReference, worstRatio;
};

// An element passes when |out - ref| <= relative * |ref| + accumulation * magnitude.
__global__ void compareOutput(const __nv_bfloat16 *out, int64_t ldc, const double *ref, const float *magnitude, int m,
                              int n, double relative, double accumulation, CompareTotals *totals) {
  double squaredError = 0, squaredReference = 0, worst = 0;
  unsigned long long failures = 0, nonFinite = 0;
  const size_t count = size_t(m) * n;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const int row = int(i / n), col = int(i % n);
    const double got = __bfloat162float(out[int64_t(row) * ldc + col]), want = ref[i];
    if (!isfinite(got)) {
      ++nonFinite;
      continue;
    }
    const double error = fabs(got - want), tolerance = relative * fabs(want) + accumulation * magnitude[i] + 1e-30;
    squaredError += error * error;
    squaredReference += want * want;
    worst = fmax(worst, error / tolerance);
    failures += error > tolerance;
  }
  atomicAdd(&totals->failures, failures);
  atomicAdd(&totals->nonFinite, nonFinite);
  atomicAdd(&totals->squaredError, squaredError);
  atomicAdd(&totals->squaredReference, squaredReference);
  // worst ratio: a max over non-negative doubles, ordered like their bit patterns
  atomicMax(reinterpret_cast<unsigned long long *>(&totals->worstRatio), __double_as_longlong(worst));
}

}  // namespace argus::bench
