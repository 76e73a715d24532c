//===- argus_gpu_gemm.h - what every GPU argus_gemm does before its kernels -===//
//
// The cuda-sm90a and hip libraries take the same path up to the kernel
// choice: environment -> arguments valid -> the target's dtypes -> empty output (no
// work) -> elements 2-byte aligned -> k == 0 (C = beta·C + bias) -> sizes below 2^31 -> the catalog
// group of (n, k), bucketed on m -> else, unless ARGUS_STRICT=1, the
// target's generic kernel. Planning needs no GPU, so argus_gemm_kernel_name
// answers on any machine.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_GEMM_H
#define ARGUS_GPU_GEMM_H

#include "argus_bucketing.h"
#include "argus_kernels.h"

#include <stdint.h>

namespace argus_rt {

enum class GpuGemmStep { Noop, BetaScale, Kernel };

/// The steps above up to the catalog lookup, for `target` ("cuda-sm90a"),
/// which computes bf16 x bf16 -> bf16 and, with `f16Too`, f16 x f16 -> f16.
/// On ARGUS_OK, *step says what runs and *strict holds ARGUS_STRICT.
argus_status prepareGpuGemm(const argus_gemm_args *args, const char *target, bool f16Too, const char *function,
                            GpuGemmStep *step, bool *strict);

/// ARGUS_ERROR_UNSUPPORTED for a shape outside the catalog under ARGUS_STRICT=1.
argus_status strictGemmRefusal(const argus_gemm_args &args, const char *function);

/// The catalog group (a registry struct with n, k, bucket_count and
/// bucket_bounds) of the call's (n, k), and its m bucket; false when none.
template <typename Group>
bool findGemmBucket(const Group *groups, int32_t count, const argus_gemm_args &g, const Group **group,
                    int32_t *bucket) {
  for (int32_t i = 0; i < count; ++i)
    if (groups[i].n == g.n && groups[i].k == g.k) {
      *group = &groups[i];
      *bucket = argus_bucket_index(groups[i].bucket_bounds, groups[i].bucket_count, g.m);
      return true;
    }
  return false;
}

} // namespace argus_rt

#endif // ARGUS_GPU_GEMM_H
