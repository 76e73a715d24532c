//===- argus_sm90_moe_kernel.h - routed SwiGLU experts on mma.sync ---------===//
//
// The five kernels of argus_moe on Hopper (the pipeline and its workspace are
// gpu/argus_gpu_moe_params.h). Route, align and combine are the GPU ones
// (gpu/argus_gpu_moe_routing.h) on a CUDA warp. The two expert GEMMs share
// one main loop, moeTile: a CTA of 4 warps computes a 32-row block of one
// expert (rows gathered through the routing) against 128 weight rows, the
// K dimension staged 64 at a time in padded shared memory (conflict-free
// fragment reads) and multiplied on mma.sync m16n8k16 (bf16 -> f32); warp w
// owns weight rows 32w .. 32w + 31. gate_up lays those 32 rows out as 16
// gate rows then the 16 up rows of the same columns, so every lane holds
// gate and up of the same element for the SwiGLU epilogue.
//
// Like the prefill kernel, this is the portable mma.sync baseline, written
// against argus_cuda_kernel_device.h so the cluster emulator runs its source.
// templates/moe/moe_gate_up_sm90_mma.argus is gate_up's schedule in the DSL
// (proved: gate/up pairing per warp, both barriers); the wgmma/TMA grouped
// GEMM (templates/moe/moe_gate_up_sm90.argus) needs a GPU to write and tune.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_SM90_MOE_KERNEL_H
#define ARGUS_SM90_MOE_KERNEL_H

#include "argus_cuda_kernel_device.h"
#include "gpu/argus_gpu_moe_routing.h"

