//===- argus_gpu_moe_params.h - the GPU MoE pipeline's argument and workspace -===//
//
// argus_moe on every GPU target is five kernels, in stream order, all taking
// one MoeParams by value:
//
//   route     per token: softmax over the router logits, top-k (largest
//             first, ties to the lower expert), renormalised or not
//   align     tokens per expert, each expert's rows padded to blocks of
//             kMoeBlockRows, the block -> expert table (-1 past the
//             routing's blocks), every (token, choice) placed in its
//             expert's blocks, and where each landed: one block with
//             shared-memory atomics (CUDA), or three generated kernels
//             without atomics, which keep the choices' order (CDNA:
//             templates/moe/moe_align_{offsets,rows,choice_row}.argus)
//   gate_up   per (column tile, block): gathered tokens · the expert's gate
//             and up rows, SiLU(gate) · up, into H (bf16)
//   down      per (column tile, block): H · the expert's down rows into Y
//             (f32, one row per block row)
//   combine   per token: the routing-weighted sum of its top-k rows of Y,
//             rounded to bf16
//
// A target whose expert GEMMs read dense blocks (CDNA's, generated from
// templates) runs a gather between align and gate_up that copies the
// tokens' rows into the blocks' order, in Y's region: Y is written only
// after gate_up has read them, and holds them twice over.
//
// No launch depends on a count the host would have to read back: grids are
// sized for the most blocks any routing can need, and blocks past the
// routing's own count return at once. The workspace holds every
// intermediate; its layout is computed here, once, for the size query, the
// carving and the tests alike. Plain C++, included as
// "gpu/argus_gpu_moe_params.h" from dist/runtime.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_MOE_PARAMS_H
#define ARGUS_GPU_MOE_PARAMS_H

#if __has_include("argus_scalar_ops.h")
#include "argus_scalar_ops.h" // ARGUS_SCALAR_FN
#else
#include "../argus_scalar_ops.h"
#endif

#include <stdint.h>

namespace argus::gpu {

inline constexpr int kMoeBlockRows = 32;   // rows of one expert block (the expert GEMMs' tile height)
inline constexpr int kMaxMoeExperts = 256; // held in registers across the router's lanes
inline constexpr int kMaxMoeTopK = 16;
inline constexpr int kMoeAlignThreads = 1024;
/// Shared memory of the align kernel: per-expert counts, first blocks (+1) and cursors.
inline constexpr int kMoeAlignSharedBytes = (3 * kMaxMoeExperts + 1) * 4;

struct MoeParams {
  const uint16_t *x;            // [tokens, hidden]
  const float *routerLogits;    // [tokens, experts]
  const uint16_t *wGateUp;      // [experts, 2 * intermediate, hidden]
  const uint16_t *wDown;        // [experts, hidden, intermediate]
  uint16_t *out;                // [tokens, hidden]
  // workspace
  int32_t *choices;             // [tokens * topK]: expert of (token, j)
  float *weights;               // [tokens * topK]
  int32_t *liveBlocks;          // [2]: 0 and the routing's block count, its blocks as a range
  int32_t *blockCount;          // liveBlocks + 1
  int32_t *firstRow;            // [experts + 1]: each expert's first block row, then the routing's end
  int32_t *blockExpert;         // [maxBlocks]
  int32_t *blockRows;           // [maxBlocks * kMoeBlockRows]: (token * topK + j), or -1 for padding
  int32_t *choiceRow;           // [tokens * topK]: the block row of (token, j)
  uint16_t *h;                  // [maxBlocks * kMoeBlockRows, intermediate]
  float *y;                     // [maxBlocks * kMoeBlockRows, hidden]
  int32_t tokens, hidden, intermediate, experts, topK, maxBlocks;
  int32_t renormalize;
};

/// Where the gather (targets whose expert GEMMs read dense blocks) puts the
/// blocks' token rows, maxBlocks x kMoeBlockRows x hidden bf16: Y's region,
/// free until down writes it, after gate_up has read them.
ARGUS_SCALAR_FN uint16_t *moeGatheredRows(const MoeParams &p) { return reinterpret_cast<uint16_t *>(p.y); }

/// Where each workspace region starts, and the whole size; every region 256-byte aligned.
struct MoeLayout {
  uint64_t choices, weights, liveBlocks, firstRow, blockExpert, blockRows, choiceRow, h, y, bytes;
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
  l.liveBlocks = alignTo256(l.weights + 4 * choices);
  l.firstRow = alignTo256(l.liveBlocks + 8);
  l.blockExpert = alignTo256(l.firstRow + 4 * uint64_t(experts + 1));
  l.blockRows = alignTo256(l.blockExpert + 4 * blocks);
  l.choiceRow = alignTo256(l.blockRows + 4 * blocks * kMoeBlockRows);
  l.h = alignTo256(l.choiceRow + 4 * choices);
  l.y = alignTo256(l.h + 2 * blocks * kMoeBlockRows * uint64_t(intermediate));
  l.bytes = alignTo256(l.y + 4 * blocks * kMoeBlockRows * uint64_t(hidden));
  return l;
}

/// The problem's sizes, as argus_moe_args gives them.
struct MoeShape {
  int32_t tokens, hidden, intermediate, experts, topK;
  bool renormalize;
};

/// The pipeline's argument: the tensors, and the workspace carved by moeLayout.
inline MoeParams moeParams(const MoeShape &s, const void *x, const float *routerLogits, const void *wGateUp,
                           const void *wDown, void *out, void *workspace) {
  const MoeLayout l = moeLayout(s.tokens, s.hidden, s.intermediate, s.experts, s.topK);
  char *w = static_cast<char *>(workspace);
  return {static_cast<const uint16_t *>(x),
          routerLogits,
          static_cast<const uint16_t *>(wGateUp),
          static_cast<const uint16_t *>(wDown),
          static_cast<uint16_t *>(out),
          reinterpret_cast<int32_t *>(w + l.choices),
          reinterpret_cast<float *>(w + l.weights),
          reinterpret_cast<int32_t *>(w + l.liveBlocks),
          reinterpret_cast<int32_t *>(w + l.liveBlocks) + 1,
          reinterpret_cast<int32_t *>(w + l.firstRow),
          reinterpret_cast<int32_t *>(w + l.blockExpert),
          reinterpret_cast<int32_t *>(w + l.blockRows),
          reinterpret_cast<int32_t *>(w + l.choiceRow),
          reinterpret_cast<uint16_t *>(w + l.h),
          reinterpret_cast<float *>(w + l.y),
          s.tokens,
          s.hidden,
          s.intermediate,
          s.experts,
          s.topK,
          int32_t(moeMaxBlocks(s.tokens, s.topK, s.experts)),
          s.renormalize ? 1 : 0};
}

} // namespace argus::gpu

#endif // ARGUS_GPU_MOE_PARAMS_H
