//===- argus_gpu_moe_routing.h - MoE route, align, combine, for any GPU ---===//
//
// The three kernels of the MoE pipeline (argus_gpu_moe_params.h) that are
// not matrix products, and the SwiGLU activation, written once for every GPU
// target over the handful of primitives a target's `Threads` supplies
// (static functions) that it uses: the CUDA library's. A hip library
// generates all of them from templates/moe/ instead (route, the three
// align steps, combine, and a gather, a step CUDA's expert GEMMs do not
// need).
//
//   kLanes                 threads of a wave / warp
//   lane(), item()         this thread's lane, and index in its block
//   group(d)               this block's coordinate d in the grid
//   barrier()              the block's shared-memory barrier
//   laneXor(v, mask)       v of the lane whose index is this lane's XOR mask
//   atomicAdd(p, v)        *p += v in shared memory, atomically; the old value
//   exp2(x)                2^x, 2^-inf = 0
//   floatToBf16(f)         round to nearest even, NaN kept (combine only)
//
// Include after the target's device header, which defines ARGUS_GPU_FN (its
// device-function qualifier).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_MOE_ROUTING_H
#define ARGUS_GPU_MOE_ROUTING_H

#ifndef ARGUS_GPU_FN
#error "argus_gpu_moe_routing.h: include the target's device header first"
#endif

#include "gpu/argus_gpu_moe_params.h"

namespace argus::gpu {

inline constexpr float kMoeLog2e = 1.4426950408889634f;

/// Route: one wave / warp per token. Lane l holds experts l, l + kLanes, ...
template <class Threads>
ARGUS_GPU_FN void moeRoute(const MoeParams &p) {
  constexpr int kLanes = Threads::kLanes, kExpertsPerLane = kMaxMoeExperts / kLanes;
  const int token = Threads::group(0), l = Threads::lane();
  const float *logits = p.routerLogits + int64_t(token) * p.experts;
  float mine[kExpertsPerLane];
  float high = -__builtin_inff();
  for (int i = 0; i < kExpertsPerLane; ++i) {
    const int e = l + kLanes * i;
    mine[i] = e < p.experts ? logits[e] : -__builtin_inff();
    high = mine[i] > high ? mine[i] : high;
  }
  for (int mask = kLanes / 2; mask > 0; mask /= 2) {
    const float other = Threads::laneXor(high, mask);
    high = other > high ? other : high;
  }
  float sum = 0.0f;
  for (int i = 0; i < kExpertsPerLane; ++i)
    sum += l + kLanes * i < p.experts ? Threads::exp2((mine[i] - high) * kMoeLog2e) : 0.0f;
  for (int mask = kLanes / 2; mask > 0; mask /= 2)
    sum += Threads::laneXor(sum, mask);

  float *const weights = p.weights + int64_t(token) * p.topK;  // written by lane 0
  float chosenSum = 0.0f;
  bool taken[kExpertsPerLane] = {};
  for (int j = 0; j < p.topK; ++j) {
    // This lane's best untaken expert, then the wave's: larger logit, else lower index.
    float best = -__builtin_inff();
    int bestExpert = p.experts;
    for (int i = 0; i < kExpertsPerLane; ++i) {
      const int e = l + kLanes * i;
      if (e < p.experts && !taken[i] && (mine[i] > best || bestExpert == p.experts)) {
        best = mine[i];
        bestExpert = e;
      }
    }
    for (int mask = kLanes / 2; mask > 0; mask /= 2) {
      const float other = Threads::laneXor(best, mask);
      const int otherExpert = int(Threads::laneXor(float(bestExpert), mask));  // exact below 2^24
      if (other > best || (other == best && otherExpert < bestExpert)) {
        best = other;
        bestExpert = otherExpert;
      }
    }
    for (int i = 0; i < kExpertsPerLane; ++i)  // a constant index keeps taken[] in registers
      taken[i] = taken[i] || bestExpert == l + kLanes * i;
    const float chosen = Threads::exp2((best - high) * kMoeLog2e) / sum;
    chosenSum += chosen;
    if (l == 0) {
      p.choices[int64_t(token) * p.topK + j] = bestExpert;
      weights[j] = chosen;
    }
  }
  if (l == 0 && p.renormalize)  // lane 0 reads back its own writes (no array kept in local memory)
    for (int j = 0; j < p.topK; ++j)
      weights[j] /= chosenSum;
}

/// Align: one block of kMoeAlignThreads groups the choices by expert, in
/// `shared` (kMoeAlignSharedBytes, 4-byte aligned). Blocks past the
/// routing's own count name no expert (-1), and every row of theirs is
/// padding (-1): a kernel that reads the tables for every block of the grid
/// finds nothing to do there, and nothing left from an earlier call.
/// liveBlocks is [0, count): the generated kernels' segment of live blocks.
template <class Threads>
ARGUS_GPU_FN void moeAlign(const MoeParams &p, char *shared) {
  int *const count = reinterpret_cast<int *>(shared);
  int *const cursor = count + kMaxMoeExperts;
  int *const firstBlock = cursor + kMaxMoeExperts;  // kMaxMoeExperts + 1
  const int item = Threads::item(), choices = p.tokens * p.topK;
  for (int e = item; e < p.experts; e += kMoeAlignThreads)
    count[e] = cursor[e] = 0;
  Threads::barrier();
  for (int i = item; i < choices; i += kMoeAlignThreads)
    Threads::atomicAdd(&count[p.choices[i]], 1);
  Threads::barrier();
  if (item == 0) {
    firstBlock[0] = 0;
    for (int e = 0; e < p.experts; ++e) {
      const int blocks = (count[e] + kMoeBlockRows - 1) / kMoeBlockRows;
      for (int b = firstBlock[e]; b < firstBlock[e] + blocks; ++b)
        p.blockExpert[b] = e;
      firstBlock[e + 1] = firstBlock[e] + blocks;
    }
    p.liveBlocks[0] = 0;
    *p.blockCount = firstBlock[p.experts];
  }
  Threads::barrier();
  for (int b = firstBlock[p.experts] + item; b < p.maxBlocks; b += kMoeAlignThreads)
    p.blockExpert[b] = -1;
  for (int r = item; r < p.maxBlocks * kMoeBlockRows; r += kMoeAlignThreads)
    p.blockRows[r] = -1;
  Threads::barrier();
  for (int i = item; i < choices; i += kMoeAlignThreads) {
    const int e = p.choices[i];
    const int row = firstBlock[e] * kMoeBlockRows + Threads::atomicAdd(&cursor[e], 1);
    p.blockRows[row] = i;
    p.choiceRow[i] = row;
  }
}

/// What an expert GEMM's CTA / workgroup reads of the routing for its block.
struct MoeBlock {
  int index;                 // the block, in the routing's order
  const int32_t *rows;       // its kMoeBlockRows choices (token * topK + j), -1 for padding
  const uint16_t *gateUp;    // its expert's [2 * intermediate, hidden] weights
  const uint16_t *down;      // its expert's [hidden, intermediate] weights

