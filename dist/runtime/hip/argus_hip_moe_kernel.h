//===- argus_hip_moe_kernel.h - routed SwiGLU experts on CDNA --------------===//
//
// The five kernels of argus_moe (the pipeline and its workspace are described
// in gpu/argus_gpu_moe_params.h): route, align and combine are the GPU ones
// (gpu/argus_gpu_moe_routing.h) on a CDNA wave. The two expert GEMMs run the
// shared MFMA main loop (argus_hip_mfma_tile.h) on a 32 x 128 tile of two
// waves, with rows
// fetched through the routing: gate_up gathers its A rows (tokens) from x,
// and its B tile interleaves the expert's gate and up rows so that each
// wave holds a gate block and the matching up block, lane for lane, for the
// SwiGLU epilogue.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_MOE_KERNEL_H
#define ARGUS_HIP_MOE_KERNEL_H

#include "argus_hip_mfma_tile.h"
#include "argus_hip_moe_params.h"
#include "gpu/argus_gpu_moe_routing.h"

namespace argus::hip {

/// What the shared route, align and combine kernels (gpu/argus_gpu_moe_routing.h) take of a CDNA wave.
struct HipThreads {
  static constexpr int kLanes = kWaveSize;
  static ARGUS_HIP_FN int lane() { return hip::lane(); }
  static ARGUS_HIP_FN int item() { return workItem(); }
  static ARGUS_HIP_FN int group(int d) { return workGroup(d); }
  static ARGUS_HIP_FN void barrier() { hip::barrier(); }
  static ARGUS_HIP_FN float laneXor(float v, int mask) { return shuffle(v, hip::lane() ^ mask); }
  static ARGUS_HIP_FN int atomicAdd(int *p, int v) { return hip::atomicAdd(p, v); }
  static ARGUS_HIP_FN float exp2(float x) { return hip::exp2(x); }
  static ARGUS_HIP_FN uint16_t floatToBf16(float f) { return hip::floatToBf16(f); }
};

ARGUS_HIP_FN void moeRoute(const MoeParams &p) { gpu::moeRoute<HipThreads>(p); }

ARGUS_HIP_FN void moeAlign(const MoeParams &p) {
  ARGUS_LDS(shared, gpu::kMoeAlignSharedBytes);
  gpu::moeAlign<HipThreads>(p, shared);
}

ARGUS_HIP_FN void moeCombine(const MoeParams &p) { gpu::moeCombine<HipThreads, kMoeCombineThreads>(p); }

/// 16 bytes of a bf16 row from element `first`.
ARGUS_HIP_FN u32x4 load16(const uint16_t *row, int first) { return *reinterpret_cast<const u32x4 *>(row + first); }

/// gate_up: H[rows of block] = SiLU(x_t · gate_eᵀ) · (x_t · up_eᵀ) for 64 columns.
ARGUS_HIP_FN void moeGateUp(const MoeParams &p) {
  const int n0 = workGroup(0) * kMoeGateUpColumns;
  gpu::MoeBlock b;
  if (!gpu::moeBlock(p, workGroup(1), &b))
    return;
  auto fetchTokens = [&](int row, int first) {
    const uint16_t *x = b.token(p, row);
    return x ? load16(x, first) : u32x4{0, 0, 0, 0};
  };
  // B tile row r: wave r / 64, then 32 gate rows and the 32 up rows of the same columns.
  auto fetchGateUp = [&](int row, int first) {
    const int column = n0 + (row / 64) * 32 + row % 32;
    if (column >= p.intermediate)
      return u32x4{0, 0, 0, 0};
    const int weightRow = row % 64 < 32 ? column : p.intermediate + column;
    return load16(b.gateUp + int64_t(weightRow) * p.hidden, first);
  };
  TileAccumulators<kMoeBlockRows, 128, 1, 2> acc;
  mfmaTile<Element::Bf16>(fetchTokens, fetchGateUp, p.hidden, acc);
  const int l = lane(), column = n0 + wave() * 32 + l % 32;
  if (column >= p.intermediate)
    return;
  for (int e = 0; e < 16; ++e) {
    const float gate = acc.block[0][0][e], up = acc.block[0][1][e];
    const int row = b.index * kMoeBlockRows + mfmaResultRow(l, e);
    p.h[int64_t(row) * p.intermediate + column] = floatToBf16(gpu::swiglu<HipThreads>(gate, up));
  }
}

/// down: Y[choice] = weight · (H row · down_eᵀ) for 128 columns.
ARGUS_HIP_FN void moeDown(const MoeParams &p) {
  const int n0 = workGroup(0) * kMoeDownColumns;
  gpu::MoeBlock b;
  if (!gpu::moeBlock(p, workGroup(1), &b))
    return;
  auto fetchH = [&](int row, int first) { return load16(b.activations(p, row), first); };
  auto fetchDown = [&](int row, int first) {
    return n0 + row < p.hidden ? load16(b.down + int64_t(n0 + row) * p.intermediate, first) : u32x4{0, 0, 0, 0};
  };
  TileAccumulators<kMoeBlockRows, 128, 1, 2> acc;
  mfmaTile<Element::Bf16>(fetchH, fetchDown, p.intermediate, acc);
  const int l = lane();
  for (int j = 0; j < 2; ++j) {
    const int column = n0 + acc.waveCol + 32 * j + l % 32;
    if (column >= p.hidden)
      continue;
    for (int e = 0; e < 16; ++e) {
      const int choice = b.rows[mfmaResultRow(l, e)];
      if (choice >= 0)
        p.y[int64_t(choice) * p.hidden + column] = p.weights[choice] * acc.block[0][j][e];
    }
  }
}

} // namespace argus::hip

#endif // ARGUS_HIP_MOE_KERNEL_H
