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

#include <functional>
#include <string>
#include <vector>

namespace argus::emit {

enum class AttentionKind { Prefill, Decode };

/// Tiles of a prefill kernel: BQ query rows against BKV keys per step.
/// (Decode has none: its splits are chosen at run time.)
struct AttentionTiles {
  int64_t bq = 0, bkv = 0;
  std::string kernel; // a kernel replacing the prefill template ("llm/<hash>.argus"); "" for the template
};

struct AttentionKernel {
  AttentionKind kind = AttentionKind::Prefill;
  std::string dtype;     // MLIR spelling: "bf16", "f16", "f32"
  int64_t headDim = 0;   // of queries and keys
  int64_t vHeadDim = 0;  // of values and outputs (multi-head latent attention: 128 against 192)
  int64_t group = 1;     // query heads per KV head
  int64_t pageSize = 0;  // decode only
  AttentionTiles tiles;  // prefill only
  bool inCatalog = false;
  std::vector<std::string> ops; // catalog ops served
  std::string symbol;

  /// The DSL template, relative to the Argus tree.
  std::string templatePath() const;
  lowering::Specialization specialization() const;
};

/// The tiles of a prefill kernel on the CPU target: the rule a build without
/// tuning uses, and the first candidate of a sweep.
AttentionTiles chooseCpuAttentionTiles(const AttentionKernel &kernel);

/// Up to `budget` prefill tile candidates, the rule's first, then its
/// neighbours (one parameter changed, then both).
std::vector<AttentionTiles> cpuAttentionCandidates(const AttentionKernel &kernel, int budget);

/// Chooses the tiles of a catalog prefill kernel.
using AttentionTileChooser = std::function<AttentionTiles(const AttentionKernel &kernel)>;

/// Kernels for the attention configurations of `configs`, tiles of catalog
/// prefill kernels by `choose`, then generic ones, tiles by rule
/// (deduplicated: a catalog kernel that is also generic is listed once).
std::vector<AttentionKernel> planAttention(const std::vector<catalog::OpConfig> &configs,
                                           const AttentionTileChooser &choose = chooseCpuAttentionTiles);

} // namespace argus::emit

#endif // ARGUS_EMIT_ATTENTIONPLAN_H
