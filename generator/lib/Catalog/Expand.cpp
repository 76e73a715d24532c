//===- Expand.cpp - a catalog's op configurations -------------------------===//
//
// The shapes one tensor-parallel rank of a decoder-only transformer runs
// (Megatron-style split: qkv and gate_up split along N, o and down along K,
// lm_head along the vocabulary). Weights are [N, K] (y = x W^T), as in HF
// checkpoints and argus_gemm_args.
//
//   qkv      N = (heads + 2 kv_heads) head_dim / tp   K = hidden
//   o        N = hidden                               K = heads head_dim / tp
//   gate_up  N = 2 intermediate / tp                  K = hidden
//   down     N = hidden                               K = intermediate / tp
//   lm_head  N = vocab / tp                           K = hidden
//
// A MoE model has, instead of gate_up/down: the router GEMM (N = experts,
// replicated on every rank as in vLLM), the routed experts as one MoE config
// (expert FFN width split by tp), and the shared expert, if any, as dense
// gate_up/down GEMMs. buildCatalog() guarantees every division is exact.
//
//===----------------------------------------------------------------------===//
#include "argus/Catalog/OpConfig.h"

#include <algorithm>

namespace argus::catalog {

std::string_view opKindName(OpKind kind) {
  switch (kind) {
  case OpKind::Gemm: return "gemm";
  case OpKind::AttentionPrefill: return "attn_prefill";
  case OpKind::AttentionDecode: return "attn_decode";
  case OpKind::Moe: return "moe";
  }
  return "?";
}

namespace {

std::string shapeFields(const OpConfig &op) {
  std::string s;
  auto field = [&](const char *prefix, int64_t v) { s += "." + std::string(prefix) + std::to_string(v); };
  switch (op.kind) {
  case OpKind::Gemm:
    field("n", op.gemm().n);
    field("k", op.gemm().k);
    break;
  case OpKind::AttentionPrefill:
  case OpKind::AttentionDecode: {
    const AttentionParams &a = op.attention();
    field("h", a.num_heads);
    field("kv", a.num_kv_heads);
    field("d", a.head_dim);
    if (a.valueDim() != a.head_dim) field("dv", a.valueDim());
    if (op.kind == OpKind::AttentionPrefill) {
      s += a.causal ? ".causal" : ".full";
    } else {
      field("page", a.page_size);
      field("ctx", a.max_context);
    }
    break;
  }
  case OpKind::Moe:
    field("e", op.moe().num_experts);
    field("top", op.moe().top_k);
    field("h", op.moe().hidden);
    field("i", op.moe().intermediate);
    break;
  }
  return s + "." + std::string(dtypeName(op.dtype));
}

std::string bucketSummary(const char *what, const std::vector<int64_t> &buckets) {
  std::string s = std::string(what) + " in {";
  if (buckets.size() <= 6) {
    for (size_t i = 0; i < buckets.size(); ++i) s += (i ? "," : "") + std::to_string(buckets[i]);
  } else {
    s += std::to_string(buckets.front()) + "," + std::to_string(buckets[1]) + ",...," +
         std::to_string(buckets.back());
  }
  return s + "} (" + std::to_string(buckets.size()) + " buckets)";
}

OpConfig gemm(const char *name, Dtype dtype, int64_t n, int64_t k,
              const std::vector<int64_t> &buckets) {
  OpConfig op;
  op.kind = OpKind::Gemm;
  op.name = name;
  op.dtype = dtype;
  op.m_buckets = buckets;
  op.params = GemmParams{n, k};
  return op;
}

} // namespace

std::string OpConfig::key() const {
  std::string kindName(opKindName(kind));
  // Attention and MoE have one role each; their kind names them already.
  if (kind == OpKind::Gemm) return kindName + "." + name + shapeFields(*this);
  return kindName + shapeFields(*this);
}

std::string OpConfig::shapeKey() const { return std::string(opKindName(kind)) + shapeFields(*this); }

std::string OpConfig::describe() const {
  std::string d(dtypeName(dtype));
  switch (kind) {
  case OpKind::Gemm: {
    std::string n = std::to_string(gemm().n), k = std::to_string(gemm().k);
    return "gemm " + name + ": C[M," + n + "] = A[M," + k + "] * B[" + n + "," + k + "]^T (" + d +
           ", f32 accumulate), " + bucketSummary("M", m_buckets);
  }
  case OpKind::AttentionPrefill:
  case OpKind::AttentionDecode: {
    const AttentionParams &a = attention();
    std::string s = std::string(kind == OpKind::AttentionPrefill ? "attention prefill" : "attention decode") +
                    ": " + std::to_string(a.num_heads) + " heads, " + std::to_string(a.num_kv_heads) +
                    " KV heads, head_dim " + std::to_string(a.head_dim) +
                    (a.valueDim() != a.head_dim ? " (values " + std::to_string(a.valueDim()) + ")" : "") + " (" + d +
                    ")";
    if (kind == OpKind::AttentionPrefill)
      return s + (a.causal ? ", causal" : ", non-causal") + ", " + bucketSummary("tokens", m_buckets);
    return s + ", paged KV (" + std::to_string(a.page_size) + " tokens per page, context up to " +
           std::to_string(a.max_context) + "), " + bucketSummary("batch", m_buckets);
  }
  case OpKind::Moe: {
    const MoeParams &m = moe();
    return "moe " + name + ": " + std::to_string(m.num_experts) + " experts, top-" +
           std::to_string(m.top_k) + ", hidden " + std::to_string(m.hidden) + ", intermediate " +
           std::to_string(m.intermediate) + " per rank, SwiGLU (" + d + "), " +
           bucketSummary("tokens", m_buckets);
  }
  }
  return key();
}

std::vector<OpConfig> expand(const Catalog &catalog) {
  const Architecture &a = catalog.arch;
  const Serving &s = catalog.serving;
  const int64_t tp = s.tensor_parallel;
  const Dtype dt = catalog.dtype;

  std::vector<int64_t> tokens = s.decode_batch;
  tokens.insert(tokens.end(), s.prefill_tokens.begin(), s.prefill_tokens.end());
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());

