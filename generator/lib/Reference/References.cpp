//===- References.cpp - float64 references and output comparison ----------===//
#include "argus/Reference/References.h"

#include "argus/Reference/AttentionReference.h"
#include "GroupedMoeReference.h"
#include "MoeAlignReference.h"
#include "MoeRoutingReference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace argus::ref {

namespace {

RefArg &argNamed(std::vector<RefArg> &args, const std::string &name) {
  for (RefArg &a : args)
    if (a.name == name)
      return a;
  return args.front(); // unreachable: names are checked before compute()
}

/// C = alpha * A·Bᵀ + beta * C (+ bias), all in double.
void gemmTn(std::vector<RefArg> &args) {
  RefArg &A = argNamed(args, "A"), &B = argNamed(args, "B"), &C = argNamed(args, "C");
  RefArg &bias = argNamed(args, "bias");
  double alpha = argNamed(args, "alpha").scalar, beta = argNamed(args, "beta").scalar;
  bool hasBias = argNamed(args, "has_bias").scalar != 0;
  int64_t M = A.shape[0], K = A.shape[1], N = B.shape[0];
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double sum = 0;
      for (int64_t k = 0; k < K; ++k)
        sum += A.data[m * K + k] * B.data[n * K + k];
      double out = alpha * sum;
      if (beta != 0)
        out += beta * C.data[m * N + n];
      if (hasBias)
        out += bias.data[n];
      C.data[m * N + n] = out;
    }
}

/// A is M x K, B is N x K, C is M x N, bias has N elements.
std::string validateGemmTn(const std::vector<RefArg> &args) {
  const std::vector<int64_t> &A = args[0].shape, &B = args[1].shape, &C = args[2].shape, &bias = args[3].shape;
  if (A.size() != 2 || B.size() != 2 || C.size() != 2 || bias.size() != 1)
    return "gemm_tn expects A, B, C of rank 2 and bias of rank 1";
  if (A[1] != B[1])
    return "gemm_tn expects A (M x K) and B (N x K) to share K";
  if (C[0] != A[0] || C[1] != B[0])
    return "gemm_tn expects C to be M x N";
  if (bias[0] != B[0])
    return "gemm_tn expects bias to have N elements";
  return "";
}

/// Q: SQ x H x D; K: SKV x KVH x D; V: SKV x KVH x DV; O: SQ x H x DV; H a
/// multiple of KVH.
std::string validateAttentionPrefill(const std::vector<RefArg> &args) {
  const std::vector<int64_t> &Q = args[0].shape, &K = args[1].shape, &V = args[2].shape, &O = args[3].shape;
  if (Q.size() != 3 || K.size() != 3 || V.size() != 3 || O.size() != 3)
    return "attention_prefill expects Q, K, V, O of rank 3 ([tokens, heads, head_dim])";
  if (K[0] != V[0] || K[1] != V[1])
    return "attention_prefill expects K and V with the same tokens and heads";
  if (O[0] != Q[0] || O[1] != Q[1] || O[2] != V[2])
    return "attention_prefill expects O shaped like Q with V's head_dim";
  if (Q[2] != K[2])
    return "attention_prefill expects Q and K to share head_dim";
  if (K[1] < 1 || Q[1] % K[1] != 0)
    return "attention_prefill expects the query heads to be a multiple of the KV heads";
  return "";
}

AttentionShape prefillShape(std::vector<RefArg> &args) {
  RefArg &Q = argNamed(args, "Q"), &K = argNamed(args, "K"), &V = argNamed(args, "V");
  AttentionShape shape;
  shape.seqQ = Q.shape[0];
  shape.numHeads = Q.shape[1];
  shape.headDim = Q.shape[2];
  shape.vHeadDim = V.shape[2];
  shape.seqKv = K.shape[0];
  shape.numKvHeads = K.shape[1];
  shape.scale = argNamed(args, "scale").scalar;
  shape.causal = argNamed(args, "causal").scalar != 0;
  return shape;
}

bool hasArg(const std::vector<RefArg> &args, const std::string &name) {
  return std::any_of(args.begin(), args.end(), [&](const RefArg &a) { return a.name == name; });
}

