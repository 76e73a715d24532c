//===- argus_hip_moe_params.h - the CDNA MoE pipeline's arguments ----------===//
//
// argus_moe on CDNA is five kernels, in stream order, all taking one
// MoeParams by value:
//
//   route     per token: softmax over the router logits, top-k (largest
//             first, ties to the lower expert), renormalised or not
//   align     one workgroup: tokens per expert, each expert's rows padded to
//             blocks of kMoeBlockRows, the block -> expert table, and every
//             (token, choice) placed in its expert's blocks
//   gate_up   per (column tile, block): gathered tokens · the expert's gate
//             and up rows, SiLU(gate) · up, into H (bf16)
//   down      per (column tile, block): H · the expert's down rows, times
//             the routing weight, into Y (f32, one row per (token, choice))
//   combine   per token: the sum of its top-k rows of Y, rounded to bf16
//
// No launch depends on a count the host would have to read back: grids are
// sized for the most blocks any routing can need, and blocks past the
// routing's own count return at once. The workspace holds every
// intermediate; its layout is computed here, once, for the size query and
// for the carving alike.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_HIP_MOE_PARAMS_H
#define ARGUS_HIP_MOE_PARAMS_H

#include <stdint.h>

namespace argus::hip {

inline constexpr int kMoeBlockRows = 32;   // rows of one expert block (the MFMA tile's BM)
inline constexpr int kMaxMoeExperts = 256; // 4 per lane in the router
inline constexpr int kMaxMoeTopK = 16;
inline constexpr int kMoeGateUpColumns = 64;  // output columns of a gate_up tile (128 B rows)
inline constexpr int kMoeDownColumns = 128;
inline constexpr int kMoeThreads = 128;       // the two waves of the 32 x 128 MFMA tile
inline constexpr int kMoeAlignThreads = 1024;
inline constexpr int kMoeCombineThreads = 256;

struct MoeParams {
  const uint16_t *x;            // [tokens, hidden]
  const float *routerLogits;    // [tokens, experts]
  const uint16_t *wGateUp;      // [experts, 2 * intermediate, hidden]
  const uint16_t *wDown;        // [experts, hidden, intermediate]
  uint16_t *out;                // [tokens, hidden]
  // workspace
  int32_t *choices;             // [tokens * topK]: expert of (token, j)
  float *weights;               // [tokens * topK]
  int32_t *blockCount;          // [1]
  int32_t *blockExpert;         // [maxBlocks]
  int32_t *blockRows;           // [maxBlocks * kMoeBlockRows]: (token * topK + j), or -1 for padding
  uint16_t *h;                  // [maxBlocks * kMoeBlockRows, intermediate]
  float *y;                     // [tokens * topK, hidden]
  int32_t tokens, hidden, intermediate, experts, topK, maxBlocks;
  int32_t renormalize;
};

/// Where each workspace region starts, and the whole size; every region 256-byte aligned.
struct MoeLayout {
  uint64_t choices, weights, blockCount, blockExpert, blockRows, h, y, bytes;
};

constexpr uint64_t alignTo256(uint64_t x) { return (x + 255) / 256 * 256; }

/// The most blocks any routing of `tokens` x `topK` choices over `experts` needs.
constexpr int64_t moeMaxBlocks(int64_t tokens, int64_t topK, int64_t experts) {
  return (tokens * topK + kMoeBlockRows - 1) / kMoeBlockRows + experts;
}

constexpr MoeLayout moeLayout(int64_t tokens, int64_t hidden, int64_t intermediate, int64_t experts, int64_t topK) {
  const uint64_t choices = uint64_t(tokens * topK), blocks = uint64_t(moeMaxBlocks(tokens, topK, experts));
  MoeLayout l{};
  l.choices = 0;
  l.weights = alignTo256(l.choices + 4 * choices);
  l.blockCount = alignTo256(l.weights + 4 * choices);
  l.blockExpert = alignTo256(l.blockCount + 4);
  l.blockRows = alignTo256(l.blockExpert + 4 * blocks);
  l.h = alignTo256(l.blockRows + 4 * blocks * kMoeBlockRows);
  l.y = alignTo256(l.h + 2 * blocks * kMoeBlockRows * uint64_t(intermediate));
  l.bytes = alignTo256(l.y + 4 * choices * uint64_t(hidden));
  return l;
}

/// One kernel launch of the pipeline: grid in workgroups, workgroup size.
struct MoeLaunch {
  const char *kernel;
  unsigned gridX, gridY, threads;
};

/// The five launches, in order.
inline void moeLaunches(const MoeParams &p, MoeLaunch (&launches)[5]) {
  const unsigned blocks = unsigned(p.maxBlocks);
  launches[0] = {"argus_hip_moe_route", unsigned(p.tokens), 1, 64};
  launches[1] = {"argus_hip_moe_align", 1, 1, kMoeAlignThreads};
  launches[2] = {"argus_hip_moe_gate_up", unsigned((p.intermediate + kMoeGateUpColumns - 1) / kMoeGateUpColumns),
                 blocks, kMoeThreads};
  launches[3] = {"argus_hip_moe_down", unsigned((p.hidden + kMoeDownColumns - 1) / kMoeDownColumns), blocks,
                 kMoeThreads};
  launches[4] = {"argus_hip_moe_combine", unsigned((p.hidden + kMoeCombineThreads - 1) / kMoeCombineThreads),
                 unsigned(p.tokens), kMoeCombineThreads};
}

} // namespace argus::hip

#endif // ARGUS_HIP_MOE_PARAMS_H
