// ARGUS_HOST_DEVICE marks the plain C++ functions that both a CUDA kernel and the host call: nvcc
// compiles them for both sides, any C++17 compiler for the host (where tests check them).
#pragma once

#ifdef __CUDACC__
#define ARGUS_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define ARGUS_HOST_DEVICE inline
#endif
