//===- AttentionPlan.h - which attention kernels a library holds -*- C++ -*-===//
//
// One prefill kernel per catalog (dtype, head_dim, group) and one decode
// kernel per (dtype, head_dim, group, page_size), plus generic group-1
// kernels for common head dims and dtypes that the runtime runs once per KV
// head for configurations outside the catalog (argus_attention_dispatch.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_EMIT_ATTENTIONPLAN_H
#define ARGUS_EMIT_ATTENTIONPLAN_H

#include "argus/Catalog/OpConfig.h"
#include "argus/Lowering/LowerToArgus.h"

#include <string>
#include <vector>

namespace argus::emit {

enum class AttentionKind { Prefill, Decode };

struct AttentionKernel {
  AttentionKind kind = AttentionKind::Prefill;
  std::string dtype;     // MLIR spelling: "bf16", "f16", "f32"
  int64_t headDim = 0;   // of queries and keys
  int64_t vHeadDim = 0;  // of values and outputs (multi-head latent attention: 128 against 192)
  int64_t group = 1;     // query heads per KV head
  int64_t pageSize = 0;  // decode only
  bool inCatalog = false;
  std::vector<std::string> ops; // catalog ops served
  std::string symbol;

  /// The DSL template, relative to the Argus tree.
  std::string templatePath() const;
  lowering::Specialization specialization() const;
};

/// Kernels for the attention configurations of `configs`, then generic ones
/// (deduplicated: a catalog kernel that is also generic is listed once).
std::vector<AttentionKernel> planAttention(const std::vector<catalog::OpConfig> &configs);

} // namespace argus::emit

#endif // ARGUS_EMIT_ATTENTIONPLAN_H
