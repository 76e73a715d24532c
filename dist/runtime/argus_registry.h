/*===- argus_registry.h - the tables a generated library links against ----===*
 *
 * The runtime is the same for every generated library; what differs is the
 * set of kernels. argus-gen emits one C/C++ file that DEFINES the objects
 * declared here (the runtime only reads them), so this header is the contract
 * between the emitter and the dispatcher. It is C-compatible.
 *
 * GEMM dispatch (dist/runtime/argus_gemm_dispatch.cpp):
 *   1. the group whose (n, k, a_type, b_type, c_type) equals the call's;
 *      inside it, bucket on m with argus_bucket_index (argus_bucketing.h);
 *   2. else the fallback for (a_type, b_type, c_type), bucketed on m the
 *      same way, unless ARGUS_STRICT=1;
 *   3. else ARGUS_ERROR_UNSUPPORTED.
 *
 * A kernel is called with 7 argus_cpu_arg (argus_cpu_abi.h), in this order:
 *   [0] A    tensor shape {m, k}  stride {lda, 1}
 *   [1] B    tensor shape {n, k}  stride {ldb, 1}
 *   [2] C    tensor shape {m, n}  stride {ldc, 1}
 *   [3] bias tensor shape {n}     stride {1}   (data NULL when there is none)
 *   [4] alpha  .f
 *   [5] beta   .f   (beta == 0: the kernel must not read C)
 *   [6] has_bias .i (0 or 1)
 * with m >= 1, n >= 1, k >= 1 (the runtime handles empty problems itself).
 *
 * Example of an emitted table (two buckets for the llama3-8b qkv GEMM):
 *
 *   static const int64_t qkv_bounds[] = {16, 8192};
 *   static const argus_cpu_kernel_fn qkv_kernels[] = {gemm_qkv_m16, gemm_qkv_m8192};
 *   static const char *const qkv_names[] = {"gemm_qkv_m16", "gemm_qkv_m8192"};
 *   const argus_gemm_group argus_gemm_groups[] = {
 *       {6144, 4096, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16,
 *        2, qkv_bounds, qkv_kernels, qkv_names}};
 *   const int32_t argus_gemm_group_count = 1;
 *
 * Attention dispatch (dist/runtime/argus_attention_dispatch.cpp): the kernel
 * whose (dtype, head_dim, v_head_dim, group = num_heads / num_kv_heads) equals
 * the call's; else, unless ARGUS_STRICT=1, the group-1 kernel of (dtype,
 * head_dim, v_head_dim), run
 * once per KV head with that head's queries; else ARGUS_ERROR_UNSUPPORTED.
 * A prefill kernel gets ARGUS_PREFILL_KERNEL_ARGS arguments for ONE sequence:
 *   [0] Q  tensor {seq_q, heads, head_dim}      [1] K  tensor {seq_kv, kv_heads, head_dim}
 *   [2] V  tensor {seq_kv, kv_heads, v_head_dim} [3] O tensor {seq_q, heads, v_head_dim}
 *   [4] scale .f    [5] causal .i (0 or 1)
 * A decode kernel gets ARGUS_DECODE_KERNEL_ARGS arguments:
 *   [0] Q  tensor {batch, heads, head_dim}
 *   [1] K cache tensor {pages, page_size, kv_heads, head_dim}   [2] V cache: v_head_dim wide
 *   [3] block_table tensor {batch, max_pages_per_seq} (i32)      [4] seqlens tensor {batch} (i32)
 *   [5] Op tensor {batch, splits, heads, v_head_dim} (f32)      [6] Lse tensor {batch, splits, heads} (f32)
 *   [7] scale .f
 * It writes each split's partial result (templates/attention/attention_decode.argus);
 * the dispatcher picks the splits and merges them into O.
 * Tensor strides are in elements and may be 0 (a broadcast KV head).
 *
 * MoE dispatch (dist/runtime/argus_moe_dispatch.cpp): the entry whose
 * (dtype, hidden, intermediate) equals the call's; else, unless
 * ARGUS_STRICT=1, the generic entry of the dtype (hidden = intermediate = 0).
 * Routing, grouping by expert and the weighted combine are the runtime's;
 * per expert with rows, it runs the entry's gate/up kernel
 * (ARGUS_MOE_GATE_UP_KERNEL_ARGS: [0] X {rows, hidden}, [1] Wg, [2] Wu
 * {intermediate, hidden}, [3] H {rows, intermediate}) and its down kernel,
 * a GEMM kernel (ARGUS_GEMM_KERNEL_ARGS) writing f32 rows, both from the
 * first tier whose max_rows the expert's rows do not exceed; in the last
 * tier, plain weights run gate_up_transposed and down_transposed instead
 * (argus_moe_transposed.h).
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_REGISTRY_H
#define ARGUS_REGISTRY_H

#include <stdint.h>

#include "argus_kernels.h"
#include "cpu/argus_cpu_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Number of argus_cpu_arg a GEMM kernel receives. */
#define ARGUS_GEMM_KERNEL_ARGS 7

