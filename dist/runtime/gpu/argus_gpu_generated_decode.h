//===- argus_gpu_generated_decode.h - decode args as a generated kernel's ---===//
//
// The paged decode kernels argus-gen generates from
// templates/attention/attention_decode_cdna.argus (a hip library's) take the
// template's parameters in its order: (Q, Kc, Vc, block_table, seqlens, O,
// scale), with the C ABI's layouts (argus_kernels.h).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_GPU_GENERATED_DECODE_H
#define ARGUS_GPU_GENERATED_DECODE_H

#include "argus_gpu_launch.h"
#include "argus_kernels.h"

#include <stdint.h>

namespace argus_rt {

/// The parameters of a generated decode kernel (struct Params) for the
/// validated call `a`, softmax scale `scale`.
template <class Params>
Params generatedAttentionParams(const argus_attention_decode_args &a, float scale) {
  const int64_t batch = a.batch, heads = a.num_heads, kvHeads = a.num_kv_heads, d = a.head_dim, dv = a.v_head_dim;
  const int64_t page = a.page_size, maxPages = a.max_pages_per_seq;
  // The caches' page count is not in the ABI: block_table's entries are int32
  // page indices the caller vouches for, so they bound the page dimension.
  const int64_t pages = INT32_MAX;
  Params p{};
  p.Q = {a.q, {batch, heads, d, 0}, {heads * d, d, 1, 0}};
  p.Kc = {a.k_cache, {pages, page, kvHeads, d}, {page * kvHeads * d, kvHeads * d, d, 1}};
  p.Vc = {a.v_cache, {pages, page, kvHeads, dv}, {page * kvHeads * dv, kvHeads * dv, dv, 1}};
  p.block_table = {a.block_table, {batch, maxPages, 0, 0}, {maxPages, 1, 0, 0}};
  p.seqlens = {a.seqlens_kv, {batch, 0, 0, 0}, {1, 0, 0, 0}};
  p.O = {a.o, {batch, heads, dv, 0}, {heads * dv, dv, 1, 0}};
  p.scale = scale;
  return p;
}

} // namespace argus_rt

#endif // ARGUS_GPU_GENERATED_DECODE_H
