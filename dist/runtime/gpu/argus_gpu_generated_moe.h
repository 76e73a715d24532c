//===- argus_gpu_generated_moe.h - MoE blocks as a generated kernel's args -===//
//
// The MoE kernels argus-gen generates for a hip library take the pipeline's
// argument and workspace (gpu/argus_gpu_moe_params.h) as tensors: the router
// logits and the per-(token, choice) tables (route, combine); the choices
// flat and the experts' first rows (align); the blocks' rows MB x 32 x
// width, the block -> expert table and the range of live blocks (align,
// gather, the grouped expert GEMMs); the experts' weights E x rows x width;
// and Y as MB * 32 rows (combine). Templates: templates/moe/
// moe_route.argus, moe_align_offsets.argus, moe_align_rows.argus,
// moe_align_choice_row.argus, moe_gather.argus, moe_gate_up_cdna.argus,
// moe_down_cdna.argus, moe_combine.argus.
// Parameter order is the templates': route (logits, choices, weights,
// renormalize), align_offsets (choices, first_row, live_blocks), align_rows
// (choices, first_row, live_blocks, block_expert, block_rows),
// align_choice_row (choices, first_row, choice_row), gather (x, block_rows,
// rows, live_blocks, top_k), gate_up (X, Wg, Wu, block_expert, H,
// live_blocks), down (X, W, block_expert, Y, live_blocks), combine (Y,
// choice_row, weights, out).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_GENERATED_MOE_H
#define ARGUS_GPU_GENERATED_MOE_H

#include "argus_gpu_launch.h"
#include "argus_gpu_moe_params.h"

#include <stdint.h>

