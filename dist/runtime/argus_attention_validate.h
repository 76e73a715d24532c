//===- argus_attention_validate.h - are attention arguments well-formed ---===//
//
// The checks every target runs before its attention kernels look at a
// pointer (the first failure wins, INVALID_ARGUMENT unless noted):
//   args NULL; struct_size too small (exactly the size of the struct of a
//   header older than v_head_dim is accepted: v_head_dim is then head_dim);
//   batch < 0; num_heads, num_kv_heads, head_dim < 1; v_head_dim < 0;
//   num_heads % num_kv_heads != 0; sizes overflowing int64;
//   dtype outside the enum; dtype not f32/f16/bf16 (UNSUPPORTED);
//   scale not finite; pointers NULL for a non-empty batch.
// Prefill: max_seqlen_q/kv < 0; cu_seqlens_q/kv NULL (batch + 1 entries).
// Decode:  page_size, max_pages_per_seq < 1.
// cu_seqlens, block_table and seqlens_kv may be device pointers on GPU
// targets, so their contents are not read here.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_ATTENTION_VALIDATE_H
#define ARGUS_RUNTIME_ATTENTION_VALIDATE_H

#include "argus_kernels.h"

namespace argus_rt {

/// Reads `args` into `a` (v_head_dim resolved) and checks it; the last error
/// says "argus_attention_prefill: <what is wrong>".
argus_status validatePrefill(const argus_attention_prefill_args *args, argus_attention_prefill_args &a);

/// The same for argus_attention_decode.
argus_status validateDecode(const argus_attention_decode_args *args, argus_attention_decode_args &a);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_ATTENTION_VALIDATE_H
