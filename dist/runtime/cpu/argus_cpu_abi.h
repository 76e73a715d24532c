/*===- argus_cpu_abi.h - how the runtime calls a generated CPU kernel -----===*
 *
 * Every CPU kernel emitted by argus-gen has the signature `argus_cpu_kernel_fn`:
 * one argus_cpu_arg per DSL parameter that is not a compile-time constant, in
 * the order of the DSL signature. Tensors carry their run-time shape and
 * element strides (row-major with a leading dimension: stride = {ld, 1}).
 * `num_threads` bounds the OpenMP threads used over program instances
 * (0 = the OpenMP default).
 *
 * A kernel reads only what its parameter needs: a tensor's data and its
 * first `rank` sizes and strides, a scalar's f (floats) or i (integers).
 * The other fields are unspecified: the dispatchers leave them unwritten,
 * since the stores of a full argument block are much of a dispatch.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_ABI_H
#define ARGUS_CPU_ABI_H

#include <stdint.h>

#define ARGUS_CPU_MAX_RANK 4

typedef struct {
  void *data;                        /* first element; may be NULL for an unused tensor */
  int64_t shape[ARGUS_CPU_MAX_RANK];  /* logical sizes, outermost first */
  int64_t stride[ARGUS_CPU_MAX_RANK]; /* in elements */
} argus_cpu_tensor;

typedef struct {
  argus_cpu_tensor tensor; /* for Tensor[...] parameters */
  double f;                /* for f32 / f64 scalar parameters */
  int64_t i;               /* for i32 / i64 / index scalar parameters */
} argus_cpu_arg;

typedef void (*argus_cpu_kernel_fn)(const argus_cpu_arg *args, int num_threads);

#endif /* ARGUS_CPU_ABI_H */