  const int64_t heads = a.num_attention_heads / tp;
  const int64_t kvHeads = a.num_key_value_heads / tp;
  std::vector<OpConfig> ops;
  if (!a.mla) {
    ops.push_back(gemm("qkv", dt, (heads + 2 * kvHeads) * a.head_dim, a.hidden_size, tokens));
  } else {
    // Multi-head latent attention, un-absorbed: queries (through a low-rank
    // latent when q_lora_rank is given), the compressed KV latent with the
    // shared rotary key part (replicated on every rank), and its expansion
    // into every head's no-position key part and value.
    const MlaArchitecture &m = *a.mla;
    if (m.q_lora_rank) {
      ops.push_back(gemm("q_a", dt, m.q_lora_rank, a.hidden_size, tokens));
      ops.push_back(gemm("q_b", dt, heads * a.head_dim, m.q_lora_rank, tokens));
    } else {
      ops.push_back(gemm("q", dt, heads * a.head_dim, a.hidden_size, tokens));
    }
    ops.push_back(gemm("kv_a", dt, m.kv_lora_rank + m.qk_rope_head_dim, a.hidden_size, tokens));
    ops.push_back(gemm("kv_b", dt, heads * (m.qk_nope_head_dim + m.v_head_dim), m.kv_lora_rank, tokens));
  }
  ops.push_back(gemm("o", dt, a.hidden_size, heads * a.v_head_dim, tokens));
  if (!a.moe || a.moe->first_k_dense_replace) { // dense MLP layers (all, or a MoE model's first ones)
    ops.push_back(gemm("gate_up", dt, 2 * a.intermediate_size / tp, a.hidden_size, tokens));
    ops.push_back(gemm("down", dt, a.hidden_size, a.intermediate_size / tp, tokens));
  }
  if (a.moe) {
    const MoeArchitecture &m = *a.moe;
    ops.push_back(gemm("router", dt, m.num_experts, a.hidden_size, tokens));
    if (m.shared_expert_intermediate_size) {
      int64_t shared = m.shared_expert_intermediate_size / tp;
      ops.push_back(gemm("shared_gate_up", dt, 2 * shared, a.hidden_size, tokens));
      ops.push_back(gemm("shared_down", dt, a.hidden_size, shared, tokens));
    }
  }
  ops.push_back(gemm("lm_head", dt, a.vocab_size / tp, a.hidden_size, tokens));

  if (a.moe) {
    OpConfig op;
    op.kind = OpKind::Moe;
    op.name = "experts";
    op.dtype = dt;
    op.m_buckets = tokens;
    op.params = MoeParams{a.moe->num_experts, a.moe->num_experts_per_tok, a.hidden_size,
                          a.moe->moe_intermediate_size / tp};
    ops.push_back(std::move(op));
  }

  OpConfig prefill;
  prefill.kind = OpKind::AttentionPrefill;
  prefill.name = "prefill";
  prefill.dtype = dt;
  prefill.m_buckets = s.prefill_tokens;
  AttentionParams attention;
  attention.num_heads = heads;
  attention.num_kv_heads = kvHeads;
  attention.head_dim = a.head_dim;
  attention.v_head_dim = a.v_head_dim;
  AttentionParams prefillParams = attention;
  prefillParams.causal = true;
  prefill.params = prefillParams;
  ops.push_back(std::move(prefill));

  OpConfig decode;
  decode.kind = OpKind::AttentionDecode;
  decode.name = "decode";
  decode.dtype = dt;
  decode.m_buckets = s.decode_batch;
  AttentionParams decodeParams = attention;
  decodeParams.page_size = s.kv_page_size;
  decodeParams.max_context = s.max_context;
  decode.params = decodeParams;
  ops.push_back(std::move(decode));
  return ops;
}

} // namespace argus::catalog
