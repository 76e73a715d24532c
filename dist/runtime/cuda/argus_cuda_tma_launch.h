//===- argus_cuda_tma_launch.h - tensor maps of generated TMA copies --------===//
//
// The host half of the CUDA backend's TMA copies (generator/lib/Backend/
// Lanes/TmaCopies.h): a generated unit whose copy_asyncs can be TMA copies
// carries one tensor map per (tensor, box) in its parameter struct, and its
// launch function encodes them here. Where TMA cannot address a tensor the
// launch says so (`tma_copies` = 0) and the kernel falls back to cp.async,
// which takes any pitch; so a call never fails for want of TMA.
//
// Under nvcc the map is the driver's CUtensorMap (encoded through the
// runtime's driver entry point: argus_sm90_tensor_map.h); on the host, with
// ARGUS_CUDA_EMULATE, the cluster emulator's.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_CUDA_TMA_LAUNCH_H
#define ARGUS_CUDA_TMA_LAUNCH_H

#include "argus_cuda_tile_launch.h"

#if defined(__CUDACC__)
#include "argus_sm90_tensor_map.h"
#elif defined(ARGUS_CUDA_EMULATE)
#include "argus_cuda_emulator.h"
#else
#error "argus_cuda_tma_launch.h: compile with nvcc, or define ARGUS_CUDA_EMULATE for the host"
#endif

namespace argus::cuda::tile {

#if defined(__CUDACC__)
using TmaMap = CUtensorMap;
#else
using TmaMap = argus::cuda::EmulatedTensorMap;
#endif

/// Whether TMA can move Rows x 64 boxes of the 16-bit matrix `t`: a start on
/// a 16-byte boundary, unit column stride, rows a multiple of 16 bytes apart,
/// no dimension empty (a map has none) or past what a 32-bit coordinate reaches.
inline bool tmaAddressable(const Tensor &t) {
  constexpr int64_t kMaxCoordinate = int64_t(1) << 30; // a tile's origin plus its box stays an int32
  const int64_t rows = t.shape[0], cols = t.shape[1];
  if (rows < 1 || cols < 1 || rows > kMaxCoordinate || cols > kMaxCoordinate)
    return false;
  if (reinterpret_cast<uintptr_t>(t.data) % 16 != 0 || (cols > 1 && t.stride[1] != 1))
    return false;
  return rows == 1 || (t.stride[0] >= cols && t.stride[0] * 2 % 16 == 0 && t.stride[0] * 2 < (int64_t(1) << 40));
}

/// Encodes `map` for TMA copies of Rows x 64 boxes (128-byte rows) of the
/// 16-bit matrix `t` in the 128-byte swizzle wgmma reads: elements outside
/// `t` read as zeros. False, and `map` unused, where TMA cannot address `t`.
template <int Rows>
inline bool encodeSwizzledRows(TmaMap &map, const Tensor &t) {
  static_assert(Rows >= 1 && Rows <= 256, "a TMA box has at most 256 rows");
  if (!tmaAddressable(t))
    return false;
  // A single row's pitch is never used; TMA still wants a multiple of 16 bytes.
  const int64_t pitch = t.shape[0] == 1 ? (t.shape[1] + 7) / 8 * 8 : t.stride[0];
#if defined(__CUDACC__)
  return argus::sm90::encodeTileMap(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, t.data, t.shape[0], t.shape[1], pitch,
                                    Rows) == cudaSuccess;
#else
  argus::cuda::emu::encodeTensorMap2d(&map, t.data, 2, uint64_t(t.shape[1]), uint64_t(t.shape[0]),
                                      uint64_t(pitch) * 2, 64, Rows, /*swizzle128=*/true);
  return true;
#endif
}

} // namespace argus::cuda::tile

#endif // ARGUS_CUDA_TMA_LAUNCH_H