namespace argus_rt {

namespace detail {

using argus::gpu::kMoeBlockRows;
using argus::gpu::tile::Tensor;

/// Every block's rows of `data`, `width` elements each: MB x kMoeBlockRows x width.
inline Tensor moeBlocks(const void *data, int64_t blocks, int64_t width) {
  return {data, {blocks, kMoeBlockRows, width, 0}, {kMoeBlockRows * width, width, 1, 0}};
}

/// `rows` rows of `width` per expert, the experts `expertStride` elements apart.
inline Tensor moeWeights(const void *data, int64_t experts, int64_t rows, int64_t width, int64_t expertStride) {
  return {data, {experts, rows, width, 0}, {expertStride, width, 1, 0}};
}

/// `n` elements, densely.
inline Tensor moeVector(const void *data, int64_t n) { return {data, {n, 0, 0, 0}, {1, 0, 0, 0}}; }

inline Tensor moeBlockExperts(const argus::gpu::MoeParams &p) { return moeVector(p.blockExpert, p.maxBlocks); }

/// The routing's blocks as a range [0, count), which align writes.
inline Tensor moeLiveBlocks(const argus::gpu::MoeParams &p) { return moeVector(p.liveBlocks, 2); }

/// The routing's tokens x topK choices, flat.
inline Tensor moeChoices(const argus::gpu::MoeParams &p) { return moeVector(p.choices, int64_t(p.tokens) * p.topK); }

/// Each expert's first block row, then the routing's end: experts + 1.
inline Tensor moeFirstRows(const argus::gpu::MoeParams &p) { return moeVector(p.firstRow, int64_t(p.experts) + 1); }

/// `rows` rows of `width` elements, densely.
inline Tensor moeMatrix(const void *data, int64_t rows, int64_t width) {
  return {data, {rows, width, 0, 0}, {width, 1, 0, 0}};
}

} // namespace detail

/// The route kernel's parameters (struct Params) for the pipeline `p`: each
/// token's router logits into its choices and weights.
template <class Params>
Params generatedRouteParams(const argus::gpu::MoeParams &p) {
  Params r{};
  r.logits = detail::moeMatrix(p.routerLogits, p.tokens, p.experts);
  r.choices = detail::moeMatrix(p.choices, p.tokens, p.topK);
  r.weights = detail::moeMatrix(p.weights, p.tokens, p.topK);
  r.renormalize = p.renormalize;
  return r;
}

/// The first align step's parameters (struct Params) for the pipeline `p`:
/// the choices into each expert's first row and the live blocks.
template <class Params>
Params generatedAlignOffsetsParams(const argus::gpu::MoeParams &p) {
  Params a{};
  a.choices = detail::moeChoices(p);
  a.first_row = detail::moeFirstRows(p);
  a.live_blocks = detail::moeLiveBlocks(p);
  return a;
}

/// The second align step's parameters (struct Params) for the pipeline
/// `p`: each block's expert and rows.
template <class Params>
Params generatedAlignRowsParams(const argus::gpu::MoeParams &p) {
  Params a{};
  a.choices = detail::moeChoices(p);
  a.first_row = detail::moeFirstRows(p);
  a.live_blocks = detail::moeLiveBlocks(p);
  a.block_expert = detail::moeBlockExperts(p);
  a.block_rows = detail::moeMatrix(p.blockRows, p.maxBlocks, detail::kMoeBlockRows);
  return a;
}

/// The third align step's parameters (struct Params) for the pipeline `p`:
/// the block row each choice landed on.
template <class Params>
Params generatedAlignChoiceRowParams(const argus::gpu::MoeParams &p) {
  Params a{};
  a.choices = detail::moeChoices(p);
  a.first_row = detail::moeFirstRows(p);
  a.choice_row = detail::moeVector(p.choiceRow, int64_t(p.tokens) * p.topK);
  return a;
}

/// The gather kernel's parameters (struct Params) for the pipeline `p`:
/// each live block row's token of x, into the gathered rows.
template <class Params>
Params generatedGatherParams(const argus::gpu::MoeParams &p) {
  Params g{};
  g.x = detail::moeMatrix(p.x, p.tokens, p.hidden);
  g.block_rows = detail::moeMatrix(p.blockRows, p.maxBlocks, detail::kMoeBlockRows);
  g.rows = detail::moeBlocks(argus::gpu::moeGatheredRows(p), p.maxBlocks, p.hidden);
  g.live_blocks = detail::moeLiveBlocks(p);
  g.top_k = p.topK;
  return g;
}

/// The gate_up kernel's parameters (struct Params) for the pipeline `p`:
/// the gathered tokens (argus::gpu::moeGatheredRows) times each expert's
/// gate rows (the first `intermediate` of w_gate_up) and up rows (the rest).
template <class Params>
Params generatedGateUpParams(const argus::gpu::MoeParams &p) {
  const int64_t hidden = p.hidden, inter = p.intermediate, pitch = 2 * inter * hidden;
  Params g{};
  g.X = detail::moeBlocks(argus::gpu::moeGatheredRows(p), p.maxBlocks, hidden);
  g.Wg = detail::moeWeights(p.wGateUp, p.experts, inter, hidden, pitch);
  g.Wu = detail::moeWeights(p.wGateUp + inter * hidden, p.experts, inter, hidden, pitch);
  g.block_expert = detail::moeBlockExperts(p);
  g.H = detail::moeBlocks(p.h, p.maxBlocks, inter);
  g.live_blocks = detail::moeLiveBlocks(p);
  return g;
}

/// The down kernel's parameters (struct Params) for the pipeline `p`: H
/// times each expert's down rows into Y.
template <class Params>
Params generatedDownParams(const argus::gpu::MoeParams &p) {
  const int64_t hidden = p.hidden, inter = p.intermediate;
  Params d{};
  d.X = detail::moeBlocks(p.h, p.maxBlocks, inter);
  d.W = detail::moeWeights(p.wDown, p.experts, hidden, inter, hidden * inter);
  d.block_expert = detail::moeBlockExperts(p);
  d.Y = detail::moeBlocks(p.y, p.maxBlocks, hidden);
  d.live_blocks = detail::moeLiveBlocks(p);
  return d;
}

/// The combine kernel's parameters (struct Params) for the pipeline `p`:
/// each token's weighted rows of Y into out.
template <class Params>
Params generatedCombineParams(const argus::gpu::MoeParams &p) {
  Params c{};
  c.Y = detail::moeMatrix(p.y, int64_t(p.maxBlocks) * detail::kMoeBlockRows, p.hidden);
  c.choice_row = detail::moeMatrix(p.choiceRow, p.tokens, p.topK);
  c.weights = detail::moeMatrix(p.weights, p.tokens, p.topK);
  c.out = detail::moeMatrix(p.out, p.tokens, p.hidden);
  return c;
}

} // namespace argus_rt

#endif // ARGUS_GPU_GENERATED_MOE_H
