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

void attentionPrefillF64(const AttentionShape &s, const double *q, const double *k, const double *v, double *o,
                         double *magnitude) {
  const int64_t group = s.numHeads / s.numKvHeads, d = s.headDim, dv = s.valueDim();
  // Heads are independent: with OpenMP (the GPU benches' host checks at long sequences) they run in parallel.
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic)
#endif
  for (int64_t h = 0; h < s.numHeads; ++h) {
    const int64_t g = h / group;
    std::vector<double> scores(static_cast<size_t>(std::max<int64_t>(s.seqKv, 1)));
    std::vector<double> out(static_cast<size_t>(dv)), mag(static_cast<size_t>(dv));
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
      // Rows of v in the inner loop: contiguous reads (a column walk strides numKvHeads * dv).
      std::fill(out.begin(), out.end(), 0.0);
      std::fill(mag.begin(), mag.end(), 0.0);
      for (int64_t j = 0; j < visible; ++j) {
        const double *vj = v + (j * s.numKvHeads + g) * dv;
        for (int64_t c = 0; c < dv; ++c) {
          out[c] += scores[j] * vj[c];
          mag[c] += scores[j] * std::fabs(vj[c]);
        }
      }
      const int64_t at = (i * s.numHeads + h) * dv;
      for (int64_t c = 0; c < dv; ++c) {
        o[at + c] = visible > 0 ? out[c] / sum : 0.0; // a row that sees no key is zero
        if (magnitude) magnitude[at + c] = visible > 0 ? mag[c] / sum : 0.0;
      }
    }
  }
}

namespace {

/// Tokens [begin, end) of sequence b, gathered from the pages into rows of
/// numKvHeads * headDim (keys) and numKvHeads * valueDim() (values); then every head of its query attends to them: o gets
/// the softmax-weighted mean of the values, lse the log of the denominator
/// (none: o = 0 and lse = -1e30, what the kernels write).
void attendTokens(const PagedDecodeShape &s, int64_t b, int64_t begin, int64_t end, const double *q,
                  const double *kCache, const double *vCache, const int64_t *blockTable, double *o, double *lse,
                  double *magnitude) {
  const int64_t group = s.numHeads / s.numKvHeads, d = s.headDim, dv = s.valueDim();
  const int64_t rowElems = s.numKvHeads * d, vRowElems = s.numKvHeads * dv;
  const int64_t n = std::max<int64_t>(end - begin, 0);
  std::vector<double> k(static_cast<size_t>(n * rowElems)), v(static_cast<size_t>(n * vRowElems)),
      scores(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    const int64_t t = begin + j, page = blockTable[b * s.maxPagesPerSeq + t / s.pageSize];
    const int64_t slot = page * s.pageSize + t % s.pageSize;
    std::copy(kCache + slot * rowElems, kCache + (slot + 1) * rowElems, k.begin() + j * rowElems);
    std::copy(vCache + slot * vRowElems, vCache + (slot + 1) * vRowElems, v.begin() + j * vRowElems);
  }
  for (int64_t h = 0; h < s.numHeads; ++h) {
    const double *qh = q + (b * s.numHeads + h) * d;
    const int64_t g = h / group;
    double maxScore = -INFINITY, sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t c = 0; c < d; ++c) dot += qh[c] * k[j * rowElems + g * d + c];
      maxScore = std::max(maxScore, scores[j] = dot * s.scale);
    }
    for (int64_t j = 0; j < n; ++j) sum += scores[j] = std::exp(scores[j] - maxScore);
    for (int64_t c = 0; c < dv; ++c) {
      double out = 0, mag = 0;
      for (int64_t j = 0; j < n; ++j) {
        const double vj = v[j * vRowElems + g * dv + c];
        out += scores[j] * vj;
        mag += scores[j] * std::fabs(vj);
      }
      o[h * dv + c] = n > 0 ? out / sum : 0.0;
      if (magnitude) magnitude[h * dv + c] = n > 0 ? mag / sum : 0.0;
    }
    if (lse) lse[h] = n > 0 ? maxScore + std::log(sum) : -1e30;
  }
}

} // namespace

void attentionDecodeF64(const PagedDecodeShape &s, const double *q, const double *kCache, const double *vCache,
                        const int64_t *blockTable, const int64_t *seqlens, double *o, double *magnitude) {
  const int64_t row = s.numHeads * s.valueDim();
  for (int64_t b = 0; b < s.batch; ++b)
    attendTokens(s, b, 0, seqlens[b], q, kCache, vCache, blockTable, o + b * row, nullptr,
                 magnitude ? magnitude + b * row : nullptr);
}

void attentionDecodeSplitF64(const PagedDecodeShape &s, int64_t splits, const double *q, const double *kCache,
                             const double *vCache, const int64_t *blockTable, const int64_t *seqlens, double *op,
                             double *lse, double *magnitude) {
  const int64_t perSplit = (s.maxPagesPerSeq + splits - 1) / splits;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t sp = 0; sp < splits; ++sp) {
      const int64_t begin = sp * perSplit * s.pageSize;
      const int64_t end = std::min((sp + 1) * perSplit * s.pageSize, seqlens[b]);
      const int64_t at = b * splits + sp;
      const int64_t row = at * s.numHeads * s.valueDim();
      attendTokens(s, b, begin, end, q, kCache, vCache, blockTable, op + row, lse + at * s.numHeads,
                   magnitude ? magnitude + row : nullptr);
    }
}

} // namespace argus::ref
