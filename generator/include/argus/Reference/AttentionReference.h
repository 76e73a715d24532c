//===- AttentionReference.h - float64 attention -----------------*- C++ -*-===//
//
// The meaning of Argus's attention kernels, in double precision. Tensors are
// packed [tokens, heads, head_dim], row-major. Values (and so outputs) may
// have a head dim of their own (vHeadDim; 0: headDim), as in multi-head
// latent attention, whose queries and keys are 192 wide and values 128.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_REFERENCE_ATTENTIONREFERENCE_H
#define ARGUS_REFERENCE_ATTENTIONREFERENCE_H

#include <cstdint>

namespace argus::ref {

struct AttentionShape {
  int64_t seqQ = 0, seqKv = 0, numHeads = 1, numKvHeads = 1, headDim = 1;
  int64_t vHeadDim = 0; // 0: headDim
  bool causal = false;
  double scale = 1.0;
  int64_t valueDim() const { return vHeadDim ? vHeadDim : headDim; }
};

/// o = softmax(scale * q kᵀ [causal mask]) v for one sequence (q, k of
/// headDim; v, o of valueDim()). Query head h
/// reads KV head h / (numHeads / numKvHeads). Causal masking is aligned
/// bottom-right: query i sees keys j <= i + seqKv - seqQ; a query that sees
/// no key gets zeros. `magnitude` (optional, shaped like o) gets the
/// magnitude of the terms each output sums, sum_j p_j |v_j| (the scale of
/// its rounding error; see Reference::magnitudes).
void attentionPrefillF64(const AttentionShape &shape, const double *q, const double *k, const double *v,
                         double *o, double *magnitude = nullptr);

struct PagedDecodeShape {
  int64_t batch = 0, numHeads = 1, numKvHeads = 1, headDim = 1;
  int64_t vHeadDim = 0;                     // 0: headDim
  int64_t pageSize = 1, maxPagesPerSeq = 1; // block table row length
  double scale = 1.0;
  int64_t valueDim() const { return vHeadDim ? vHeadDim : headDim; }
};

/// One query token per sequence against a paged KV cache: token j of
/// sequence b is row j % pageSize of page blockTable[b * maxPagesPerSeq +
/// j / pageSize] of the caches ([pages, pageSize, numKvHeads, headDim], the
/// value cache valueDim() wide); sequence b has seqlens[b] tokens (none:
/// zeros). q is [batch, numHeads, headDim], o [batch, numHeads, valueDim()].
void attentionDecodeF64(const PagedDecodeShape &shape, const double *q, const double *kCache, const double *vCache,
                        const int64_t *blockTable, const int64_t *seqlens, double *o, double *magnitude = nullptr);

/// The same context cut into `splits` runs of ceil(maxPagesPerSeq / splits)
/// pages (flash-decoding): for each sequence b, split s and head h, op
/// ([batch, splits, numHeads, valueDim()]) gets the attention over that run
/// alone and lse ([batch, splits, numHeads]) the log of its softmax
/// denominator; a run with no token gets op = 0 and lse = -1e30.
/// attentionDecodeF64 is their merge: sum_s exp(lse_s) op_s / sum_s exp(lse_s).
void attentionDecodeSplitF64(const PagedDecodeShape &shape, int64_t splits, const double *q, const double *kCache,
                             const double *vCache, const int64_t *blockTable, const int64_t *seqlens, double *op,
                             double *lse, double *magnitude = nullptr);

} // namespace argus::ref

#endif // ARGUS_REFERENCE_ATTENTIONREFERENCE_H
