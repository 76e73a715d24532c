//===- argus_gpu_generated_prefill.h - prefill args as a generated kernel's -===//
//
// The varlen prefill kernels argus-gen generates from
// templates/attention/attention_prefill_cdna.argus (a hip library's) take
// the template's parameters in its order: (Q, K, V, O, cu_seqlens_q,
// cu_seqlens_kv, max_seqlen_q, scale, causal), with the C ABI's layouts
// (argus_kernels.h).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_GENERATED_PREFILL_H
#define ARGUS_GPU_GENERATED_PREFILL_H

#include "argus_gpu_launch.h"
#include "argus_kernels.h"

#include <stdint.h>

namespace argus_rt {

/// The parameters of a generated prefill kernel (struct Params) for the
/// validated call `a`, softmax scale `scale`.
template <class Params>
Params generatedAttentionParams(const argus_attention_prefill_args &a, float scale) {
  const int64_t heads = a.num_heads, kvHeads = a.num_kv_heads, d = a.head_dim, dv = a.v_head_dim;
  // The packed tensors' rows: given, or what max_seqlen bounds (the prefix
  // sums live on the device; the kernel reads them and clamps to these).
  const int64_t rowsQ = a.total_q > 0 ? a.total_q : a.batch * a.max_seqlen_q;
  const int64_t rowsKv = a.total_kv > 0 ? a.total_kv : a.batch * a.max_seqlen_kv;
  Params p{};
  p.Q = {a.q, {rowsQ, heads, d, 0}, {heads * d, d, 1, 0}};
  p.K = {a.k, {rowsKv, kvHeads, d, 0}, {kvHeads * d, d, 1, 0}};
  p.V = {a.v, {rowsKv, kvHeads, dv, 0}, {kvHeads * dv, dv, 1, 0}};
  p.O = {a.o, {rowsQ, heads, dv, 0}, {heads * dv, dv, 1, 0}};
  p.cu_seqlens_q = {a.cu_seqlens_q, {a.batch + 1, 0, 0, 0}, {1, 0, 0, 0}};
  p.cu_seqlens_kv = {a.cu_seqlens_kv, {a.batch + 1, 0, 0, 0}, {1, 0, 0, 0}};
  p.max_seqlen_q = int32_t(a.max_seqlen_q);
  p.scale = scale;
  p.causal = a.causal != 0 ? 1 : 0;
  return p;
}

} // namespace argus_rt

#endif // ARGUS_GPU_GENERATED_PREFILL_H