/** The kernels tuned for one catalog GEMM: static (n, k) and dtypes, one
 *  kernel per token bucket. Invariant: argus_bucket_bounds_valid(bucket_bounds,
 *  num_buckets), and kernels[i] / kernel_names[i] are non-NULL for every i. */
typedef struct {
  int64_t n, k;
  argus_dtype a_type, b_type, c_type;
  int32_t num_buckets;
  const int64_t *bucket_bounds;       /* ascending m upper bounds (the catalog token buckets) */
  const argus_cpu_kernel_fn *kernels; /* one per bucket */
  const char *const *kernel_names;    /* one per bucket */
} argus_gemm_group;

/** The generic kernels for one dtype combination, correct for every valid
 *  shape (m, n, k >= 1, any leading dimensions), one per bucket of m (tiles
 *  as tall as the bucket; the same bucketing as the groups). */
typedef struct {
  argus_dtype a_type, b_type, c_type;
  int32_t num_buckets;
  const int64_t *bucket_bounds;
  const argus_cpu_kernel_fn *kernels;
  const char *const *kernel_names;
} argus_gemm_fallback;

#define ARGUS_PREFILL_KERNEL_ARGS 6
#define ARGUS_DECODE_KERNEL_ARGS 8

/** One attention kernel: prefill or decode, by the table it is in. */
typedef struct {
  argus_dtype dtype;
  int64_t head_dim;   /* of queries and keys */
  int64_t v_head_dim; /* of values and outputs */
  int64_t group;      /* query heads per KV head the kernel assumes */
  int64_t page_size;  /* decode: tokens per KV-cache page; 0 for prefill */
  int32_t in_catalog; /* 1: tuned for a catalog configuration; 0: generic only */
  argus_cpu_kernel_fn kernel;
  const char *name;
} argus_attention_kernel;

#define ARGUS_MOE_GATE_UP_KERNEL_ARGS 4

/** The gate/up and down kernels for experts with at most max_rows rows. */
typedef struct {
  int64_t max_rows; /* INT64_MAX in the last tier */
  argus_cpu_kernel_fn gate_up, down;
  int64_t block_rows; /* rows per program instance of both kernels (a row block) */
  /* For plain (not pre-packed) weights where they differ (tiles of their
   * own), else NULL: gate_up and down serve both layouts. */
  argus_cpu_kernel_fn gate_up_plain, down_plain;
  /* The last tier's kernels for plain weights in the transposed form, or
   * NULL (argus_moe_transposed.h): gate/up (templates/moe/moe_gate_up_t.argus:
   * [0] Wg, [1] Wu {intermediate, hidden}, [2] X packed in panels {rows,
   * hidden}, [3] H seen transposed {intermediate, rows}) and down, a GEMM
   * kernel into f32 (A: the down weights, B: H packed, C: f32 rows seen
   * transposed). */
  argus_cpu_kernel_fn gate_up_transposed, down_transposed;
} argus_moe_tier;

/** The kernels of one MoE configuration (or the generic ones of a dtype).
 *  Invariant: num_tiers >= 1, tiers ascending by max_rows, the last one
 *  INT64_MAX. */
typedef struct {
  argus_dtype dtype;
  int64_t hidden, intermediate; /* 0, 0: any sizes */
  int32_t in_catalog;
  int64_t decode_rows; /* when no expert has more rows, experts go to threads whole */
  int32_t num_tiers;
  const argus_moe_tier *tiers;
  const char *name;
  int32_t skips_padding_rows; /* 1: a block's rows past the expert's cost nothing; never split a partial block off */
} argus_moe_kernel;

/* Defined by the generated part of the library, which must include this
 * header first (so the `const` definitions get external, C linkage). A count
 * may be 0; its array must still be defined, with one zeroed element (C and
 * C++ have no empty arrays). */
extern const argus_gemm_group argus_gemm_groups[];
extern const int32_t argus_gemm_group_count;
extern const argus_gemm_fallback argus_gemm_fallbacks[];
extern const int32_t argus_gemm_fallback_count;

extern const argus_attention_kernel argus_prefill_kernels[];
extern const int32_t argus_prefill_kernel_count;
extern const argus_attention_kernel argus_decode_kernels[];
extern const int32_t argus_decode_kernel_count;

extern const argus_moe_kernel argus_moe_kernels[];
extern const int32_t argus_moe_kernel_count;

extern const char argus_generated_version[];  /* "X.Y.Z", returned by argus_version() */
extern const char argus_generated_manifest[]; /* JSON, returned by argus_manifest_json() */
extern const char argus_generated_isa[];      /* comma-separated CPU features the kernels
                                                 were compiled for, e.g. "avx2,fma";
                                                 "" for none (see argus_isa.h for names) */
extern const char argus_generated_target[];   /* GPU libraries only: "cuda-sm90a", "hip-gfx942", ... */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ARGUS_REGISTRY_H */