/// Calls fn(shape, first query row, first key row) for each sequence: those
/// cu_seqlens_q / cu_seqlens_kv cut from a varlen batch, or the whole tensors.
void forEachSequence(std::vector<RefArg> &args,
                     const std::function<void(const AttentionShape &, int64_t, int64_t)> &fn) {
  AttentionShape shape = prefillShape(args);
  if (!hasArg(args, "cu_seqlens_q"))
    return fn(shape, 0, 0);
  const std::vector<double> &q = argNamed(args, "cu_seqlens_q").data, &kv = argNamed(args, "cu_seqlens_kv").data;
  for (size_t b = 0; b + 1 < q.size(); ++b) {
    shape.seqQ = int64_t(q[b + 1] - q[b]);
    shape.seqKv = int64_t(kv[b + 1] - kv[b]);
    fn(shape, int64_t(q[b]), int64_t(kv[b]));
  }
}

/// Each sequence's attention into O (and `magnitude`, when given); rows of no
/// sequence are left as they are.
void prefillSequences(std::vector<RefArg> &args, std::vector<double> &o, std::vector<double> *magnitude) {
  const double *q = argNamed(args, "Q").data.data(), *k = argNamed(args, "K").data.data(),
               *v = argNamed(args, "V").data.data();
  forEachSequence(args, [&](const AttentionShape &s, int64_t q0, int64_t kv0) {
    const int64_t qRow = s.numHeads * s.headDim, kRow = s.numKvHeads * s.headDim, vRow = s.numKvHeads * s.valueDim(),
                  oRow = s.numHeads * s.valueDim();
    attentionPrefillF64(s, q + q0 * qRow, k + kv0 * kRow, v + kv0 * vRow, o.data() + q0 * oRow,
                        magnitude ? magnitude->data() + q0 * oRow : nullptr);
  });
}

void attentionPrefill(std::vector<RefArg> &args) { prefillSequences(args, argNamed(args, "O").data, nullptr); }

std::map<std::string, std::vector<double>> attentionPrefillMagnitudes(std::vector<RefArg> &args) {
  std::vector<double> out(argNamed(args, "O").data.size()), magnitude(out.size());
  prefillSequences(args, out, &magnitude);
  return {{"O", std::move(magnitude)}};
}

/// attention_prefill's tensors, then cu_seqlens_q and cu_seqlens_kv: a
/// sequence per pair of neighbouring entries.
std::string validateAttentionPrefillVarlen(const std::vector<RefArg> &args) {
  if (std::string e = validateAttentionPrefill(args); !e.empty())
    return e;
  const std::vector<int64_t> &cq = args[4].shape, &ckv = args[5].shape;
  if (cq.size() != 1 || cq != ckv || cq[0] < 2)
    return "attention_prefill_varlen expects cu_seqlens_q and cu_seqlens_kv of one length, batch + 1 >= 2";
  return "";
}

/// Cuts `total` rows into the sequences of `cu` (cumulative, from 0), none
/// longer than `most`; sequence 1 is empty when there are three or more, the
/// last takes what is left up to `most`. Rows past the last sequence belong to none.
void cutSequences(RefArg &cu, int64_t total, int64_t most, std::mt19937_64 &rng) {
  const size_t batch = cu.data.size() - 1;
  int64_t at = 0;
  cu.data[0] = 0;
  for (size_t b = 0; b < batch; ++b) {
    const int64_t room = std::min(most, total - at);
    std::uniform_int_distribution<int64_t> length(0, std::max<int64_t>(room, 0));
    at += b == 1 && batch >= 3 ? 0 : b + 1 == batch ? room : length(rng);
    cu.data[b + 1] = double(at);
  }
}

/// Valid cumulative lengths: queries kept to max_seqlen_q, keys any length.
void arrangeVarlenPrefillInputs(std::vector<RefArg> &args, std::mt19937_64 &rng) {
  const int64_t maxQ = int64_t(argNamed(args, "max_seqlen_q").scalar);
  cutSequences(argNamed(args, "cu_seqlens_q"), argNamed(args, "Q").shape[0], std::max<int64_t>(maxQ, 0), rng);
  cutSequences(argNamed(args, "cu_seqlens_kv"), argNamed(args, "K").shape[0], argNamed(args, "K").shape[0], rng);
}

