//===- argus_moe_transposed.h - plain experts: pack the rows, not weights -===//
//
// The last MoE tier's kernels, given plain weights, would pack every k-step
// of an expert's weight tiles into panels once per row block: with a few
// dozen rows that repacks the whole expert for little reuse (Mixtral-8x7B,
// 128 tokens, bf16, two threads: 17% of the experts' time in transposes,
// and plain weights 1.4x slower than pre-packed ones). As dense GEMMs do
// (argus_gemm_transposed.h), such a block runs transposed instead:
//
//   H^T = silu(Wg X^T) * (Wu X^T)   gate_up_transposed, X packed per block
//   Y^T = Wd H^T                    down_transposed (f32), H packed
//
// with the weights as the kernels' row operand, read where they lie, and H
// and Y written through views that see them transposed. Two threads, Zen 4,
// plain bf16 weights: Mixtral-8x7B 128 tokens 1.11-1.15x, 512 tokens
// 1.19-1.22x, Qwen3-30B-A3B 512 tokens 0.98-1.12x; f32 even. The 64-column
// tiles of a block's last rows compute only the panels that hold them
// (panel_window: a 40-row block computes 48 columns, not 64): Qwen3 512
// tokens 1.10-1.12x more, Mixtral 512 1.11x, 128 1.02x. Blocks of 32 rows
// and fewer keep the inner-product form: transposed, experts of 17-32 rows
// ran 0.55-0.9x with full 64-column tiles, and 0.97-1.0x computing 32.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_MOE_TRANSPOSED_H
#define ARGUS_RUNTIME_MOE_TRANSPOSED_H

#include "argus_kernels.h"
#include "cpu/argus_cpu_abi.h"

#include <cstdint>

namespace argus_rt {

/// One expert's row block: `rows` rows of `x` (hidden wide) and its gate
/// and up weights (intermediate x hidden each), into `rows` rows of `h`
/// (intermediate wide), with `kernel` (argus_moe_tier::gate_up_transposed).
/// False, having written nothing, when the packing scratch cannot be had.
bool runGateUpTransposed(argus_cpu_kernel_fn kernel, argus_dtype dtype, const void *x, int64_t rows, int64_t hidden,
                         int64_t intermediate, const void *wg, const void *wu, void *h, int numThreads);

/// The same block's down projection: `rows` rows of `h` and the down
/// weights (hidden x intermediate) into `rows` f32 rows of `y` (hidden
/// wide) with `kernel` (argus_moe_tier::down_transposed). False, having
/// written nothing, when the scratch cannot be had.
bool runDownTransposed(argus_cpu_kernel_fn kernel, argus_dtype dtype, const void *h, int64_t rows,
                       int64_t intermediate, int64_t hidden, const void *wd, float *y, int numThreads);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_MOE_TRANSPOSED_H
