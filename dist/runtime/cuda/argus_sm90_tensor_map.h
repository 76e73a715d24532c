// TMA tensor maps on the host, for the Hopper kernels: encoded through the CUDA runtime's driver
// entry point, so that a library links no libcuda and still loads on a machine without the driver.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstdint>

namespace argus::sm90 {

// cuTensorMapEncodeTiled through the runtime's driver entry point, so that the library links no
// libcuda and still loads on a machine without the driver.
inline PFN_cuTensorMapEncodeTiled_v12000 tensorMapEncoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 encoder = [] {
    void *function = nullptr;
    cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      return PFN_cuTensorMapEncodeTiled_v12000(nullptr);
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  return encoder;
}

// A rows x cols matrix moved in boxRows x (128 bytes) tiles with 128-byte swizzle; reads outside the
// matrix return zeros (how ragged M, N and K tails contribute nothing) and stores outside it are
// dropped.
inline cudaError_t encodeTileMap(CUtensorMap *map, CUtensorMapDataType type, int elementBytes, const void *base,
                                 int64_t rows, int64_t cols, int64_t ld, int boxRows) {
  auto encode = tensorMapEncoder();
  if (!encode)
    return cudaErrorNotSupported;
  cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  cuuint64_t pitches[1] = {cuuint64_t(ld * elementBytes)};
  cuuint32_t box[2] = {cuuint32_t(128 / elementBytes), cuuint32_t(boxRows)};
  cuuint32_t elementStrides[2] = {1, 1};
  CUresult result = encode(map, type, 2, const_cast<void *>(base), dims, pitches, box, elementStrides,
                           CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                           CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return result == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

}  // namespace argus::sm90