/// Q: B x H x D; O: B x H x DV; Kc: P x PAGE x KVH x D; Vc: P x PAGE x KVH x
/// DV; block_table: B x MP; seqlens: B.
std::string validateAttentionDecode(const std::vector<RefArg> &args) {
  const std::vector<int64_t> &Q = args[0].shape, &K = args[1].shape, &V = args[2].shape, &table = args[3].shape,
                             &lens = args[4].shape, &O = args[5].shape;
  if (Q.size() != 3 || K.size() != 4 || V.size() != 4 || !std::equal(K.begin(), K.end() - 1, V.begin()) ||
      table.size() != 2 || lens.size() != 1 || O.size() != 3 || O[0] != Q[0] || O[1] != Q[1] || O[2] != V[3])
    return "attention_decode expects Q of [batch, heads, head_dim], O of [batch, heads, v_head_dim], Kc and Vc of "
           "[pages, page_size, kv_heads, head_dim or v_head_dim], block_table of [batch, max_pages] and seqlens of "
           "[batch]";
  if (table[0] != Q[0] || lens[0] != Q[0])
    return "attention_decode expects block_table and seqlens to have a row per sequence";
  if (K[3] != Q[2] || K[2] < 1 || Q[1] % K[2] != 0)
    return "attention_decode expects a shared head_dim and query heads a multiple of the KV heads";
  return "";
}

/// Valid page indices and lengths: the first sequence fills its block table,
/// a second (if any) is empty, the rest are random; pages may be shared.
/// Entries past a sequence's last page are out of use, and the C ABI lets
/// them hold anything: with two pages or more they name the last page, which
/// no sequence uses and whose keys and values are NaN, so a kernel that reads
/// a page through such an entry gets NaN into its output. Slots of a last
/// page past the context may hold anything too: where the pages suffice,
/// each sequence's last page is its own and those slots are NaN (a kernel
/// that weighs them by zero instead of leaving them out gets 0 * NaN).
void arrangeDecodeInputs(std::vector<RefArg> &args, std::mt19937_64 &rng) {
  RefArg &table = argNamed(args, "block_table"), &lens = argNamed(args, "seqlens");
  RefArg &keys = argNamed(args, "Kc"), &values = argNamed(args, "Vc");
  const int64_t pages = keys.shape[0], pageSize = keys.shape[1];
  const int64_t maxPages = table.shape[1], batch = int64_t(lens.data.size());
  const bool poison = pages >= 2;
  const int64_t poisonPage = pages - 1;
  // Pages [shared, poisonPage): one per sequence, its last page.
  const bool ownLastPages = poison && poisonPage - batch >= 1;
  const int64_t shared = ownLastPages ? poisonPage - batch : poison ? pages - 1 : pages;
  std::uniform_int_distribution<int64_t> page(0, shared - 1), length(1, maxPages * pageSize);
  std::vector<int64_t> tails; // (page, first slot past the context) of each own last page
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t n = b == 0 ? maxPages * pageSize : b == 1 ? 0 : length(rng);
    lens.data[size_t(b)] = double(n);
    const int64_t used = (n + pageSize - 1) / pageSize;
    for (int64_t p = 0; p < maxPages; ++p) {
      int64_t at = p < used || !poison ? page(rng) : poisonPage;
      if (ownLastPages && p == used - 1) {
        at = shared + b;
        tails.push_back(at), tails.push_back(n - p * pageSize);
      }
      table.data[size_t(b * maxPages + p)] = double(at);
    }
  }
  if (!poison)
    return;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (RefArg *cache : {&keys, &values}) {
    const size_t perPage = cache->data.size() / size_t(pages), perSlot = perPage / size_t(pageSize);
    std::fill(cache->data.begin() + ptrdiff_t(size_t(poisonPage) * perPage), cache->data.end(), nan);
    for (size_t i = 0; i < tails.size(); i += 2)
      std::fill(cache->data.begin() + ptrdiff_t(size_t(tails[i]) * perPage + size_t(tails[i + 1]) * perSlot),
                cache->data.begin() + ptrdiff_t(size_t(tails[i] + 1) * perPage), nan);
  }
}

