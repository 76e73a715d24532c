//===- AttentionPlan.cpp - attention kernel instances for a catalog -------===//
#include "argus/Emit/AttentionPlan.h"

#include "argus/Emit/KernelInstance.h"

#include <algorithm>

namespace argus::emit {

namespace {

// Tile sizes of the CPU kernels by rule: BQ query rows against BKV keys per
// step keeps the score tile (BQ x BKV f32) and the accumulator (BQ x D f32)
// in L1/L2. Each instance packs every key and value block it reads, so
// taller query tiles pack them less often: 128 rows where the head fits the
// stack budget (D and DV <= 128), 64 otherwise. At S = 2048, one thread:
// f32 1.1x over 64 rows (which was 1.1-1.3x over 32); bf16 1.55x over 32 on
// AMX, whose products are so fast that packing was most of the time, 1.15x
// on AVX2.
constexpr int64_t kPrefillBlockKv = 64;
// Candidate bounds: 256 query rows exceed the stack budget of a program
// instance (f32, D = 128: 818 KiB of 512); key steps under 32 leave the mma
// too little work per pack.
constexpr int64_t kMinBlockQ = 16, kMaxBlockQ = 128, kMinBlockKv = 32, kMaxBlockKv = 128;
// Page size of the generic decode kernels (vLLM's default block size).
constexpr int64_t kGenericPageSize = 16;

std::string symbolOf(const AttentionKernel &k) {
  std::string s = k.kind == AttentionKind::Prefill ? "argusk_attn_prefill_" : "argusk_attn_decode_";
  s += k.dtype + "_d" + std::to_string(k.headDim);
  if (k.vHeadDim != k.headDim) s += "_dv" + std::to_string(k.vHeadDim);
  s += "_g" + std::to_string(k.group);
  if (k.kind == AttentionKind::Decode) s += "_p" + std::to_string(k.pageSize);
  return s + replacementSymbolSuffix(k.tiles.kernel);
}

} // namespace

std::string AttentionKernel::templatePath() const {
  if (kind == AttentionKind::Prefill && !tiles.kernel.empty()) return tiles.kernel;
  return kind == AttentionKind::Prefill ? "templates/attention/attention_prefill.argus"
                                        : "templates/attention/attention_decode.argus";
}

lowering::Specialization AttentionKernel::specialization() const {
  lowering::Specialization s;
  s.constants["T"] = dtype;
  s.constants["D"] = headDim;
  s.constants["DV"] = vHeadDim;
  s.constants["GROUP"] = group;
  if (kind == AttentionKind::Prefill) {
    s.constants["BQ"] = tiles.bq;
    s.constants["BKV"] = tiles.bkv;
  } else {
    s.constants["PAGE"] = pageSize;
  }
  return s;
}

AttentionTiles chooseCpuAttentionTiles(const AttentionKernel &kernel) {
  return {kernel.headDim <= 128 && kernel.vHeadDim <= 128 ? 128 : 64, kPrefillBlockKv};
}

std::vector<AttentionTiles> cpuAttentionCandidates(const AttentionKernel &kernel, int budget) {
  const AttentionTiles rule = chooseCpuAttentionTiles(kernel);
  std::vector<AttentionTiles> out = {rule};
  auto add = [&](int64_t bq, int64_t bkv) {
    bool legal = bq >= kMinBlockQ && bq <= kMaxBlockQ && bkv >= kMinBlockKv && bkv <= kMaxBlockKv;
    bool seen = std::any_of(out.begin(), out.end(), [&](const AttentionTiles &t) { return t.bq == bq && t.bkv == bkv; });
    if (legal && !seen) out.push_back({bq, bkv});
  };
  // The query rows first (they set how often keys are packed), then the key step.
  for (int64_t bq : {rule.bq * 2, rule.bq / 2}) add(bq, rule.bkv);
  for (int64_t bkv : {rule.bkv * 2, rule.bkv / 2}) add(rule.bq, bkv);
  for (int64_t bq : {rule.bq * 2, rule.bq / 2})
    for (int64_t bkv : {rule.bkv * 2, rule.bkv / 2}) add(bq, bkv);
  if (int(out.size()) > budget) out.resize(size_t(std::max(budget, 1)));
  return out;
}

std::vector<AttentionKernel> planAttention(const std::vector<catalog::OpConfig> &configs,
                                           const AttentionTileChooser &choose) {
  std::vector<AttentionKernel> kernels;
  auto add = [&](AttentionKernel k, const std::string &op) {
    k.symbol = symbolOf(k);
    auto it = std::find_if(kernels.begin(), kernels.end(), [&](const AttentionKernel &e) { return e.symbol == k.symbol; });
    if (it == kernels.end()) {
      kernels.push_back(k);
      it = kernels.end() - 1;
    }
    it->inCatalog = it->inCatalog || k.inCatalog;
    if (!op.empty() && std::find(it->ops.begin(), it->ops.end(), op) == it->ops.end())
      it->ops.push_back(op);
  };
  for (const catalog::OpConfig &c : configs) {
    if (c.kind != catalog::OpKind::AttentionPrefill && c.kind != catalog::OpKind::AttentionDecode)
      continue;
    const catalog::AttentionParams &p = c.attention();
    AttentionKernel k;
    k.kind = c.kind == catalog::OpKind::AttentionPrefill ? AttentionKind::Prefill : AttentionKind::Decode;
    k.dtype = std::string(catalog::dtypeName(c.dtype));
    k.headDim = p.head_dim;
    k.vHeadDim = p.valueDim();
    k.group = p.num_heads / p.num_kv_heads;
    k.pageSize = k.kind == AttentionKind::Decode ? p.page_size : 0;
    k.inCatalog = true;
    if (k.kind == AttentionKind::Prefill) k.tiles = choose(k);
    add(k, c.name);
  }
  // Generic kernels: any head count through per-KV-head launches.
  for (AttentionKind kind : {AttentionKind::Prefill, AttentionKind::Decode})
    for (const char *dtype : {"bf16", "f16", "f32"})
      for (int64_t headDim : {64, 128}) {
        AttentionKernel k;
        k.kind = kind;
        k.dtype = dtype;
        k.headDim = headDim;
        k.vHeadDim = headDim;
        k.pageSize = kind == AttentionKind::Decode ? kGenericPageSize : 0;
        if (kind == AttentionKind::Prefill) k.tiles = chooseCpuAttentionTiles(k);
        add(k, "");
      }
  return kernels;
}

} // namespace argus::emit
