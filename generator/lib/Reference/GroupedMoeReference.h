//===- GroupedMoeReference.h - float64 grouped expert GEMMs -----*- C++ -*-===//
//
// The references of the grouped MoE expert kernels (templates/moe/
// moe_{gate_up,down}_cdna.argus): the routed rows come in blocks, each
// block multiplied by its expert's weights. Blocks past the routing's
// (live_blocks, the range [0, count)) are left alone; a live block whose
// entry names no expert (outside [0, E)) is all zeros. Registered in
// References.cpp; arguments in kernel order.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_REFERENCE_GROUPEDMOEREFERENCE_H
#define ARGUS_REFERENCE_GROUPEDMOEREFERENCE_H

#include "argus/Reference/References.h"

#include <random>
#include <string>
#include <vector>

namespace argus::ref {

/// The routing's blocks of `blocks`: live_blocks [0, count) clamped.
int64_t liveBlockCount(const RefArg &liveBlocks, int64_t blocks);
/// live_blocks as align leaves them: [0, count), all but the last block
/// when there are two or more.
void arrangeLiveBlocks(RefArg &liveBlocks, int64_t blocks);

/// X: MB x BR x K; Wg, Wu: E x N x K; block_expert: MB; H: MB x BR x N;
/// live_blocks: 2.
std::string validateMoeGroupedGateUp(const std::vector<RefArg> &args);
/// H[b] = silu(X[b]·Wg[e]ᵀ) * (X[b]·Wu[e]ᵀ), e = block_expert[b].
void moeGroupedGateUp(std::vector<RefArg> &args);

/// X: MB x BR x K; W: E x N x K; block_expert: MB; Y: MB x BR x N;
/// live_blocks: 2.
std::string validateMoeGroupedDown(const std::vector<RefArg> &args);
/// Y[b] = X[b]·W[e]ᵀ, e = block_expert[b].
void moeGroupedDown(std::vector<RefArg> &args);

/// Block experts as a routing leaves them: experts in [0, E) in use, the
/// last block past the routing's (-1, outside live_blocks) when there are
/// two or more, and with three or more an entry outside the experts (E),
/// which must read no weights either.
void arrangeMoeBlocks(std::vector<RefArg> &args, std::mt19937_64 &rng);

} // namespace argus::ref

#endif // ARGUS_REFERENCE_GROUPEDMOEREFERENCE_H
