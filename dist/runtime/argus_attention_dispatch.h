//===- argus_attention_dispatch.h - which attention kernel runs, and how --===//
//
// The decision (tables in argus_registry.h):
//   kernel with equal (dtype, head_dim, v_head_dim, group[, page_size]) -> it
//   else the group-1 kernel of (dtype, head_dim, v_head_dim[, page_size]), run once per
//        KV head over that head's queries (K and V broadcast with stride 0)
//        -> it, or UNSUPPORTED under ARGUS_STRICT
//   else (decode) a kernel of the same (dtype, head_dim, v_head_dim, group or 1)
//        whose page size divides page_size, on each page as consecutive pages
//        of its size (a block table of those)               -> it, or UNSUPPORTED under ARGUS_STRICT
//   else                                                    -> UNSUPPORTED
// Prefill runs the kernel once per sequence of the varlen batch, on views
// of that sequence's rows; cu_seqlens are read here (host memory on CPU
// targets) and checked first. Decode splits each sequence's context
// (flash-decoding: splits for idle threads, and few enough pages per split
// that a split stays in L2 while the kernel walks it once per KV head), has
// the kernel write each split's partial result into per-thread storage and
// merges the partials into O.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_ATTENTION_DISPATCH_H
#define ARGUS_RUNTIME_ATTENTION_DISPATCH_H

#include "argus_config.h"
#include "argus_kernels.h"
#include "argus_registry.h"

namespace argus_rt {

struct AttentionPlan {
  const argus_attention_kernel *kernel = nullptr;
  bool perKvHead = false; ///< a group-1 kernel run once per KV head
  int64_t pieces = 1;     ///< decode: the kernel's pages to one of the caller's (its page size divides theirs)
};

argus_status planPrefill(const argus_attention_prefill_args &args, const Config &config, AttentionPlan *plan);
argus_status planDecode(const argus_attention_decode_args &args, const Config &config, AttentionPlan *plan);

/// Checks cu_seqlens, then runs `plan`. @pre args are valid, batch > 0, and
/// v_head_dim is resolved (never 0).
argus_status runPrefill(const argus_attention_prefill_args &args, const AttentionPlan &plan, int numThreads);
/// Checks seqlens_kv and block_table entries, then runs `plan`.
argus_status runDecode(const argus_attention_decode_args &args, const AttentionPlan &plan, int numThreads);

} // namespace argus_rt

#endif // ARGUS_RUNTIME_ATTENTION_DISPATCH_H
