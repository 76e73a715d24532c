//===- GroupedMoeReference.h - float64 grouped expert GEMMs -----*- C++ -*-===//
//
// The references of the grouped MoE expert kernels (templates/moe/
// moe_{gate_up,down}_cdna.argus): the routed rows come in blocks, each
// block multiplied by its expert's weights. A block whose entry names no
// expert (-1 past the routing's blocks, or anything outside [0, E)) is
// all zeros. Registered in References.cpp; arguments in kernel order.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_REFERENCE_GROUPEDMOEREFERENCE_H
#define ARGUS_REFERENCE_GROUPEDMOEREFERENCE_H

#include "argus/Reference/References.h"

#include <random>
#include <string>
#include <vector>

namespace argus::ref {

/// X: MB x BR x K; Wg, Wu: E x N x K; block_expert: MB; H: MB x BR x N.
std::string validateMoeGroupedGateUp(const std::vector<RefArg> &args);
/// H[b] = silu(X[b]·Wg[e]ᵀ) * (X[b]·Wu[e]ᵀ), e = block_expert[b].
void moeGroupedGateUp(std::vector<RefArg> &args);

/// X: MB x BR x K; W: E x N x K; block_expert: MB; Y: MB x BR x N.
std::string validateMoeGroupedDown(const std::vector<RefArg> &args);
/// Y[b] = X[b]·W[e]ᵀ, e = block_expert[b].
void moeGroupedDown(std::vector<RefArg> &args);

/// Block experts as a routing leaves them: experts in [0, E) in use, the
/// last block past the routing's (-1) when there are two or more, and
/// with three or more an entry outside the experts (E), which must read
/// no weights either.
void arrangeMoeBlocks(std::vector<RefArg> &args, std::mt19937_64 &rng);

} // namespace argus::ref

#endif // ARGUS_REFERENCE_GROUPEDMOEREFERENCE_H