/// The paged-cache inputs of a decode reference, as attentionDecode*F64 takes them.
struct PagedDecodeInputs {
  PagedDecodeShape shape;
  const double *q, *k, *v;
  std::vector<int64_t> pages, lengths;

  explicit PagedDecodeInputs(std::vector<RefArg> &args) {
    RefArg &Q = argNamed(args, "Q"), &K = argNamed(args, "Kc"), &V = argNamed(args, "Vc");
    RefArg &table = argNamed(args, "block_table"), &lens = argNamed(args, "seqlens");
    shape.batch = Q.shape[0], shape.numHeads = Q.shape[1], shape.headDim = Q.shape[2], shape.vHeadDim = V.shape[3];
    shape.numKvHeads = K.shape[2], shape.pageSize = K.shape[1], shape.maxPagesPerSeq = table.shape[1];
    shape.scale = argNamed(args, "scale").scalar;
    q = Q.data.data(), k = K.data.data(), v = V.data.data();
    pages.assign(table.data.begin(), table.data.end());
    lengths.assign(lens.data.begin(), lens.data.end());
  }
};

void attentionDecode(std::vector<RefArg> &args) {
  PagedDecodeInputs in(args);
  attentionDecodeF64(in.shape, in.q, in.k, in.v, in.pages.data(), in.lengths.data(), argNamed(args, "O").data.data());
}

std::map<std::string, std::vector<double>> attentionDecodeMagnitudes(std::vector<RefArg> &args) {
  PagedDecodeInputs in(args);
  std::vector<double> out(argNamed(args, "O").data.size()), magnitude(out.size());
  attentionDecodeF64(in.shape, in.q, in.k, in.v, in.pages.data(), in.lengths.data(), out.data(), magnitude.data());
  return {{"O", std::move(magnitude)}};
}

/// attention_decode's inputs followed by Op (B x S x H x DV) and Lse (B x S x H).
std::string validateAttentionDecodeSplit(const std::vector<RefArg> &args) {
  RefArg out = args[0]; // what O would be: [batch, heads, v_head_dim]
  if (args[2].shape.size() == 4 && out.shape.size() == 3) out.shape[2] = args[2].shape[3];
  if (std::string e = validateAttentionDecode({args[0], args[1], args[2], args[3], args[4], out}); !e.empty())
    return e;
  const std::vector<int64_t> &Q = args[0].shape, &V = args[2].shape, &Op = args[5].shape, &Lse = args[6].shape;
  if (Op.size() != 4 || Lse.size() != 3 || Op[0] != Q[0] || Op[2] != Q[1] || Op[3] != V[3] || Lse[0] != Q[0] ||
      Lse[1] != Op[1] || Lse[2] != Q[1] || Op[1] < 1)
    return "attention_decode_split expects Op of [batch, splits, heads, v_head_dim] and Lse of [batch, splits, "
           "heads]";
  return "";
}

void attentionDecodeSplit(std::vector<RefArg> &args) {
  PagedDecodeInputs in(args);
  RefArg &Op = argNamed(args, "Op"), &Lse = argNamed(args, "Lse");
  attentionDecodeSplitF64(in.shape, Op.shape[1], in.q, in.k, in.v, in.pages.data(), in.lengths.data(), Op.data.data(),
                          Lse.data.data());
}

std::map<std::string, std::vector<double>> attentionDecodeSplitMagnitudes(std::vector<RefArg> &args) {
  PagedDecodeInputs in(args);
  const RefArg &Op = argNamed(args, "Op"), &Lse = argNamed(args, "Lse");
  std::vector<double> op(Op.data.size()), lse(Lse.data.size()), magnitude(op.size());
  attentionDecodeSplitF64(in.shape, Op.shape[1], in.q, in.k, in.v, in.pages.data(), in.lengths.data(), op.data(),
                          lse.data(), magnitude.data());
  return {{"Op", std::move(magnitude)}};
}

