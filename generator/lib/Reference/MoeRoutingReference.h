//===- MoeRoutingReference.h - float64 MoE route, gather, combine -*- C++ -*-===//
//
// The references of the MoE kernels around the grouped expert GEMMs
// (templates/moe/): the router's softmax top-k (moe_route.argus), and the
// kernels that move rows between the tokens' order and the routing's blocks
// (moe_gather.argus before the GEMMs, moe_combine.argus after them).
// Registered in References.cpp; arguments in kernel order.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_REFERENCE_MOEROUTINGREFERENCE_H
#define ARGUS_REFERENCE_MOEROUTINGREFERENCE_H

#include "argus/Reference/References.h"

#include <random>
#include <string>
#include <vector>

namespace argus::ref {

/// logits: TOK x E; choices, weights: TOK x KT, KT <= E.
std::string validateMoeRoute(const std::vector<RefArg> &args);
/// Per token the KT experts of the largest logits, largest first, ties to
/// the lower expert, and their softmax weights, divided by the weights' sum
/// when renormalize is not 0.
void moeRoute(std::vector<RefArg> &args);
/// Ties, which the order must break by expert: the first token's logits
/// hold one value twice (with two or more experts), and the second
/// token's are all equal.
void arrangeMoeRoute(std::vector<RefArg> &args, std::mt19937_64 &rng);

/// x: TOK x H; block_rows: MB x BR; rows: MB x BR x H; live_blocks: 2;
/// top_k >= 1.
std::string validateMoeGather(const std::vector<RefArg> &args);
/// rows[b, r] = x[block_rows[b, r] / top_k] for the live blocks (zeros
/// where that names no token: negative, or past x); the others left alone.
void moeGather(std::vector<RefArg> &args);
/// Block rows as align leaves them: (token, choice) pairs and padding
/// (-1); with three or more rows also one past the last pair, which must
/// read nothing either; the last block past the routing's (live_blocks).
void arrangeMoeGather(std::vector<RefArg> &args, std::mt19937_64 &rng);

/// Y: R x N; choice_row, weights: TOK x KT; out: TOK x N.
std::string validateMoeCombine(const std::vector<RefArg> &args);
/// out[t] = sum over j of weights[t, j] · Y[choice_row[t, j]].
void moeCombine(std::vector<RefArg> &args);
/// Every choice landed on a row of Y.
void arrangeMoeCombine(std::vector<RefArg> &args, std::mt19937_64 &rng);

} // namespace argus::ref

#endif // ARGUS_REFERENCE_MOEROUTINGREFERENCE_H
