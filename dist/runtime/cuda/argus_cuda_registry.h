/*===- argus_cuda_registry.h - the tables a cuda-sm90a library links against -===*
 *
 * The counterpart of argus_registry.h for the CUDA target: argus-gen emits one
 * .cu file that DEFINES these objects (and argus_generated_version and
 * argus_generated_manifest of argus_registry.h); the runtime only reads them.
 *
 * GEMM dispatch (argus_cuda_gemm.cu): the Hopper kernels take bf16 A, B and
 * C that TMA can address.
 *   1. the group whose (n, k) equals the call's, bucketed on m with
 *      argus_bucket_index (argus_bucketing.h), as on the CPU;
 *   2. else, unless ARGUS_STRICT=1, the generic path: the configuration
 *      argus::sm90::chooseGemmConfig picks for (m, n, k);
 *   3. else ARGUS_ERROR_UNSUPPORTED.
 * f16 calls and operands TMA cannot address take a generated kernel
 * (argus_cuda_generated_gemms) unless ARGUS_STRICT=1.
 * A launcher enqueues its kernel on `stream` (a cudaStream_t), never
 * synchronises, and returns the cudaError_t of the launch as an int.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CUDA_REGISTRY_H
#define ARGUS_CUDA_REGISTRY_H

#include <stdint.h>

#include "argus_kernels.h"
#include "argus_registry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*argus_cuda_gemm_launcher)(const argus_gemm_args *args, void *stream);

/** The kernels of one catalog GEMM (static n and k), one per m bucket. */
typedef struct {
  int64_t n, k;
  int32_t bucket_count;
  const int64_t *bucket_bounds;              /**< ascending m upper bounds */
  const argus_cuda_gemm_launcher *launchers; /**< one per bucket */
  const char *const *names;                  /**< what argus_gemm_kernel_name reports */
} argus_cuda_gemm_group;

extern const argus_cuda_gemm_group argus_cuda_gemm_groups[];
extern const int32_t argus_cuda_gemm_group_count;

/** A generated GEMM kernel (gemm_tn_cdna.argus on warps, argus_cuda_generated_gemm.h):
 *  what the Hopper kernels cannot take runs on these. */
typedef struct {
  int32_t bm, bn;     /**< its tile of C */
  int32_t f16;        /**< 1: f16 operands and C; 0: bf16 */
  const char *symbol; /**< what argus_gemm_kernel_name reports */
  argus_cuda_gemm_launcher launch;
} argus_cuda_generated_gemm;

extern const argus_cuda_generated_gemm argus_cuda_generated_gemms[];
extern const int32_t argus_cuda_generated_gemm_count;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ARGUS_CUDA_REGISTRY_H */