/// X: M x K; Wg, Wu: N x K; H: M x N (Ht: N x M when `transposed`).
std::string checkGateUpShapes(const std::vector<int64_t> &X, const std::vector<int64_t> &Wg,
                              const std::vector<int64_t> &Wu, const std::vector<int64_t> &H, bool transposed) {
  const char *op = transposed ? "moe_gate_up_t" : "moe_gate_up";
  if (X.size() != 2 || Wg.size() != 2 || Wu != Wg || H.size() != 2)
    return std::string(op) + " expects X, Wg, Wu and its output of rank 2 with Wg and Wu of one shape";
  const int64_t rows = transposed ? H[1] : H[0], columns = transposed ? H[0] : H[1];
  if (X[1] != Wg[1] || rows != X[0] || columns != Wg[0])
    return transposed ? "moe_gate_up_t expects Wg and Wu (N x K), X (M x K), Ht (N x M)"
                      : "moe_gate_up expects X (M x K), Wg and Wu (N x K), H (M x N)";
  return "";
}

std::string validateMoeGateUp(const std::vector<RefArg> &args) {
  return checkGateUpShapes(args[0].shape, args[1].shape, args[2].shape, args[3].shape, false);
}

std::string validateMoeGateUpTransposed(const std::vector<RefArg> &args) {
  return checkGateUpShapes(args[2].shape, args[0].shape, args[1].shape, args[3].shape, true);
}

/// H[m][n] = silu(X·Wgᵀ) * (X·Wuᵀ), all in double, stored at out[m * rowStride + n * columnStride].
void gateUpF64(std::vector<RefArg> &args, const char *out, int64_t rowStride, int64_t columnStride) {
  RefArg &X = argNamed(args, "X"), &Wg = argNamed(args, "Wg"), &Wu = argNamed(args, "Wu"), &H = argNamed(args, out);
  const int64_t M = X.shape[0], K = X.shape[1], N = Wg.shape[0];
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double gate = 0, up = 0;
      for (int64_t k = 0; k < K; ++k) {
        gate += X.data[m * K + k] * Wg.data[n * K + k];
        up += X.data[m * K + k] * Wu.data[n * K + k];
      }
      H.data[m * rowStride + n * columnStride] = gate / (1.0 + std::exp(-gate)) * up;
    }
}

void moeGateUp(std::vector<RefArg> &args) { gateUpF64(args, "H", argNamed(args, "H").shape[1], 1); }

/// Ht = Hᵀ: H's element (m, n) at Ht[n][m].
void moeGateUpTransposed(std::vector<RefArg> &args) { gateUpF64(args, "Ht", 1, argNamed(args, "Ht").shape[1]); }

