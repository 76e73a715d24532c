// Host side of the Hopper GEMM: TMA tensor maps for the operands and the cluster launch.
// Compiled by nvcc together with argus_sm90_gemm.cuh.
#pragma once

#include "argus_sm90_gemm.cuh"
#include "argus_sm90_gemm_rows.cuh"
#include "argus_sm90_tensor_map.h"

#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>

namespace argus::sm90 {

struct GemmArgs {
  int m, n, k;
  const __nv_bfloat16 *a;  // m x k, row-major, leading dimension lda
  int64_t lda;
  const __nv_bfloat16 *b;  // n x k, row-major (weights)
  int64_t ldb;
  GemmEpilogue epilogue;   // c, ldc, bias, alpha, beta (m and n are filled in by the launcher)
};

// TMA needs 16-byte aligned bases and row pitches; other operands go to a generic kernel.
inline bool tmaCompatible(const void *base, int64_t ld) {
  return reinterpret_cast<uintptr_t>(base) % 16 == 0 && (ld * 2) % 16 == 0;
}

template <typename TC> bool tmaCompatibleOutput(const void *base, int64_t ld) {
  return reinterpret_cast<uintptr_t>(base) % 16 == 0 && (ld * int64_t(sizeof(TC))) % 16 == 0;
}

inline cudaError_t encodeOperandMap(CUtensorMap *map, const void *base, int64_t rows, int64_t cols, int64_t ld,
                                    int boxRows) {
  return encodeTileMap(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, rows, cols, ld, boxRows);
}

template <typename TC> constexpr CUtensorMapDataType tensorMapType() {
  return sizeof(TC) == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}

// Tensor maps for both operands, or the reason there are none.
template <int BM, int BN> cudaError_t encodeOperandMaps(const GemmArgs &args, CUtensorMap *mapA, CUtensorMap *mapB) {
  if (args.m < 1 || args.n < 1 || args.k < 1)
    return cudaErrorInvalidValue;
  if (!tmaCompatible(args.a, args.lda) || !tmaCompatible(args.b, args.ldb))
    return cudaErrorInvalidValue;
  if (cudaError_t e = encodeOperandMap(mapA, args.a, args.m, args.k, args.lda, BM); e != cudaSuccess)
    return e;
  return encodeOperandMap(mapB, args.b, args.n, args.k, args.ldb, BN);
}

template <typename Kernel> cudaError_t allowSharedMemory(Kernel kernel, size_t bytes) {
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
}

inline int multiprocessorCount() {
  int device = 0, count = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return 0;
  return count;
}

// Large M: one CTA per SM (or per tile, if fewer), each walking tiles until C is done.
template <int BM, int BN, int Stages, typename TC>
cudaError_t launchGemmPersistent(const GemmArgs &args, cudaStream_t stream) {
  using Layout = GemmSharedLayout<BM, BN, Stages, (BM / 64) * 64 * BN * int(sizeof(TC))>;
  CUtensorMap mapA, mapB;
  if (cudaError_t e = encodeOperandMaps<BM, BN>(args, &mapA, &mapB); e != cudaSuccess)
    return e;
  // The TMA store writes plain results; C read back for beta goes through element stores.
  CUtensorMap mapC = {};
  const GemmEpilogue &e = args.epilogue;
  constexpr bool kWholeBoxes = BN % (128 / sizeof(TC)) == 0;  // the store moves 128-byte-wide boxes
  const bool storeByTma = kWholeBoxes && e.beta == 0.0f && tmaCompatibleOutput<TC>(e.c, e.ldc) &&
                          encodeTileMap(&mapC, tensorMapType<TC>(), sizeof(TC), e.c, args.m, args.n, e.ldc, 64) ==
                              cudaSuccess;
  auto kernel = gemmTnPersistent<BM, BN, Stages, TC, false>;
  static const cudaError_t attributeStatus = allowSharedMemory(kernel, Layout::kBytes);
  if (attributeStatus != cudaSuccess)
    return attributeStatus;
  if constexpr (kWholeBoxes) {
    static const cudaError_t tmaStoreAttributeStatus =
        allowSharedMemory(gemmTnPersistent<BM, BN, Stages, TC, true>, Layout::kBytes);
    if (tmaStoreAttributeStatus != cudaSuccess)
      return tmaStoreAttributeStatus;
    if (storeByTma)
      kernel = gemmTnPersistent<BM, BN, Stages, TC, true>;
  }
  static const int multiprocessors = multiprocessorCount();
  if (multiprocessors < 1)
    return cudaErrorNoDevice;
  GemmEpilogue epilogue = args.epilogue;
  epilogue.m = args.m;
  epilogue.n = args.n;
  const int64_t tiles = int64_t((args.m + BM - 1) / BM) * ((args.n + BN - 1) / BN);
  const int grid = int(std::min<int64_t>(tiles, multiprocessors));
  kernel<<<grid, Layout::kThreads, Layout::kBytes, stream>>>(mapA, mapB, mapC, epilogue, args.k);
  return cudaGetLastError();
}

// Launches `kernel` on `grid`, whose z CTAs form one cluster: the split of K they share.
template <typename... Params, typename... Args>
cudaError_t launchSplitAlongZ(void (*kernel)(Params...), dim3 grid, int threads, int sharedBytes, cudaStream_t stream,
                              Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = sharedBytes;
  config.stream = stream;
  cudaLaunchAttribute cluster[1];
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = 1;
  cluster[0].val.clusterDim.y = 1;
  cluster[0].val.clusterDim.z = grid.z;
  config.attrs = cluster;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, args...);
}

