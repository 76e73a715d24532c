//===- argus_gemm_transposed.h - plain weights: pack the activations -----===//
//
// With plain N x K weights a kernel packs every k-step of B into k-major
// panels at every call: 16 x 16 transposes over the whole weight matrix, once
// per tile row of C (17-20% of a 128-token f32 GEMM, N = K = 4096; bf16 pairs
// cost twice that per flop: plain ran at 0.74-0.88x of pre-packed weights at
// 64-128 tokens on Zen 4). The transposed product needs only the activations
// in panels:
//
//   C^T (N x M) = B (N x K) * A^T     A packed once per call (M x K: 1/32 of
//                                      B's elements at M = 128, N = 4096)
//
// so argus_gemm runs the generic kernel of its input dtype (f32 or bf16) into
// f32 with B as its row operand, read in place, A packed in panels
// (argus_cpu_abi.h, the layout of pre-packed weights), and C as its output
// seen transposed (element strides {1, ldc}). A is packed in chunks of rows
// into a per-thread scratch buffer; the bias, which the kernel adds per
// column of its output, is added afterwards (in f32, as the kernel would).
// A bf16 C is staged: the kernel writes alpha A B^T in f32 into a per-thread
// buffer, a block of weight rows at a time, and beta C and the bias are added
// here, in f32, in the kernel's order, rounded once.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_GEMM_TRANSPOSED_H
#define ARGUS_RUNTIME_GEMM_TRANSPOSED_H

#include "argus_kernels.h"
#include "argus_packed_weights.h"
#include "cpu/argus_cpu_abi.h"

namespace argus_rt {

/// Whether argus_gemm computes `g` (valid, m, n, k >= 1) in the transposed
/// form: f32 in and out or bf16 in (bf16 or f32 out), weights plain, kernels
/// that read panels of the input dtype, and a shape whose transposed tiles
/// are mostly in bounds (see the .cpp).
bool transposedFormFits(const argus_gemm_args &g);

/// Packs `m` rows of `k` elements (`ld` apart) of `dtype` into panels in
/// this thread's scratch buffer: `panels` then describes them. They stay
/// valid until the next packing on the thread (runTransposedGemm packs
/// there too). False when the buffer cannot be allocated.
bool packRowsInPanels(argus_dtype dtype, const void *rows, int64_t m, int64_t k, int64_t ld, int numThreads,
                      PackedWeights *panels);

/// Computes `g` in the transposed form with `kernel`, the generic kernel of
/// its input dtype into f32 (ARGUS_GEMM_KERNEL_ARGS, any shape). Returns
/// false, having written nothing, when the scratch buffers cannot be
/// allocated: the caller then runs the plain form.
bool runTransposedGemm(const argus_gemm_args &g, argus_cpu_kernel_fn kernel, int numThreads);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_GEMM_TRANSPOSED_H
