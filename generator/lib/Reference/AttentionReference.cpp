//===- AttentionReference.cpp - float64 attention -------------------------===//
//
// Prefill attention of one sequence in double precision: the reference of
// templates/attention/attention_prefill.argus and of the runtime's tests.
//
//===----------------------------------------------------------------------===//
#include "argus/Reference/AttentionReference.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace argus::ref {

void attentionPrefillF64(const AttentionShape &s, const double *q, const double *k, const double *v, double *o) {
  const int64_t group = s.numHeads / s.numKvHeads, d = s.headDim;
  std::vector<double> scores(static_cast<size_t>(std::max<int64_t>(s.seqKv, 1)));
  for (int64_t h = 0; h < s.numHeads; ++h) {
    const int64_t g = h / group;
    for (int64_t i = 0; i < s.seqQ; ++i) {
      // Bottom-right causal alignment: query i sees keys j <= i + seqKv - seqQ.
      const int64_t visible = s.causal ? std::clamp<int64_t>(i + s.seqKv - s.seqQ + 1, 0, s.seqKv) : s.seqKv;
      const double *qi = q + (i * s.numHeads + h) * d;
      double maxScore = -INFINITY;
      for (int64_t j = 0; j < visible; ++j) {
        const double *kj = k + (j * s.numKvHeads + g) * d;
        double dot = 0;
        for (int64_t c = 0; c < d; ++c) dot += qi[c] * kj[c];
        scores[j] = dot * s.scale;
        maxScore = std::max(maxScore, scores[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < visible; ++j) sum += scores[j] = std::exp(scores[j] - maxScore);
      double *oi = o + (i * s.numHeads + h) * d;
      for (int64_t c = 0; c < d; ++c) {
        double out = 0;
        for (int64_t j = 0; j < visible; ++j) out += scores[j] * v[(j * s.numKvHeads + g) * d + c];
        oi[c] = visible > 0 ? out / sum : 0.0; // a row that sees no key is zero
      }
    }
  }
}

} // namespace argus::ref