  /// Row `row`'s token in x, or null for a padding row.
  ARGUS_GPU_FN const uint16_t *token(const MoeParams &p, int row) const {
    const int choice = rows[row];
    return choice < 0 ? nullptr : p.x + int64_t(choice / p.topK) * p.hidden;
  }

  /// Row `row` of the block's SwiGLU activations in H.
  ARGUS_GPU_FN const uint16_t *activations(const MoeParams &p, int row) const {
    return p.h + (int64_t(index) * kMoeBlockRows + row) * p.intermediate;
  }
};

/// Block `block` of the routing in *b; false past the routing's count (the
/// grid is sized for the most blocks any routing needs: nothing to do).
ARGUS_GPU_FN bool moeBlock(const MoeParams &p, int block, MoeBlock *b) {
  if (block >= *p.blockCount)
    return false;
  const int64_t expert = p.blockExpert[block];
  *b = {block, p.blockRows + int64_t(block) * kMoeBlockRows,
        p.wGateUp + expert * 2 * p.intermediate * p.hidden, p.wDown + expert * p.hidden * p.intermediate};
  return true;
}

/// SiLU(gate) · up, the SwiGLU activation of the gate_up kernels' epilogues.
template <class Threads>
ARGUS_GPU_FN float swiglu(float gate, float up) {
  return gate / (1.0f + Threads::exp2(-gate * kMoeLog2e)) * up;
}

/// Combine: out[t] = sum over j of weight(t, j) · Y[row of (t, j)], in
/// choice order. Block (t, c)
/// sums the columns kThreads c .. kThreads (c + 1) - 1 of token t.
template <class Threads, int kThreads>
ARGUS_GPU_FN void moeCombine(const MoeParams &p) {
  const int token = Threads::group(0), column = Threads::group(1) * kThreads + Threads::item();
  if (column >= p.hidden)
    return;
  float sum = 0.0f;
  for (int j = 0; j < p.topK; ++j) {
    const int64_t choice = int64_t(token) * p.topK + j;
    sum += p.weights[choice] * p.y[int64_t(p.choiceRow[choice]) * p.hidden + column];
  }
  p.out[int64_t(token) * p.hidden + column] = Threads::floatToBf16(sum);
}

} // namespace argus::gpu

#endif // ARGUS_GPU_MOE_ROUTING_H
