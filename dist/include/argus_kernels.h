/*===- argus_kernels.h - the C ABI of a generated Argus kernel library ----===*
 *
 * This is the only header a serving engine includes. It is plain C99 (no C++
 * types, no exceptions cross it) and describes every library argus-gen emits,
 * whatever model or target it was generated for: `libargus_kernels.so.X.Y.Z`
 * with SONAME `libargus_kernels.so.X`, X = ARGUS_ABI_VERSION.
 *
 * Conventions shared by every entry point:
 *  - Every args struct begins with `size_t struct_size`; set it to
 *    `sizeof(the struct)`. A smaller value is rejected, a larger one is
 *    accepted (a newer header may have grown the struct).
 *  - Every function is thread-safe and needs no set-up call.
 *  - A failing call returns a status other than ARGUS_OK and leaves a message
 *    in argus_last_error() for the calling thread, e.g.
 *    "argus_gemm: lda (3) must be >= k (5)". Nothing ever aborts or throws.
 *  - On CPU targets pointers are host pointers and `stream` is ignored; on GPU
 *    targets they are device pointers and `stream` is a cudaStream_t /
 *    hipStream_t.
 *  - Dispatch: an exact match on the static sizes of the shape catalog the
 *    library was generated from, bucketed on the dynamic ones (tokens), else a
 *    generic kernel that is correct for every valid shape. Environment:
 *      ARGUS_STRICT=1         a call that would use the generic kernel fails
 *                             with ARGUS_ERROR_UNSUPPORTED instead;
 *      ARGUS_NUM_THREADS=<n>  CPU threads per call (0 or unset: OpenMP default).
 *    They are read once, at the first call into the library.
 *
 * Changing this file: extending is fine (new functions, new fields at the END
 * of an args struct); renaming or reordering anything breaks the ABI.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_KERNELS_H
#define ARGUS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ARGUS_ABI_VERSION 1

#if defined(_WIN32)
#define ARGUS_API
#elif defined(__GNUC__) || defined(__clang__)
#define ARGUS_API __attribute__((visibility("default")))
#else
#define ARGUS_API
#endif

typedef enum {
  ARGUS_OK = 0,
  ARGUS_ERROR_INVALID_ARGUMENT = 1, /* NULL, negative or overflowing sizes, ld too small, ... */
  ARGUS_ERROR_UNSUPPORTED = 2,      /* valid request this library cannot serve (dtype, ISA, strict) */
  ARGUS_ERROR_DEVICE = 3,           /* the device or its driver failed */
  ARGUS_ERROR_INTERNAL = 4          /* a bug in the library: please report it with the message */
} argus_status;

typedef enum {
  ARGUS_DTYPE_F32 = 0,
  ARGUS_DTYPE_F16 = 1,  /* IEEE binary16, stored as uint16_t */
  ARGUS_DTYPE_BF16 = 2, /* bfloat16, stored as uint16_t */
  ARGUS_DTYPE_FP8_E4M3 = 3
} argus_dtype;

/* ---- Library information and errors ---------------------------------- */

/** The ABI version the library implements; compare with ARGUS_ABI_VERSION. */
ARGUS_API uint32_t argus_abi_version(void);

/** The library version, "X.Y.Z" (X = ABI version). Never NULL. */
ARGUS_API const char *argus_version(void);

/** The manifest as a JSON object: model, target, catalog hash, generator
 *  version and the kernels (with their shapes and buckets). Never NULL. */
ARGUS_API const char *argus_manifest_json(void);

/** The message of the last failing call on the calling thread, "" when no
 *  call on this thread has failed. Successful calls do not clear it. The
 *  pointer stays valid until the next failing call on the same thread. */
ARGUS_API const char *argus_last_error(void);

/** A constant name for a status, e.g. "ARGUS_ERROR_INVALID_ARGUMENT";
 *  "ARGUS_UNKNOWN_STATUS" for a value outside the enum. Never NULL. */
ARGUS_API const char *argus_status_string(argus_status s);

/* ---- GEMM ------------------------------------------------------------- */

