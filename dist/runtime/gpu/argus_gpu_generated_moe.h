//===- argus_gpu_generated_moe.h - MoE blocks as a generated kernel's args -===//
//
// The MoE kernels argus-gen generates for a hip library take the pipeline's
// argument and workspace (gpu/argus_gpu_moe_params.h) as tensors. The route
// (templates/moe/moe_route.argus): the router logits and the per-(token,
// choice) tables it fills. The grouped expert
// GEMMs (templates/moe/moe_gate_up_cdna.argus, moe_down_cdna.argus): the
// blocks' rows MB x 32 x width, the experts' weights E x rows x width, and
// the block -> expert table; gather and combine (templates/moe/
// moe_gather.argus, moe_combine.argus): the tokens, the blocks' rows
// flattened to MB * 32 rows, and the routing's per-(token, choice) tables.
// Parameter order is the templates': route (logits, choices, weights,
// renormalize), gather (x, block_rows, rows, top_k),
// gate_up (X, Wg, Wu, block_expert, H), down (X, W, block_expert, Y),
// combine (Y, choice_row, weights, out).
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

/// The rows of every block the grid covers.
inline int64_t moeAllBlockRows(const argus::gpu::MoeParams &p) { return int64_t(p.maxBlocks) * kMoeBlockRows; }

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

/// The gather kernel's parameters (struct Params) for the pipeline `p`:
/// each block row's token of x, into the gathered rows (the blocks' rows
/// flattened).
template <class Params>
Params generatedGatherParams(const argus::gpu::MoeParams &p) {
  const int64_t blockRows = detail::moeAllBlockRows(p);
  Params g{};
  g.x = detail::moeMatrix(p.x, p.tokens, p.hidden);
  g.block_rows = detail::moeVector(p.blockRows, blockRows);
  g.rows = detail::moeMatrix(argus::gpu::moeGatheredRows(p), blockRows, p.hidden);
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
  return d;
}

/// The combine kernel's parameters (struct Params) for the pipeline `p`:
/// each token's weighted rows of Y into out.
template <class Params>
Params generatedCombineParams(const argus::gpu::MoeParams &p) {
  Params c{};
  c.Y = detail::moeMatrix(p.y, detail::moeAllBlockRows(p), p.hidden);
  c.choice_row = detail::moeMatrix(p.choiceRow, p.tokens, p.topK);
  c.weights = detail::moeMatrix(p.weights, p.tokens, p.topK);
  c.out = detail::moeMatrix(p.out, p.tokens, p.hidden);
  return c;
}

} // namespace argus_rt

#endif // ARGUS_GPU_GENERATED_MOE_H
