/*===- argus_bucketing.h - THE bucketing function, header-only ------------===*
 *
 * A catalog GEMM has static sizes (n, k) and one dynamic size, the token
 * count m. The sweep tunes one kernel per token bucket; at run time the
 * dispatcher must map m to the SAME bucket the tuner used, or it runs a
 * kernel tuned (and verified) for another shape range. Peers that kept two
 * copies of this function shipped NaNs and crashes, so there is exactly one:
 * this file, included by the generator (tuning and emit) and by the runtime.
 * It is C99 and C++ compatible and has no dependencies.
 *
 * A bucket table is an ascending array of m upper bounds, e.g. the decode
 * batches and prefill token counts of a serving profile:
 *
 *     bounds = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048}
 *
 * and bucket i serves bounds[i-1] < m <= bounds[i]; the last bucket also
 * serves every m above the last bound (its kernel is generic in m):
 *
 *     argus_bucket_index(bounds, 12, 1)    == 0
 *     argus_bucket_index(bounds, 12, 3)    == 2     (3 <= 4)
 *     argus_bucket_index(bounds, 12, 2048) == 11
 *     argus_bucket_index(bounds, 12, 9000) == 11    (clamped)
 *     argus_bucket_index(bounds, 12, 0)    == 0     (m <= every bound)
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_BUCKETING_H
#define ARGUS_BUCKETING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Index of the first bound >= m, clamped to count - 1 when m exceeds the
 *  last bound; -1 when count <= 0 or bounds is NULL (no bucket at all).
 *  @pre bounds[0 .. count-1] is ascending (argus_bucket_bounds_valid).
 *  Binary search: O(log count), no branches on the data beyond that. */
static inline int32_t argus_bucket_index(const int64_t *bounds, int32_t count, int64_t m) {
  if (bounds == 0 || count <= 0) return -1;
  int32_t lo = 0, hi = count - 1; /* answer in [lo, hi]; hi is the clamp */
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (bounds[mid] >= m)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/** 1 when bounds is a usable bucket table: count >= 1, every bound >= 1 and
 *  strictly ascending; 0 otherwise. The emitter checks its tables with it and
 *  the runtime re-checks the tables it was linked with. */
static inline int argus_bucket_bounds_valid(const int64_t *bounds, int32_t count) {
  if (bounds == 0 || count <= 0) return 0;
  if (bounds[0] < 1) return 0;
  for (int32_t i = 1; i < count; ++i)
    if (bounds[i] <= bounds[i - 1]) return 0;
  return 1;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ARGUS_BUCKETING_H */