const std::map<std::string, Reference> &registry() {
  static const std::map<std::string, Reference> refs = {
      {"gemm_tn",
       {"gemm_tn", "C = alpha * A·Bᵀ + beta * C (+ bias[n])",
        {"A", "B", "C", "bias", "alpha", "beta", "has_bias"}, validateGemmTn, gemmTn,
        [](const std::vector<RefArg> &args) { return args.front().shape.back(); },
        [](const std::vector<RefArg> &args) {
          for (const RefArg &a : args)
            if (a.name == "beta" && a.scalar == 0)
              return std::vector<std::string>{"C"};
          return std::vector<std::string>{};
        }}},
      {"attention_prefill",
       {"attention_prefill", "O = softmax(scale * Q·Kᵀ [+ causal mask])·V per head, grouped KV heads",
        {"Q", "K", "V", "O", "scale", "causal"}, validateAttentionPrefill, attentionPrefill,
        // Terms an output sums: the keys of P·V, and the head dim of the
        // scores, whose error exp() carries into every weight.
        [](const std::vector<RefArg> &args) { return args[1].shape[0] + args[0].shape[2]; },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"O"}; }, /*roundings=*/2,
        /*arrangeInputs=*/nullptr, /*toleranceOf=*/"", attentionPrefillMagnitudes}},
      {"attention_prefill_varlen",
       {"attention_prefill_varlen",
        "attention_prefill over a varlen batch: sequence b is rows [cu_seqlens[b], cu_seqlens[b + 1]) of the "
        "packed tensors",
        {"Q", "K", "V", "O", "cu_seqlens_q", "cu_seqlens_kv", "max_seqlen_q", "scale", "causal"},
        validateAttentionPrefillVarlen, attentionPrefill,
        [](const std::vector<RefArg> &args) { return args[1].shape[0] + args[0].shape[2]; },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"O"}; }, /*roundings=*/2,
        arrangeVarlenPrefillInputs, /*toleranceOf=*/"", attentionPrefillMagnitudes}},
      {"attention_decode",
       {"attention_decode", "one query token per sequence against a paged KV cache (block table, seqlens)",
        {"Q", "Kc", "Vc", "block_table", "seqlens", "O", "scale"}, validateAttentionDecode, attentionDecode,
        [](const std::vector<RefArg> &args) { return args[3].shape[1] * args[1].shape[1] + args[0].shape[2]; },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"O"}; }, /*roundings=*/2,
        arrangeDecodeInputs, /*toleranceOf=*/"", attentionDecodeMagnitudes}},
      {"attention_decode_split",
       {"attention_decode_split",
        "attention_decode's context cut into splits (flash-decoding): per split, the attention over it alone and "
        "the log of its softmax denominator",
        {"Q", "Kc", "Vc", "block_table", "seqlens", "Op", "Lse", "scale"}, validateAttentionDecodeSplit,
        attentionDecodeSplit,
        [](const std::vector<RefArg> &args) {
          return (args[3].shape[1] + args[5].shape[1] - 1) / args[5].shape[1] * args[1].shape[1] + args[0].shape[2];
        },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"Op", "Lse"}; }, /*roundings=*/2,
        arrangeDecodeInputs, /*toleranceOf=*/"Q", attentionDecodeSplitMagnitudes}},
      {"moe_gate_up",
       {"moe_gate_up", "H = silu(X·Wgᵀ) * (X·Wuᵀ): the gate/up half of a SwiGLU expert",
        {"X", "Wg", "Wu", "H"}, validateMoeGateUp, moeGateUp,
        [](const std::vector<RefArg> &args) { return args[0].shape[1]; },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"H"}; }}},
      {"moe_gate_up_t",
       {"moe_gate_up_t", "Ht = (silu(X·Wgᵀ) * (X·Wuᵀ))ᵀ: moe_gate_up with the weights as the row operand",
        {"Wg", "Wu", "X", "Ht"}, validateMoeGateUpTransposed, moeGateUpTransposed,
        [](const std::vector<RefArg> &args) { return args[2].shape[1]; },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"Ht"}; }}},
      {"moe_grouped_gate_up",
       {"moe_grouped_gate_up",
        "H[b] = silu(X[b]·Wg[e]ᵀ) * (X[b]·Wu[e]ᵀ) per live block b of routed rows, e = block_expert[b] (zeros "
        "for a block of no expert)",
        {"X", "Wg", "Wu", "block_expert", "H", "live_blocks"}, validateMoeGroupedGateUp, moeGroupedGateUp,
        [](const std::vector<RefArg> &args) { return args[0].shape[2]; },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"H"}; }, /*roundings=*/1,
        arrangeMoeBlocks}},
      {"moe_grouped_down",
       {"moe_grouped_down",
        "Y[b] = X[b]·W[e]ᵀ per live block b of routed rows, e = block_expert[b] (zeros for a block of no expert)",
        {"X", "W", "block_expert", "Y", "live_blocks"}, validateMoeGroupedDown, moeGroupedDown,
        [](const std::vector<RefArg> &args) { return args[0].shape[2]; },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"Y"}; }, /*roundings=*/1,
        arrangeMoeBlocks}},
      {"moe_route",
       {"moe_route",
        "per token the top-k experts of its router logits (ties to the lower expert) and their softmax "
        "weights, renormalised to sum to 1 when renormalize is not 0",
        {"logits", "choices", "weights", "renormalize"}, validateMoeRoute, moeRoute,
        [](const std::vector<RefArg> &args) { return args[0].shape[1]; },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"choices", "weights"}; }, /*roundings=*/1,
        arrangeMoeRoute}},
      {"moe_align_offsets",
       {"moe_align_offsets",
        "per expert its choices padded to blocks of 32 rows, laid end to end: each expert's first row, the "
        "routing's end, and its blocks as a range",
        {"choices", "first_row", "live_blocks"}, validateMoeAlignOffsets, moeAlignOffsets,
        [](const std::vector<RefArg> &) { return int64_t(1); },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"first_row", "live_blocks"}; },
        /*roundings=*/1, arrangeMoeAlignOffsets}},
      {"moe_align_rows",
       {"moe_align_rows",
        "each block's expert (-1 past the routing's) and rows: its expert's choices in their order from the "
        "block's first rank, -1 past them",
        {"choices", "first_row", "live_blocks", "block_expert", "block_rows"}, validateMoeAlignRows, moeAlignRows,
        [](const std::vector<RefArg> &) { return int64_t(1); },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"block_expert", "block_rows"}; }, /*roundings=*/1,
        arrangeMoeAlignRows}},
      {"moe_align_choice_row",
       {"moe_align_choice_row",
        "each choice's block row: its expert's first row plus its rank among the expert's choices (-1 for no "
        "expert)",
        {"choices", "first_row", "choice_row"}, validateMoeAlignChoiceRow, moeAlignChoiceRow,
        [](const std::vector<RefArg> &) { return int64_t(1); },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"choice_row"}; }, /*roundings=*/1,
        arrangeMoeAlignChoiceRow}},
      {"moe_gather",
       {"moe_gather",
        "rows[b, r] = x[block_rows[b, r] / top_k]: the routed tokens' rows in the routing's live blocks (zeros "
        "for a row that names no token)",
        {"x", "block_rows", "rows", "live_blocks", "top_k"}, validateMoeGather, moeGather,
        [](const std::vector<RefArg> &) { return int64_t(1); },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"rows"}; }, /*roundings=*/1,
        arrangeMoeGather}},
      {"moe_combine",
       {"moe_combine",
        "out[t] = sum over j of weights[t, j] · Y[choice_row[t, j]]: each token's routing-weighted expert rows",
        {"Y", "choice_row", "weights", "out"}, validateMoeCombine, moeCombine,
        [](const std::vector<RefArg> &args) { return args[1].shape[1]; },
        [](const std::vector<RefArg> &) { return std::vector<std::string>{"out"}; }, /*roundings=*/1,
        arrangeMoeCombine}},
  };
  return refs;
}

} // namespace