namespace argus::cuda {

using argus::gpu::kMoeAlignSharedBytes;
using argus::gpu::kMoeAlignThreads;
using argus::gpu::kMoeBlockRows;
using argus::gpu::MoeParams;

inline constexpr int kMoeWarps = 4;
inline constexpr int kMoeThreads = kMoeWarps * kWarpSize;
inline constexpr int kMoeTileRows = 128;          // weight rows of a tile, 32 per warp
inline constexpr int kMoeGateUpColumns = 64;      // intermediate columns of a gate_up tile (gate and up rows)
inline constexpr int kMoeDownColumns = 128;       // hidden columns of a down tile
inline constexpr int kMoeChunk = 64;              // K staged per step
inline constexpr int kMoeStride = kMoeChunk + 8;  // padded shared row, in bf16
inline constexpr int kMoeCombineThreads = 256;
inline constexpr int kMoeTileSharedBytes = (kMoeBlockRows + kMoeTileRows) * kMoeStride * 2;

/// What the shared route, align and combine kernels take of a CUDA warp.
struct CudaThreads {
  static constexpr int kLanes = kWarpSize;
  static ARGUS_CUDA_FN int lane() { return threadIndex() % kWarpSize; }
  static ARGUS_CUDA_FN int item() { return threadIndex(); }
  static ARGUS_CUDA_FN int group(int d) { return blockIndex(d); }
  static ARGUS_CUDA_FN void barrier() { syncThreads(); }
  static ARGUS_CUDA_FN float laneXor(float v, int mask) { return warpXor(v, mask); }
  static ARGUS_CUDA_FN int atomicAdd(int *p, int v) { return sharedAtomicAdd(p, v); }
  static ARGUS_CUDA_FN float exp2(float x) { return exp2Fast(x); }
  static ARGUS_CUDA_FN uint16_t floatToBf16(float f) { return cuda::floatToBf16(f); }
};

ARGUS_CUDA_FN void moeRoute(const MoeParams &p) { gpu::moeRoute<CudaThreads>(p); }
ARGUS_CUDA_FN void moeAlign(const MoeParams &p) { gpu::moeAlign<CudaThreads>(p, dynamicShared()); }
ARGUS_CUDA_FN void moeCombine(const MoeParams &p) { gpu::moeCombine<CudaThreads, kMoeCombineThreads>(p); }

/// The accumulators of moeTile, per lane: acc[m][j] is the 16 x 8 mma tile of
/// block rows 16m .. 16m + 15 and weight rows 32 warp + 8j .. + 7, so acc[m][j][e]
/// is block row 16m + g + 8 (e / 2), weight row 32 warp + 8j + 2t + e % 2.
using MoeAccumulators = float[2][4][4];

/// acc = A · Bᵀ over k: A's 32 rows and B's 128 rows, 16 bytes (8 bf16) at a
/// time, from fetchA(row, first) / fetchB(row, first); k a multiple of 8.
template <class FetchA, class FetchB>
ARGUS_CUDA_FN void moeTile(const FetchA &fetchA, const FetchB &fetchB, int k, MoeAccumulators &acc) {
  uint16_t *const sharedA = reinterpret_cast<uint16_t *>(dynamicShared());
  uint16_t *const sharedB = sharedA + kMoeBlockRows * kMoeStride;
  const int tid = threadIndex(), lane = tid % kWarpSize, warp = tid / kWarpSize, g = lane / 4, t = lane % 4;
  auto word = [](const uint16_t *pair) { return *reinterpret_cast<const uint32_t *>(pair); };
  ARGUS_CUDA_UNROLL
  for (int m = 0; m < 2; ++m)
    ARGUS_CUDA_UNROLL
    for (int j = 0; j < 4; ++j)
      ARGUS_CUDA_UNROLL
      for (int e = 0; e < 4; ++e)
        acc[m][j][e] = 0.0f;
  constexpr int kPieces = kMoeChunk / 8;  // 16-byte pieces of a staged row
  for (int k0 = 0; k0 < k; k0 += kMoeChunk) {
    for (int c = tid; c < kMoeBlockRows * kPieces; c += kMoeThreads) {
      const int row = c / kPieces, first = k0 + (c % kPieces) * 8;
      *reinterpret_cast<Bytes16 *>(sharedA + row * kMoeStride + first - k0) =
          first < k ? fetchA(row, first) : Bytes16{{0, 0, 0, 0}};
    }
    for (int c = tid; c < kMoeTileRows * kPieces; c += kMoeThreads) {
      const int row = c / kPieces, first = k0 + (c % kPieces) * 8;
      *reinterpret_cast<Bytes16 *>(sharedB + row * kMoeStride + first - k0) =
          first < k ? fetchB(row, first) : Bytes16{{0, 0, 0, 0}};
    }
    syncThreads();
    ARGUS_CUDA_UNROLL
    for (int s = 0; s < kMoeChunk / 16; ++s) {
      uint32_t a[2][4];
      ARGUS_CUDA_UNROLL
      for (int m = 0; m < 2; ++m) {
        const uint16_t *row = sharedA + (16 * m + g) * kMoeStride + 16 * s + 2 * t;
        a[m][0] = word(row);
        a[m][1] = word(row + 8 * kMoeStride);
        a[m][2] = word(row + 8);
        a[m][3] = word(row + 8 * kMoeStride + 8);
      }
      ARGUS_CUDA_UNROLL
      for (int j = 0; j < 4; ++j) {
        const uint16_t *row = sharedB + (32 * warp + 8 * j + g) * kMoeStride + 16 * s + 2 * t;
        const uint32_t b[2] = {word(row), word(row + 8)};
        mmaBf16(a[0], b, acc[0][j]);
        mmaBf16(a[1], b, acc[1][j]);
      }
    }
    syncThreads();  // every warp has read the chunk before the next one overwrites it
  }
}

ARGUS_CUDA_FN Bytes16 load16(const uint16_t *p) { return *reinterpret_cast<const Bytes16 *>(p); }

/// gate_up, CTA (block, c): H[rows of block] = SiLU(x_t · gate_eᵀ) · (x_t · up_eᵀ)
/// for intermediate columns 64c .. 64c + 63.
ARGUS_CUDA_FN void moeGateUp(const MoeParams &p) {
  const int n0 = blockIndex(1) * kMoeGateUpColumns;
  gpu::MoeBlock b;
  if (!gpu::moeBlock(p, blockIndex(0), &b))
    return;
  auto fetchTokens = [&](int row, int first) {
    const uint16_t *x = b.token(p, row);
    return x ? load16(x + first) : Bytes16{{0, 0, 0, 0}};
  };
  // Tile row r: warp r / 32, then 16 gate rows and the 16 up rows of the same columns.
  auto fetchGateUp = [&](int row, int first) {
    const int column = n0 + 16 * (row / 32) + row % 16;
    if (column >= p.intermediate)
      return Bytes16{{0, 0, 0, 0}};
    const int weightRow = row % 32 < 16 ? column : p.intermediate + column;
    return load16(b.gateUp + int64_t(weightRow) * p.hidden + first);
  };
  MoeAccumulators acc;
  moeTile(fetchTokens, fetchGateUp, p.hidden, acc);
  const int lane = threadIndex() % kWarpSize, g = lane / 4, t = lane % 4;
  ARGUS_CUDA_UNROLL
  for (int j = 0; j < 2; ++j) {  // gate n-tile j, up n-tile j + 2
    const int column = n0 + 16 * (threadIndex() / kWarpSize) + 8 * j + 2 * t;
    if (column >= p.intermediate)  // intermediate is even: column + 1 is in too
      continue;
    ARGUS_CUDA_UNROLL
    for (int m = 0; m < 2; ++m)
      ARGUS_CUDA_UNROLL
      for (int half = 0; half < 2; ++half) {
        const float *gate = acc[m][j] + 2 * half, *up = acc[m][j + 2] + 2 * half;
        const int row = b.index * kMoeBlockRows + 16 * m + g + 8 * half;
        *reinterpret_cast<uint32_t *>(p.h + int64_t(row) * p.intermediate + column) =
            packBf16(gpu::swiglu<CudaThreads>(gate[0], up[0]), gpu::swiglu<CudaThreads>(gate[1], up[1]));
      }
  }
}

/// down, CTA (block, c): Y[block row] = H row · down_eᵀ for hidden
/// columns 128c .. 128c + 127.
ARGUS_CUDA_FN void moeDown(const MoeParams &p) {
  const int n0 = blockIndex(1) * kMoeDownColumns;
  gpu::MoeBlock b;
  if (!gpu::moeBlock(p, blockIndex(0), &b))
    return;
  auto fetchH = [&](int row, int first) { return load16(b.activations(p, row) + first); };
  auto fetchDown = [&](int row, int first) {
    return n0 + row < p.hidden ? load16(b.down + int64_t(n0 + row) * p.intermediate + first) : Bytes16{{0, 0, 0, 0}};
  };
  MoeAccumulators acc;
  moeTile(fetchH, fetchDown, p.intermediate, acc);
  const int lane = threadIndex() % kWarpSize, g = lane / 4, t = lane % 4;
  ARGUS_CUDA_UNROLL
  for (int j = 0; j < 4; ++j) {
    const int column = n0 + 32 * (threadIndex() / kWarpSize) + 8 * j + 2 * t;
    if (column >= p.hidden)  // hidden is even: column + 1 is in too
      continue;
    ARGUS_CUDA_UNROLL
    for (int m = 0; m < 2; ++m)
      ARGUS_CUDA_UNROLL
      for (int half = 0; half < 2; ++half) {
        const int row = 16 * m + g + 8 * half;
        if (b.rows[row] < 0)
          continue;
        float *y = p.y + (int64_t(b.index) * kMoeBlockRows + row) * p.hidden + column;
        y[0] = acc[m][j][2 * half];
        y[1] = acc[m][j][2 * half + 1];
      }
  }
}

/// The pipeline's stages, in launch order, and the shape of each launch.
enum class MoeStage { Route, Align, GateUp, Down, Combine };
inline constexpr int kMoeStages = 5;

struct MoeLaunch {
  MoeStage stage;
  unsigned gridX, gridY, threads, sharedBytes;
};

/// Blocks go on the grid's x dimension (2^31 - 1), column tiles on y (65535;
/// the front keeps hidden and intermediate below 2^21).
inline void moeLaunches(const MoeParams &p, MoeLaunch (&launches)[kMoeStages]) {
  const unsigned blocks = unsigned(p.maxBlocks), tokens = unsigned(p.tokens);
  launches[0] = {MoeStage::Route, tokens, 1, kWarpSize, 0};
  launches[1] = {MoeStage::Align, 1, 1, kMoeAlignThreads, kMoeAlignSharedBytes};
  launches[2] = {MoeStage::GateUp, blocks, unsigned((p.intermediate + kMoeGateUpColumns - 1) / kMoeGateUpColumns),
                 kMoeThreads, kMoeTileSharedBytes};
  launches[3] = {MoeStage::Down, blocks, unsigned((p.hidden + kMoeDownColumns - 1) / kMoeDownColumns), kMoeThreads,
                 kMoeTileSharedBytes};
  launches[4] = {MoeStage::Combine, tokens, unsigned((p.hidden + kMoeCombineThreads - 1) / kMoeCombineThreads),
                 kMoeCombineThreads, 0};
}

} // namespace argus::cuda

#endif // ARGUS_SM90_MOE_KERNEL_H
