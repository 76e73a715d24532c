/*===- argus_cpu_abi.h - how the runtime calls a generated CPU kernel -----===*
 *
 * Every CPU kernel emitted by argus-gen has the signature `argus_cpu_kernel_fn`:
 * one argus_cpu_arg per DSL parameter that is not a compile-time constant, in
 * the order of the DSL signature. Tensors carry their run-time shape and
 * element strides (row-major with a leading dimension: stride = {ld, 1}).
 * `num_threads` bounds the OpenMP threads used over program instances
 * (0 = the OpenMP default).
 *
 * A kernel reads only what its parameter needs: a tensor's data, layout and
 * first `rank` sizes and strides, a scalar's f (floats) or i (integers).
 * The other fields are unspecified: the dispatchers leave them unwritten,
 * since the stores of a full argument block are much of a dispatch.
 *
 * Layouts. STRIDED: element (i0, ..., i{r-1}) lies at sum(i_d * stride[d]).
 * PANELS (weights pre-packed by argus_pack_weights, rank >= 2): the last two
 * dimensions, an N x K matrix, lie in panels of 32 rows of N stored k-major,
 * the layout the mma micro-kernels compute from, so that they need not pack
 * the weights at every k step:
 *
 *   panel p = n / 32 holds rows 32p .. 32p+31, `stride[rank-2]` elements
 *   apart; in it, group g = k / G of the G consecutive k (G = 4 / element
 *   bytes: f32 1, bf16 pairs 2) is 32 * G elements, row n % 32's G values
 *   side by side: the VNNI order of vdpbf16ps and AMX tiles for bf16.
 *
 * Rows past N and k past K (to the end of their panel or group) hold zeros.
 * Outer dimensions are strided (stride[d], elements); stride[rank-1] is 1.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_CPU_ABI_H
#define ARGUS_CPU_ABI_H

#include <stdint.h>

#define ARGUS_CPU_MAX_RANK 4

typedef enum { ARGUS_CPU_STRIDED = 0, ARGUS_CPU_PANELS = 1 } argus_cpu_layout;

#define ARGUS_CPU_PANEL_ROWS 32 /* rows of N per panel */

typedef struct {
  void *data;                        /* first element; may be NULL for an unused tensor */
  int64_t shape[ARGUS_CPU_MAX_RANK];  /* logical sizes, outermost first */
  int64_t stride[ARGUS_CPU_MAX_RANK]; /* in elements */
  int64_t layout;                    /* argus_cpu_layout */
} argus_cpu_tensor;

/* Elements of one panel of an N x K matrix of `element_bytes` elements. */
static inline int64_t argus_cpu_panel_elements(int64_t k, int64_t element_bytes) {
  const int64_t g = element_bytes >= 4 ? 1 : 4 / element_bytes;
  return (k + g - 1) / g * g * ARGUS_CPU_PANEL_ROWS;
}

/* Where element (n, k) of a PANELS matrix lies, in elements from its start. */
static inline int64_t argus_cpu_panel_offset(int64_t n, int64_t k, int64_t panel_stride, int64_t element_bytes) {
  const int64_t g = element_bytes >= 4 ? 1 : 4 / element_bytes;
  return n / ARGUS_CPU_PANEL_ROWS * panel_stride + ((k / g) * ARGUS_CPU_PANEL_ROWS + n % ARGUS_CPU_PANEL_ROWS) * g +
         k % g;
}

typedef struct {
  argus_cpu_tensor tensor; /* for Tensor[...] parameters */
  double f;                /* for f32 / f64 scalar parameters */
  int64_t i;               /* for i32 / i64 / index scalar parameters */
} argus_cpu_arg;

typedef void (*argus_cpu_kernel_fn)(const argus_cpu_arg *args, int num_threads);

#endif /* ARGUS_CPU_ABI_H */