const Reference *findReference(const std::string &name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<std::string> referenceNames() {
  std::vector<std::string> names;
  for (auto &[n, _] : registry())
    names.push_back(n);
  return names;
}

double toleranceFor(ElementType type, int64_t reduction, int roundings) {
  // f32 accumulation error grows like sqrt(terms) * 2^-24; 16-bit outputs
  // add their own rounding (2^-9 for bf16, 2^-12 for f16).
  double accumulate = 4.0 * std::sqrt(double(std::max<int64_t>(reduction, 1))) * 6e-8;
  switch (type) {
  case ElementType::BF16: return accumulate + 8e-3 * roundings;
  case ElementType::F16: return accumulate + 1e-3 * roundings;
  case ElementType::F64: return 1e-12 * std::max<int64_t>(reduction, 1);
  case ElementType::F32: return accumulate + 1e-6;
  default: return 0;
  }
}

Mismatch compare(const HostTensor &actual, const std::vector<double> &expected, double tol,
                 const std::vector<double> *magnitude) {
  Mismatch result;
  // The scale of the finite values: NaN where it is expected (an input the
  // kernel must leave alone, such as a poisoned page) says nothing of it.
  double sumSq = 0;
  int64_t finite = 0;
  for (double e : expected)
    if (std::isfinite(e))
      sumSq += e * e, ++finite;
  double rms = finite == 0 ? 0 : std::sqrt(sumSq / double(finite));
  for (int64_t i = 0; i < actual.numElements(); ++i) {
    double a = actual.get(i), e = expected[i];
    bool bad;
    if (actual.isPoisoned(i) && !std::isnan(e)) {
      result.unwritten++;
      bad = true;
    } else if (std::isnan(a) && std::isnan(e)) {
      bad = false;
    } else {
      double scale = magnitude ? (*magnitude)[i] : std::fabs(e) + rms;
      double err = std::fabs(a - e) / (scale + 1e-300);
      result.maxError = std::max(result.maxError, std::isnan(err) ? INFINITY : err);
      bad = !(err <= tol);
    }
    if (bad) {
      if (result.index < 0) {
        result.index = i;
        result.expected = e;
        result.actual = a;
      }
      result.mismatches++;
    }
  }
  return result;
}

} // namespace argus::ref