typedef struct {            /* C[m,n] = alpha * sum_k A[m,k] * B[n,k] + beta * C[m,n] (+ bias[n]) */
  size_t struct_size;
  int64_t m, n, k;
  argus_dtype a_type, b_type, c_type;
  const void *a; int64_t lda;                 /* row-major m x k */
  const void *b; int64_t ldb;                 /* row-major n x k (weights: y = x W^T) */
  void *c;       int64_t ldc;                 /* row-major m x n */
  const void *bias;                           /* n elements of c_type, or NULL */
  float alpha, beta;
  const void *b_packed;                       /* the weights packed by argus_pack_weights (batch 1,
                                                  n, k, b_type): then b and ldb are ignored. NULL:
                                                  use b. A struct_size ending before it means NULL. */
} argus_gemm_args;

/** C = alpha * A B^T + beta * C (+ bias broadcast over rows), accumulated in
 *  f32 and rounded once to c_type. BLAS semantics: when beta == 0, C is not
 *  read (NaN in C does not propagate); when k == 0, C = beta * C (+ bias).
 *  m == 0 or n == 0 is a no-op that returns ARGUS_OK.
 *  Supported types (a, b -> c): f32,f32->f32; bf16,bf16->bf16|f32;
 *  f16,f16->f16|f32; others return ARGUS_ERROR_UNSUPPORTED.
 *  Requires lda >= k, ldb >= k, ldc >= n; a, b, c may be NULL only when the
 *  matrix they point to is empty. CPU libraries may keep a per-thread scratch
 *  buffer between calls (f32 with plain weights: up to 32 MiB, README). */
ARGUS_API argus_status argus_gemm(const argus_gemm_args *args, void *stream);

/* ---- Attention -------------------------------------------------------- */

typedef struct {            /* varlen causal/non-causal prefill, GQA; packed [tokens, heads, head_dim] */
  size_t struct_size;
  int64_t batch, num_heads, num_kv_heads, head_dim, max_seqlen_q, max_seqlen_kv;
  argus_dtype dtype;
  const void *q, *k, *v; void *o;              /* q, k: head_dim wide; v, o: v_head_dim wide */
  const int32_t *cu_seqlens_q, *cu_seqlens_kv; /* batch + 1 prefix sums */
  int causal; float scale;                     /* scale 0 means 1/sqrt(head_dim) */
  int64_t v_head_dim;                          /* 0 means head_dim; differs in multi-head latent
                                                  attention (DeepSeek: head_dim 192, v_head_dim 128).
                                                  A struct_size ending before it means 0. */
  int64_t total_q, total_kv;                   /* rows of q and o, and of k and v (at least
                                                  cu_seqlens_q[batch], cu_seqlens_kv[batch]), or 0
                                                  when not given. The prefix sums may live on the
                                                  device; kernels that address the packed tensors
                                                  through TMA tensor maps (cuda-sm90a) need their
                                                  sizes from the host, and without them run a
                                                  kernel that does not. A struct_size ending
                                                  before them means 0. */
} argus_attention_prefill_args;

/** Variable-length prefill attention with grouped-query heads
 *  (num_heads % num_kv_heads == 0): o = softmax(scale * q k^T [+ causal
 *  mask]) v per sequence. batch == 0 is a no-op. Configurations outside the
 *  library's catalog run generic kernels for head_dim 64 or 128 with
 *  v_head_dim == head_dim; others are ARGUS_ERROR_UNSUPPORTED (README). */
ARGUS_API argus_status argus_attention_prefill(const argus_attention_prefill_args *args,
                                               void *stream);

typedef struct {            /* one query token per sequence against a paged KV cache */
  size_t struct_size;
  int64_t batch, num_heads, num_kv_heads, head_dim, page_size, max_pages_per_seq;
  argus_dtype dtype;
  const void *q;                               /* [batch, num_heads, head_dim] */
  const void *k_cache, *v_cache;               /* [num_pages, page_size, num_kv_heads, head_dim];
                                                  v_cache: v_head_dim wide */
  const int32_t *block_table;                  /* [batch, max_pages_per_seq] */
  const int32_t *seqlens_kv;                   /* [batch] */
  void *o;                                     /* [batch, num_heads, v_head_dim] */
  float scale;
  int64_t v_head_dim;                          /* as in argus_attention_prefill_args */
} argus_attention_decode_args;

/** Decode attention: one query token per sequence against a paged KV cache
 *  addressed through block_table. In cpu-* and cuda-sm90a libraries, cache
 *  slots past seqlens_kv[b] (the rest of a last page) never reach the
 *  result, whatever they hold (hip-* libraries: keep them finite).
 *  batch == 0 is a no-op. Outside the catalog: the generic kernels' head
 *  dims (as prefill) and page sizes that are multiples of 16; other page
 *  sizes are ARGUS_ERROR_UNSUPPORTED unless the catalog names them. */
