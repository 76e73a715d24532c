//===- OpConfig.h - op configurations a catalog expands into ---*- C++ -*-===//
//
// The sweep tunes kernels per op configuration: the static dimensions of one
// GEMM, attention or MoE call of the model on one tensor-parallel rank, plus
// the buckets of its dynamic token dimension. expand() derives them from a
// catalog (DESIGN.md, "Shape catalogs"). For Llama-3-8B at TP 1:
//
//   gemm.qkv.n6144.k4096.bf16        y = x W^T, W is N x K (per rank)
//   gemm.o.n4096.k4096.bf16
//   gemm.gate_up.n28672.k4096.bf16
//   gemm.down.n4096.k14336.bf16
//   gemm.lm_head.n128256.k4096.bf16
//   attn_prefill.h32.kv8.d128.causal.bf16
//   attn_decode.h32.kv8.d128.page16.ctx8192.bf16
//
// A MoE model replaces gate_up/down by `gemm.router` (N = experts, K = hidden,
// replicated) and one `moe.e8.top2.h4096.i14336.bf16` config, plus
// `gemm.shared_gate_up` / `gemm.shared_down` when it has a shared expert;
// it keeps gate_up/down when its first layers are dense (DeepSeek's
// first_k_dense_replace). Multi-head latent attention replaces qkv by
// `gemm.q` (or `gemm.q_a` and `gemm.q_b` through a query latent),
// `gemm.kv_a` (N = kv_lora_rank + qk_rope_head_dim) and `gemm.kv_b`
// (N = heads * (qk_nope + v head dims), K = kv_lora_rank); its attention has
// queries and keys of qk_nope + qk_rope and values of v_head_dim
// (attn_prefill.h16.kv16.d192.dv128...).
//
// Keys are stable: they name tuning-database rows and manifest entries.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_CATALOG_OPCONFIG_H
#define ARGUS_CATALOG_OPCONFIG_H

#include "argus/Catalog/Catalog.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace argus::catalog {

enum class OpKind { Gemm, AttentionPrefill, AttentionDecode, Moe };

/// "gemm", "attn_prefill", "attn_decode", "moe": the first field of a key.
std::string_view opKindName(OpKind kind);

/// C[M, N] = A[M, K] * B[N, K]^T with M dynamic (tokens).
struct GemmParams {
  int64_t n = 0;
  int64_t k = 0;
};

/// Attention over one rank's heads (GQA: num_heads % num_kv_heads == 0).
/// Prefill: causal; decode: paged KV cache of page_size tokens per page,
/// sequences up to max_context tokens.
struct AttentionParams {
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;      // of queries and keys
  int64_t v_head_dim = 0;    // of values and outputs; 0: head_dim (differs in multi-head latent attention)
  bool causal = false;       // prefill only
  int64_t page_size = 0;     // decode only
  int64_t max_context = 0;   // decode only
  int64_t maxPagesPerSeq() const { return page_size ? (max_context + page_size - 1) / page_size : 0; }
  int64_t valueDim() const { return v_head_dim ? v_head_dim : head_dim; }
};

/// Top-k routed SwiGLU experts on one rank (argus_moe_args):
/// w_gate_up [experts, 2*intermediate, hidden], w_down [experts, hidden, intermediate].
struct MoeParams {
  int64_t num_experts = 0;
  int64_t top_k = 0;
  int64_t hidden = 0;
  int64_t intermediate = 0; // moe_intermediate_size / tensor_parallel
};

struct OpConfig {
  OpKind kind = OpKind::Gemm;
  /// Role in the model: qkv, o, gate_up, down, lm_head, router, shared_gate_up,
  /// shared_down (GEMMs); prefill, decode (attention); experts (MoE).
  std::string name;
  Dtype dtype = Dtype::BF16;
  /// Buckets of the dynamic dimension, strictly increasing: GEMM M and MoE
  /// num_tokens get the union of decode_batch and prefill_tokens; prefill
  /// attention gets prefill_tokens (total query tokens); decode attention gets
  /// decode_batch (sequences).
  std::vector<int64_t> m_buckets;
  std::variant<GemmParams, AttentionParams, MoeParams> params;

  const GemmParams &gemm() const { return std::get<GemmParams>(params); }
  const AttentionParams &attention() const { return std::get<AttentionParams>(params); }
  const MoeParams &moe() const { return std::get<MoeParams>(params); }

  /// Stable identifier, e.g. "gemm.qkv.n6144.k4096.bf16".
  std::string key() const;
  /// The key without the role name ("gemm.n4096.k4096.bf16"): two roles with
  /// the same static shape (o and down of some models) share one kernel.
  std::string shapeKey() const;
  /// One human-readable line, e.g.
  /// "gemm qkv: C[M,6144] = A[M,4096] * B[6144,4096]^T (bf16), M in {1,...,8192} (15 buckets)".
  std::string describe() const;
};

/// Expands a loaded (hence valid) catalog into the op configurations of one
/// tensor-parallel rank, in a fixed order: GEMMs in layer order (qkv, o, MLP
/// or router/shared expert, lm_head), MoE, attention prefill, attention decode.
std::vector<OpConfig> expand(const Catalog &catalog);

} // namespace argus::catalog

#endif // ARGUS_CATALOG_OPCONFIG_H
