//===- argus_tensor_view.h - argus_cpu_tensor views of caller memory ------===//
//
// Kernels see every tensor as data + shape + strides (argus_cpu_abi.h); the
// dispatchers build those views over the caller's buffers without copying.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_TENSOR_VIEW_H
#define ARGUS_RUNTIME_TENSOR_VIEW_H

#include "argus_kernels.h"
#include "argus_numerics.h"
#include "cpu/argus_cpu_abi.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace argus_rt {

/// A view of `data` with the given sizes and element strides (outermost first).
inline argus_cpu_tensor tensorView(const void *data, std::initializer_list<int64_t> shape,
                                   std::initializer_list<int64_t> stride) {
  argus_cpu_tensor t{}; /* (not memset: a `rep stos` per view costs more than the dispatch around it) */
  t.data = const_cast<void *>(data);
  int i = 0;
  for (int64_t s : shape) t.shape[i++] = s;
  i = 0;
  for (int64_t s : stride) t.stride[i++] = s;
  return t;
}

/// Sets kernel argument `a` (argus_cpu_abi.h) to a row-major rows x cols
/// matrix (a vector when cols is 0), or to the scalar f / i, writing in
/// place only the fields a kernel reads (the ABI leaves the rest
/// unspecified): building a view and copying it in costs a store-forwarding
/// stall per field, and zeroing unread fields half the stores of a GEMM
/// dispatch.
inline void setMatrixArg(argus_cpu_arg &a, const void *data, int64_t rows, int64_t cols, int64_t ld) {
  a.tensor.data = const_cast<void *>(data);
  a.tensor.shape[0] = rows;
  a.tensor.shape[1] = cols;
  a.tensor.stride[0] = cols ? ld : 1;
  a.tensor.stride[1] = cols ? 1 : 0;
  a.tensor.layout = ARGUS_CPU_STRIDED;
}
inline void setScalarArg(argus_cpu_arg &a, double f, int64_t i) {
  a.f = f;
  a.i = i;
}

/// A row-major matrix with leading dimension `ld`.
inline argus_cpu_tensor matrixView(const void *data, int64_t rows, int64_t cols, int64_t ld) {
  return tensorView(data, {rows, cols}, {ld, 1});
}

/// Bytes of one element (the kernels' storage types).
inline int64_t elementBytes(argus_dtype t) {
  return t == ARGUS_DTYPE_F32 ? 4 : t == ARGUS_DTYPE_FP8_E4M3 ? 1 : 2;
}

/// `base` advanced by `elements` elements of type `t`.
inline const void *offsetBy(const void *base, int64_t elements, argus_dtype t) {
  return static_cast<const char *>(base) + elements * elementBytes(t);
}

/// Element `i` of a tensor of dtype `t` (f32, bf16 or f16) set to `v`, rounded once.
inline void storeRounded(void *base, int64_t i, float v, argus_dtype t) {
  if (t == ARGUS_DTYPE_F32) static_cast<float *>(base)[i] = v;
  else if (t == ARGUS_DTYPE_BF16) static_cast<uint16_t *>(base)[i] = argus_num::f32_to_bf16(v);
  else static_cast<uint16_t *>(base)[i] = argus_num::f32_to_f16(v);
}

} // namespace argus_rt

#endif // ARGUS_RUNTIME_TENSOR_VIEW_H
