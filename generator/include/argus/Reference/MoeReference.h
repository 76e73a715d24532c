//===- MoeReference.h - float64 mixture of experts --------------*- C++ -*-===//
//
// The meaning of argus_moe, in double precision: softmax routing over the
// experts, the top-k of each token (renormalised or not), SwiGLU experts,
// and the weighted sum of their outputs.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_REFERENCE_MOEREFERENCE_H
#define ARGUS_REFERENCE_MOEREFERENCE_H

#include <cstdint>
#include <vector>

namespace argus::ref {

struct MoeShape {
  int64_t tokens = 0, hidden = 1, intermediate = 1, experts = 1, topK = 1;
  bool renormalize = false;
};

/// The top-k experts of one token by router logit, largest first; equal
/// logits prefer the lower expert index. (Softmax is monotonic, so this is
/// also the top-k by probability.)
std::vector<int64_t> topKExperts(const float *logits, int64_t experts, int64_t k);

/// out[t] = sum over the top-k experts e of token t of w_e * down_e(silu(gate_e x_t) * up_e x_t),
/// w = softmax(logits[t]) at those experts (divided by their sum when
/// renormalising). wGateUp is [experts, 2 * intermediate, hidden] with the
/// gate rows first; wDown is [experts, hidden, intermediate].
void moeF64(const MoeShape &shape, const double *x, const float *logits, const double *wGateUp, const double *wDown,
            double *out);

} // namespace argus::ref

#endif // ARGUS_REFERENCE_MOEREFERENCE_H
