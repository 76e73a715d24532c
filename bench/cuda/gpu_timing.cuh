// Timing for the GPU benchmarks: medians of CUDA-event samples, and the copy bandwidth every
// memory-bound result is quoted against (measured in the same run, on the same GPU).
#pragma once

#include "gpu_check.cuh"

#include <algorithm>
#include <vector>

namespace argus::bench {

inline double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median microseconds of `run` (work enqueued on `stream`) over 25 samples after 3 warm-ups, by CUDA events.
template <class Run>
double medianMicroseconds(cudaStream_t stream, Run run) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<double> samples;
  for (int sample = 0; sample < 28; ++sample) {
    cudaEventRecord(start, stream);
    run();
    cudaEventRecord(stop, stream);
    ARGUS_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms;
    cudaEventElapsedTime(&ms, start, stop);
    if (sample >= 3)
      samples.push_back(1e3 * double(ms));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return medianOf(samples);
}

// A 1 GiB device-to-device cudaMemcpyAsync, bytes read + written per second, median of 20 after 3 warm-ups.
inline double measureCopyBandwidth() {
  const size_t bytes = size_t(1) << 30;
  void *src, *dst;
  ARGUS_CUDA_CHECK(cudaMalloc(&src, bytes));
  ARGUS_CUDA_CHECK(cudaMalloc(&dst, bytes));
  ARGUS_CUDA_CHECK(cudaMemset(src, 1, bytes));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<double> samples;
  for (int i = 0; i < 23; ++i) {
    cudaEventRecord(start);
    ARGUS_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms;
    cudaEventElapsedTime(&ms, start, stop);
    if (i >= 3)
      samples.push_back(2.0 * bytes / (ms * 1e-3));  // bytes read + bytes written
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(src);
  cudaFree(dst);
  return medianOf(samples);
}

}  // namespace argus::bench
