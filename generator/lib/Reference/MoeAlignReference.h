//===- MoeAlignReference.h - float64 MoE routing alignment ---*- C++ -*-===//
//
// The references of the three steps that lay the routing's choices out in
// expert blocks (templates/moe/moe_align_*.argus): the experts' padded
// offsets and each block's expert, each block's rows, and each choice's
// row. All three follow one alignment, computed here from the choices.
// Registered in References.cpp; arguments in kernel order.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_REFERENCE_MOEALIGNREFERENCE_H
#define ARGUS_REFERENCE_MOEALIGNREFERENCE_H

#include "argus/Reference/References.h"

#include <random>
#include <string>
#include <vector>

namespace argus::ref {

/// choices: NC; first_row: E + 1; live_blocks: 2.
std::string validateMoeAlignOffsets(const std::vector<RefArg> &args);
/// Per expert e < E its choices padded to blocks of 32 rows, laid end to
/// end: first_row[e] its first row, first_row[E] the routing's end;
/// live_blocks = [0, blocks). A choice outside [0, E) names no expert.
void moeAlignOffsets(std::vector<RefArg> &args);
/// Choices skewed to expert 0 (several blocks), the last of three or more
/// experts named by none, and two choices naming no expert (-1 and E).
void arrangeMoeAlignOffsets(std::vector<RefArg> &args, std::mt19937_64 &rng);

/// choices: NC; first_row: E + 1; live_blocks: 2; block_expert: MB;
/// block_rows: MB x 32.
std::string validateMoeAlignRows(const std::vector<RefArg> &args);
/// block_expert[b]: the expert whose rows hold block b's, -1 past the
/// routing's blocks; block_rows[b, r]: the choice of that expert e whose
/// rank among e's choices (in their order) is 32 b + r - first_row[e], -1
/// when there is none or no expert.
void moeAlignRows(std::vector<RefArg> &args);
/// The choices as for the offsets, first_row and live_blocks as the
/// offsets step leaves them.
void arrangeMoeAlignRows(std::vector<RefArg> &args, std::mt19937_64 &rng);

/// choices: NC; first_row: E + 1; choice_row: NC.
std::string validateMoeAlignChoiceRow(const std::vector<RefArg> &args);
/// choice_row[i] = first_row[e] + the rank of choice i among e's choices,
/// e = choices[i]; -1 when e is outside [0, E).
void moeAlignChoiceRow(std::vector<RefArg> &args);
/// The choices as for the offsets, first_row as the offsets step leaves it.
void arrangeMoeAlignChoiceRow(std::vector<RefArg> &args, std::mt19937_64 &rng);

} // namespace argus::ref

#endif // ARGUS_REFERENCE_MOEALIGNREFERENCE_H
