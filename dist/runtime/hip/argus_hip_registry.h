/*===- argus_hip_registry.h - the tables a hip library links against -------===*
 *
 * The counterpart of argus_registry.h for the hip-gfx942 / hip-gfx90a
 * targets: argus-gen emits one C++ file that DEFINES these objects (and
 * argus_generated_version, _manifest and _target of argus_registry.h), the
 * embedded code object among them; the runtime only reads them.
 *
 * GEMM dispatch (argus_hip_gemm.cpp): bf16 (or f16) A, B and C.
 *   1. the group whose (n, k) equals the call's, bucketed on m with
 *      argus_bucket_index (argus_bucketing.h), as on the CPU;
 *   2. else, unless ARGUS_STRICT=1, the kernel argus::hip::chooseGemmShape
 *      picks for (m, n);
 *   3. else ARGUS_ERROR_UNSUPPORTED.
 * The shape's kernel is the argus_hip_gemm_kernels entry of that shape and
 * element type: a gemm_tn_cdna.argus instance that argus-gen emitted.
 *
 * Prefill dispatch (argus_hip_prefill.cpp): the argus_hip_prefill_kernels
 * entry of the call's element type, GQA group and head dims; decode dispatch
 * (argus_hip_decode.cpp): the argus_hip_decode_kernels entry of the call's
 * element type, GQA group, head dims and page size. Else
 * ARGUS_ERROR_UNSUPPORTED naming the configurations the library has.
 *
 * MoE (argus_hip_moe.cpp): the pipeline's route, align (three steps),
 * gather, expert GEMMs and combine are the eight argus_hip_moe_kernels,
 * which serve every shape.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_HIP_REGISTRY_H
#define ARGUS_HIP_REGISTRY_H

#include <stdint.h>

#include "argus_kernels.h"
#include "argus_registry.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The kernels of one catalog GEMM (static n and k), one per m bucket. */
typedef struct {
  int64_t n, k;
  int32_t bucket_count;
  const int64_t *bucket_bounds; /**< ascending m upper bounds */
  const int32_t *shapes;        /**< per bucket, an index into argus::hip::kGemmShapes */
  const char *const *names;     /**< what argus_gemm_kernel_name reports */
} argus_hip_gemm_group;

extern const argus_hip_gemm_group argus_hip_gemm_groups[];
extern const int32_t argus_hip_gemm_group_count;

/** Fills a generated GEMM kernel's parameters from `args`, asks its launch
 *  function for the grid (or its refusal) and enqueues kernel `symbol` on
 *  `stream` (argus_hip_gemm_launch.h). */
typedef argus_status (*argus_hip_gemm_launcher)(const argus_gemm_args *args, const char *symbol, void *stream);

/** One GEMM kernel of the code object. */
typedef struct {
  int32_t shape;      /**< an index into argus::hip::kGemmShapes */
  int32_t f16;        /**< 1: f16 operands and C; 0: bf16 */
  const char *symbol; /**< its name in the code object */
  argus_hip_gemm_launcher launch;
} argus_hip_gemm_kernel;

extern const argus_hip_gemm_kernel argus_hip_gemm_kernels[];
extern const int32_t argus_hip_gemm_kernel_count;

/** Fills a generated prefill kernel's parameters from `args` (validated) and
 *  `scale` (resolved), asks its launch function for the grid (or its
 *  refusal) and enqueues kernel `symbol` on `stream` (argus_hip_attention_launch.h). */
typedef argus_status (*argus_hip_prefill_launcher)(const argus_attention_prefill_args *args, float scale,
                                                   const char *symbol, void *stream);

/** One varlen prefill kernel of the code object: an attention_prefill_cdna.argus
 *  instance for one catalog attention configuration. */
typedef struct {
  int32_t f16;                 /**< 1: f16 q, k, v and o; 0: bf16 */
  int32_t group;               /**< query heads per KV head */
  int32_t head_dim, v_head_dim;
  const char *symbol;          /**< its name in the code object */
  argus_hip_prefill_launcher launch;
} argus_hip_prefill_kernel;

extern const argus_hip_prefill_kernel argus_hip_prefill_kernels[];
extern const int32_t argus_hip_prefill_kernel_count;

/** Fills a generated decode kernel's parameters from `args` (validated) and
 *  `scale` (resolved), asks its launch function for the grid (or its
 *  refusal) and enqueues kernel `symbol` on `stream` (argus_hip_attention_launch.h). */
typedef argus_status (*argus_hip_decode_launcher)(const argus_attention_decode_args *args, float scale,
                                                  const char *symbol, void *stream);

/** One paged decode kernel of the code object: an attention_decode_cdna.argus
 *  instance for one catalog attention configuration. */
typedef struct {
  int32_t f16;                 /**< 1: f16 q, caches and o; 0: bf16 */
  int32_t group;               /**< query heads per KV head */
  int32_t head_dim, v_head_dim;
  int32_t page_size;
  const char *symbol;          /**< its name in the code object */
  argus_hip_decode_launcher launch;
} argus_hip_decode_kernel;

extern const argus_hip_decode_kernel argus_hip_decode_kernels[];
extern const int32_t argus_hip_decode_kernel_count;

/** Fills a generated MoE kernel's parameters from the pipeline's argument
 *  `pipeline` (an argus::gpu::MoeParams, gpu/argus_gpu_moe_params.h), asks
 *  its launch function for the grid and enqueues kernel `symbol` on
 *  `stream` (argus_hip_moe_launch.h). */
typedef argus_status (*argus_hip_moe_launcher)(const void *pipeline, const char *symbol, void *stream);

/** One generated MoE kernel of the code object: an instance of
 *  templates/moe/moe_route.argus, moe_align_offsets.argus,
 *  moe_align_rows.argus, moe_align_choice_row.argus, moe_gather.argus,
 *  moe_gate_up_cdna.argus, moe_down_cdna.argus or moe_combine.argus. */
typedef struct {
  const char *symbol;
  argus_hip_moe_launcher launch;
} argus_hip_moe_kernel;

/** In pipeline order: route, align_offsets, align_rows, align_choice_row, gather, gate_up, down, combine. */
extern const argus_hip_moe_kernel argus_hip_moe_kernels[8];

/** The code object (an AMDGPU ELF for argus_hip_arch), embedded by argus-gen. */
extern const unsigned char argus_hip_code_object[];
extern const uint64_t argus_hip_code_object_size;
extern const char argus_hip_arch[]; /**< "gfx942" or "gfx90a" */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ARGUS_HIP_REGISTRY_H */