// Small M: one tile per CTA; `split` CTAs (1..8) form a cluster sharing a tile's K range.
template <int BM, int BN, int Stages, typename TC>
cudaError_t launchGemmSplitK(const GemmArgs &args, int split, cudaStream_t stream) {
  using Layout = GemmSharedLayout<BM, BN, Stages>;
  if (split < 1 || split > 8)
    return cudaErrorInvalidValue;
  CUtensorMap mapA, mapB;
  if (cudaError_t e = encodeOperandMaps<BM, BN>(args, &mapA, &mapB); e != cudaSuccess)
    return e;
  auto kernel = gemmTnSplitK<BM, BN, Stages, TC>;
  static const cudaError_t attributeStatus = allowSharedMemory(kernel, Layout::kBytes);
  if (attributeStatus != cudaSuccess)
    return attributeStatus;

  GemmEpilogue epilogue = args.epilogue;
  epilogue.m = args.m;
  epilogue.n = args.n;
  const dim3 grid((args.m + BM - 1) / BM, (args.n + BN - 1) / BN, split);
  return launchSplitAlongZ(kernel, grid, Layout::kThreads, Layout::kBytes, stream, mapA, mapB, epilogue, args.k);
}

// At most 8 * TokenBlocks rows of A: 16 weight rows per CTA streamed into mma.sync fragments;
// `split` CTAs (1..8) form a cluster sharing those rows' K range. Operands as TMA would need them
// (16-byte aligned, pitches a multiple of 8), since each lane reads 16-byte pieces.
template <int TokenBlocks, int Warps, int Unroll, typename TC>
cudaError_t launchGemmRows(const GemmArgs &args, int split, cudaStream_t stream) {
  using Shape = RowsGemmShape<TokenBlocks, Warps, Unroll>;
  if (split < 1 || split > 8 || args.m < 1 || args.m > Shape::kTokens || args.n < 1 || args.k < 1)
    return cudaErrorInvalidValue;
  if (!tmaCompatible(args.a, args.lda) || !tmaCompatible(args.b, args.ldb))
    return cudaErrorInvalidValue;
  GemmEpilogue epilogue = args.epilogue;
  epilogue.m = args.m;
  epilogue.n = args.n;
  const dim3 grid((args.n + Shape::kRows - 1) / Shape::kRows, 1, split);
  return launchSplitAlongZ(gemmRows<TokenBlocks, Warps, Unroll, TC>, grid, Shape::kThreads, Shape::kSharedBytes, stream,
                           args.a, args.lda, args.b, args.ldb, epilogue, args.k);
}

}  // namespace argus::sm90
