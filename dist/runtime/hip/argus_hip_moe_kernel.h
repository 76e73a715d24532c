//===- argus_hip_moe_kernel.h - routed SwiGLU experts on CDNA --------------===//
//
// The five kernels of argus_moe (the pipeline and its workspace are described
// in argus_hip_moe_params.h). The two expert GEMMs run the shared MFMA main
// loop (argus_hip_mfma_tile.h) on a 32 x 128 tile of two waves, with rows
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

namespace argus::hip {

inline constexpr float kLog2e = 1.4426950408889634f;
inline constexpr int kExpertsPerLane = kMaxMoeExperts / kWaveSize;

/// Route: one wave per token. Lane l holds experts l, l + 64, ...
ARGUS_HIP_FN void moeRoute(const MoeParams &p) {
  const int token = workGroup(0), l = lane();
  const float *logits = p.routerLogits + int64_t(token) * p.experts;
  float mine[kExpertsPerLane];
  float high = -__builtin_inff();
  for (int i = 0; i < kExpertsPerLane; ++i) {
    const int e = l + kWaveSize * i;
    mine[i] = e < p.experts ? logits[e] : -__builtin_inff();
    high = mine[i] > high ? mine[i] : high;
  }
  high = waveMax(high);
  float sum = 0.0f;
  for (int i = 0; i < kExpertsPerLane; ++i)
    sum += l + kWaveSize * i < p.experts ? exp2((mine[i] - high) * kLog2e) : 0.0f;
  sum = waveSum(sum);

  float chosen[kMaxMoeTopK];
  float chosenSum = 0.0f;
  bool taken[kExpertsPerLane] = {};
  for (int j = 0; j < p.topK; ++j) {
    // This lane's best untaken expert, then the wave's: larger logit, else lower index.
    float best = -__builtin_inff();
    int bestExpert = p.experts;
    for (int i = 0; i < kExpertsPerLane; ++i) {
      const int e = l + kWaveSize * i;
      if (e < p.experts && !taken[i] && (mine[i] > best || bestExpert == p.experts)) {
        best = mine[i];
        bestExpert = e;
      }
    }
    for (int offset = kWaveSize / 2; offset > 0; offset /= 2) {
      const float other = shuffle(best, l ^ offset);
      const int otherExpert = int(shuffle(float(bestExpert), l ^ offset));
      if (other > best || (other == best && otherExpert < bestExpert)) {
        best = other;
        bestExpert = otherExpert;
      }
    }
    for (int i = 0; i < kExpertsPerLane; ++i)  // a constant index keeps taken[] in registers
      taken[i] = taken[i] || bestExpert == l + kWaveSize * i;
    chosen[j] = exp2((best - high) * kLog2e) / sum;
    chosenSum += chosen[j];
    if (l == 0)
      p.choices[int64_t(token) * p.topK + j] = bestExpert;
  }
  if (l == 0)
    for (int j = 0; j < p.topK; ++j)
      p.weights[int64_t(token) * p.topK + j] = p.renormalize ? chosen[j] / chosenSum : chosen[j];
}

/// Align: one workgroup of kMoeAlignThreads groups the choices by expert.
ARGUS_HIP_FN void moeAlign(const MoeParams &p) {
  ARGUS_LDS(countBytes, kMaxMoeExperts * 4);
  ARGUS_LDS(firstBlockBytes, (kMaxMoeExperts + 1) * 4);
  ARGUS_LDS(cursorBytes, kMaxMoeExperts * 4);
  int *const count = reinterpret_cast<int *>(countBytes);
  int *const firstBlock = reinterpret_cast<int *>(firstBlockBytes);
  int *const cursor = reinterpret_cast<int *>(cursorBytes);
  const int item = workItem(), choices = p.tokens * p.topK;
  for (int e = item; e < p.experts; e += kMoeAlignThreads)
    count[e] = cursor[e] = 0;
  barrier();
  for (int i = item; i < choices; i += kMoeAlignThreads)
    atomicAdd(&count[p.choices[i]], 1);
  barrier();
  if (item == 0) {
    firstBlock[0] = 0;
    for (int e = 0; e < p.experts; ++e) {
      const int blocks = (count[e] + kMoeBlockRows - 1) / kMoeBlockRows;
      for (int b = firstBlock[e]; b < firstBlock[e] + blocks; ++b)
        p.blockExpert[b] = e;
      firstBlock[e + 1] = firstBlock[e] + blocks;
    }
    *p.blockCount = firstBlock[p.experts];
  }
  barrier();
  for (int r = item; r < firstBlock[p.experts] * kMoeBlockRows; r += kMoeAlignThreads)
    p.blockRows[r] = -1;
  barrier();
  for (int i = item; i < choices; i += kMoeAlignThreads) {
    const int e = p.choices[i];
    p.blockRows[firstBlock[e] * kMoeBlockRows + atomicAdd(&cursor[e], 1)] = i;
  }
}

/// 16 bytes of a bf16 row from element `first`.
ARGUS_HIP_FN u32x4 load16(const uint16_t *row, int first) { return *reinterpret_cast<const u32x4 *>(row + first); }

/// gate_up: H[rows of block] = SiLU(x_t · gate_eᵀ) · (x_t · up_eᵀ) for 64 columns.
ARGUS_HIP_FN void moeGateUp(const MoeParams &p) {
  const int block = workGroup(1), n0 = workGroup(0) * kMoeGateUpColumns;
  if (block >= *p.blockCount)
    return;
  const int expert = p.blockExpert[block];
  const int32_t *rows = p.blockRows + int64_t(block) * kMoeBlockRows;
  const uint16_t *weights = p.wGateUp + int64_t(expert) * 2 * p.intermediate * p.hidden;
  auto fetchTokens = [&](int row, int first) {
    const int choice = rows[row];
    return choice < 0 ? u32x4{0, 0, 0, 0} : load16(p.x + int64_t(choice / p.topK) * p.hidden, first);
  };
  // B tile row r: wave r / 64, then 32 gate rows and the 32 up rows of the same columns.
  auto fetchGateUp = [&](int row, int first) {
    const int column = n0 + (row / 64) * 32 + row % 32;
    if (column >= p.intermediate)
      return u32x4{0, 0, 0, 0};
    const int weightRow = row % 64 < 32 ? column : p.intermediate + column;
    return load16(weights + int64_t(weightRow) * p.hidden, first);
  };
  TileAccumulators<kMoeBlockRows, 128, 1, 2> acc;
  mfmaTile<Element::Bf16>(fetchTokens, fetchGateUp, p.hidden, acc);
  const int l = lane(), column = n0 + wave() * 32 + l % 32;
  if (column >= p.intermediate)
    return;
  for (int e = 0; e < 16; ++e) {
    const float gate = acc.block[0][0][e], up = acc.block[0][1][e];
    const float silu = gate / (1.0f + exp2(-gate * kLog2e));
    const int row = block * kMoeBlockRows + mfmaResultRow(l, e);
    p.h[int64_t(row) * p.intermediate + column] = floatToBf16(silu * up);
  }
}

/// down: Y[choice] = weight · (H row · down_eᵀ) for 128 columns.
ARGUS_HIP_FN void moeDown(const MoeParams &p) {
  const int block = workGroup(1), n0 = workGroup(0) * kMoeDownColumns;
  if (block >= *p.blockCount)
    return;
  const int expert = p.blockExpert[block];
  const int32_t *rows = p.blockRows + int64_t(block) * kMoeBlockRows;
  const uint16_t *weights = p.wDown + int64_t(expert) * p.hidden * p.intermediate;
  auto fetchH = [&](int row, int first) {
    return load16(p.h + (int64_t(block) * kMoeBlockRows + row) * p.intermediate, first);
  };
  auto fetchDown = [&](int row, int first) {
    return n0 + row < p.hidden ? load16(weights + int64_t(n0 + row) * p.intermediate, first) : u32x4{0, 0, 0, 0};
  };
  TileAccumulators<kMoeBlockRows, 128, 1, 2> acc;
  mfmaTile<Element::Bf16>(fetchH, fetchDown, p.intermediate, acc);
  const int l = lane();
  for (int j = 0; j < 2; ++j) {
    const int column = n0 + acc.waveCol + 32 * j + l % 32;
    if (column >= p.hidden)
      continue;
    for (int e = 0; e < 16; ++e) {
      const int choice = rows[mfmaResultRow(l, e)];
      if (choice >= 0)
        p.y[int64_t(choice) * p.hidden + column] = p.weights[choice] * acc.block[0][j][e];
    }
  }
}

/// combine: out[t] = sum over j of Y[t, j], in choice order.
ARGUS_HIP_FN void moeCombine(const MoeParams &p) {
  const int token = workGroup(1), column = workGroup(0) * kMoeCombineThreads + workItem();
  if (column >= p.hidden)
    return;
  float sum = 0.0f;
  for (int j = 0; j < p.topK; ++j)
    sum += p.y[(int64_t(token) * p.topK + j) * p.hidden + column];
  p.out[int64_t(token) * p.hidden + column] = floatToBf16(sum);
}

} // namespace argus::hip

#endif // ARGUS_HIP_MOE_KERNEL_H