ARGUS_API argus_status argus_attention_decode(const argus_attention_decode_args *args,
                                              void *stream);

/* ---- Mixture of experts ----------------------------------------------- */

typedef struct {            /* top-k routed SwiGLU experts: out = sum_j w_j * down_e(silu(gate_e x) * up_e x) */
  size_t struct_size;
  int64_t num_tokens, hidden, intermediate, num_experts, top_k;
  argus_dtype dtype;
  const void *x;                               /* [num_tokens, hidden] */
  const float *router_logits;                  /* [num_tokens, num_experts] */
  const void *w_gate_up;                       /* [num_experts, 2*intermediate, hidden] (gate rows first) */
  const void *w_down;                          /* [num_experts, hidden, intermediate] */
  void *out;                                   /* [num_tokens, hidden] */
  int renormalize;                             /* renormalise the top-k softmax weights to sum to 1 */
  void *workspace; size_t workspace_size;
  const void *w_gate_up_packed;                /* w_gate_up packed by argus_pack_weights as 2 *
                                                  num_experts matrices of intermediate x hidden (batch
                                                  2E, n I, k H, batch_stride I*H), or NULL */
  const void *w_down_packed;                   /* w_down packed as num_experts matrices of hidden x
                                                  intermediate, or NULL. Either or both may be given;
                                                  a packed one replaces its plain pointer. A
                                                  struct_size ending before them means NULL. */
} argus_moe_args;

/** Bytes of workspace argus_moe needs for these args (0 when none, and for
 *  NULL or invalid args). */
ARGUS_API size_t argus_moe_workspace_size(const argus_moe_args *args);

/** Routed SwiGLU mixture of experts; `workspace` must hold at least
 *  argus_moe_workspace_size(args) bytes. num_tokens == 0 is a no-op.
 *  Sizes outside the catalog run generic bf16 and f32 kernels; f16 there is
 *  ARGUS_ERROR_UNSUPPORTED. */
ARGUS_API argus_status argus_moe(const argus_moe_args *args, void *stream);

/* ---- Pre-packed weights (optional) ----------------------------------- */

typedef struct {            /* `batch` weight matrices of n x k (a GEMM's B: batch 1) */
  size_t struct_size;
  int64_t batch, n, k;
  argus_dtype dtype;
  const void *w; int64_t ldw;                 /* row-major n x k, rows ldw elements apart */
  int64_t batch_stride;                       /* elements from one matrix to the next; 0 means n * ldw */
} argus_weights_desc;

/** Bytes argus_pack_weights writes for these weights (0 for NULL or
 *  invalid descriptions, and where this library has no packed layout for
 *  the dtype; argus_pack_weights then says why). */
ARGUS_API size_t argus_packed_weights_size(const argus_weights_desc *weights);

/** Copies the weights once into the layout this library's kernels compute
 *  from (on CPU targets: k-major panels of 32 rows, pairs of k for bf16), so
 *  that argus_gemm (b_packed) and argus_moe (w_*_packed) skip re-arranging
 *  them at every call. `packed` must be 64-byte aligned and hold
 *  argus_packed_weights_size bytes; it records the shape and dtype, and a
 *  call given packed weights that do not match its own fails with
 *  ARGUS_ERROR_INVALID_ARGUMENT. The packed bytes are the library's own:
 *  keep them for this library version and CPU only. f32 and bf16 on CPU
 *  targets; elsewhere ARGUS_ERROR_UNSUPPORTED (pass the weights plain). */
ARGUS_API argus_status argus_pack_weights(const argus_weights_desc *weights, void *packed, size_t packed_size,
                                          void *stream);

/* ---- Extensions (not in the v1 contract; for tests and debugging) ---- */

/** The name of the kernel argus_gemm would run for these args: a catalog
 *  kernel, the generic fallback, "argus_noop" (m == 0 or n == 0) or
 *  "argus_beta_scale" (k == 0, done by the runtime; where the kernels take
 *  k == 0 themselves, as a hip library's do, the kernel's name). NULL when argus_gemm
 *  would fail; argus_last_error() then says why. */
ARGUS_API const char *argus_gemm_kernel_name(const argus_gemm_args *args);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ARGUS_KERNELS_H */
