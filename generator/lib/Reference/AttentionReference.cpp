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

void attentionDecodeF64(const PagedDecodeShape &s, const double *q, const double *kCache, const double *vCache,
                        const int64_t *blockTable, const int64_t *seqlens, double *o) {
  const int64_t rowElems = s.numKvHeads * s.headDim, qElems = s.numHeads * s.headDim;
  std::vector<double> k, v;
  for (int64_t b = 0; b < s.batch; ++b) {
    // Gather the sequence's keys and values, then it is prefill of one query.
    const int64_t n = seqlens[b];
    k.resize(size_t(n * rowElems));
    v.resize(size_t(n * rowElems));
    for (int64_t j = 0; j < n; ++j) {
      const int64_t page = blockTable[b * s.maxPagesPerSeq + j / s.pageSize];
      const int64_t row = (page * s.pageSize + j % s.pageSize) * rowElems;
      std::copy(kCache + row, kCache + row + rowElems, k.begin() + j * rowElems);
      std::copy(vCache + row, vCache + row + rowElems, v.begin() + j * rowElems);
    }
    AttentionShape one;
    one.seqQ = 1, one.seqKv = n, one.numHeads = s.numHeads, one.numKvHeads = s.numKvHeads;
    one.headDim = s.headDim, one.scale = s.scale;
    attentionPrefillF64(one, q + b * qElems, k.data(), v.data(), o + b * qElems);
  }
}

} // namespace argus::ref
