//===- fake_library.h - hand-written "generated tables" for runtime tests -===//
//
// argus-gen emits the kernel tables of argus_registry.h; to test the runtime
// without the generator, fake_library.cpp defines them by hand, with small
// but correct C++ GEMM "kernels". Every kernel records its call (which kernel,
// the arguments it received, num_threads) in a thread-local so tests can see
// what the dispatcher did, not only what it says it would do.
//
// The catalog (n, k, dtypes: bucket bounds -> kernel names):
//   64 x 32,  f32  x f32  -> f32 : {1, 16, 128}  -> f32_n64_k32_m{1,16,128}
//   96 x 48,  bf16 x bf16 -> bf16: {8, 64}       -> bf16_n96_k48_m{8,64}
//   96 x 48,  bf16 x bf16 -> f32 : {32}          -> bf16f32_n96_k48_m32
//   40 x 24,  f16  x f16  -> f16 : {4, 256}      -> f16_n40_k24_m{4,256}
// Fallbacks for every supported dtype combination: fallback_<a>_<c>.
// ISA: "avx2,fma". Version "1.2.3".
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_FAKE_LIBRARY_H
#define ARGUS_TEST_FAKE_LIBRARY_H

#include "argus_registry.h"

#ifdef __cplusplus
#include <cstdint>

namespace fake {

/// What the last kernel called on this thread received.
struct LastCall {
  const char *kernel = nullptr; // its name in the tables
  argus_cpu_arg args[ARGUS_GEMM_KERNEL_ARGS] = {};
  int numThreads = -1;
  int64_t calls = 0; // kernels called on this thread so far
};

LastCall &lastCall();

} // namespace fake
#endif

#endif // ARGUS_TEST_FAKE_LIBRARY_H
