#!/usr/bin/env python3
"""Checks and times a hip library's attention and MoE entry points against float64 references and
PyTorch, for the owner of an MI300X / MI250.

    python3 bench/hip/attention_moe_check.py --library OUT/lib/libargus_kernels.so \\
        --catalog shapes/mixtral-8x7b.yaml --json results.jsonl

The catalog gives the model's heads, head dims, page size and experts. Every call gets fresh random
bf16 inputs and an output poisoned with NaN, and every element is compared with a float64 reference:
  - argus_attention_prefill: a varlen batch with an empty, a short and a multi-block sequence, causal
    (bottom-right) and not; timed on one sequence of each --seqlens, causal, against PyTorch's
    scaled_dot_product_attention (its best backend on ROCm; a matmul-softmax-matmul composition
    where the PyTorch build has none). |err| <= 2^-8 |ref| + 2^-7 sum_j p_j |v_j|.
  - argus_attention_decode: sequences of 0, 1, 77 and --context tokens whose pages are scattered over
    the cache; timed at --context for --decode-batch sequences against gathering the pages and SDPA.
    Same tolerance.
  - argus_moe (catalogs with experts): softmax top-k routing, renormalised or not, for every
    --tokens count; timed against the per-expert loop a PyTorch user writes (index_select, gate/up,
    SiLU·mul, down, weighted index_add). |err| <= 2^-8 |ref| + 2^-6 rms(the token's row of ref): the
    kernels keep the SwiGLU activations in bf16 (the tests' criterion, test/hip/moe_problem.h).
One JSON line per case and a summary. --device cpu runs on the wave emulator (hip_bench.py).
"""
import argparse
import ctypes
import json
import math
import sys

import torch
import torch.nn.functional as F
import yaml

from hip_bench import (ARGUS_DTYPE_BF16, check_status, hip_runtime, machine_of, median_pair, random_bf16,
                       stream_of, synchronize)

I64, PTR = ctypes.c_int64, ctypes.c_void_p
# Queries in [-4, 4): scores spread enough that the softmax is far from uniform, so a wrong scale,
# mask or key shows in the output (with queries in [-1, 1) a 5% scale error hides in the tolerance).
Q_SCALE = 4.0


class PrefillArgs(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("batch", I64), ("num_heads", I64), ("num_kv_heads", I64),
                ("head_dim", I64), ("max_seqlen_q", I64), ("max_seqlen_kv", I64), ("dtype", ctypes.c_int),
                ("q", PTR), ("k", PTR), ("v", PTR), ("o", PTR), ("cu_seqlens_q", PTR), ("cu_seqlens_kv", PTR),
                ("causal", ctypes.c_int), ("scale", ctypes.c_float), ("v_head_dim", I64)]


class DecodeArgs(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("batch", I64), ("num_heads", I64), ("num_kv_heads", I64),
                ("head_dim", I64), ("page_size", I64), ("max_pages_per_seq", I64), ("dtype", ctypes.c_int),
                ("q", PTR), ("k_cache", PTR), ("v_cache", PTR), ("block_table", PTR), ("seqlens_kv", PTR),
                ("o", PTR), ("scale", ctypes.c_float), ("v_head_dim", I64)]


class MoeArgs(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("num_tokens", I64), ("hidden", I64), ("intermediate", I64),
                ("num_experts", I64), ("top_k", I64), ("dtype", ctypes.c_int), ("x", PTR),
                ("router_logits", PTR), ("w_gate_up", PTR), ("w_down", PTR), ("out", PTR),
                ("renormalize", ctypes.c_int), ("workspace", PTR), ("workspace_size", ctypes.c_size_t)]


def load(path):
    lib = ctypes.CDLL(path)
    for name, args in (("argus_attention_prefill", PrefillArgs), ("argus_attention_decode", DecodeArgs),
                       ("argus_moe", MoeArgs)):
        getattr(lib, name).argtypes = [ctypes.POINTER(args), ctypes.c_void_p]
        getattr(lib, name).restype = ctypes.c_int
    lib.argus_moe_workspace_size.argtypes = [ctypes.POINTER(MoeArgs)]
    lib.argus_moe_workspace_size.restype = ctypes.c_size_t
    lib.argus_last_error.restype = ctypes.c_char_p
    lib.argus_manifest_json.restype = ctypes.c_char_p
    return lib


class Model:
    """The shapes a catalog's architecture section gives."""

    def __init__(self, catalog):
        arch = yaml.safe_load(open(catalog))["architecture"]
        serving = yaml.safe_load(open(catalog)).get("serving", {})
        self.heads = arch["num_attention_heads"]
        self.kv_heads = arch.get("num_key_value_heads", self.heads)
        self.head_dim = arch.get("head_dim") or arch["hidden_size"] // self.heads
        self.v_head_dim = arch.get("v_head_dim", self.head_dim)
        self.page = serving.get("kv_page_size", 16)
        self.hidden = arch["hidden_size"]
        self.experts = arch.get("num_local_experts") or arch.get("num_experts") or arch.get("n_routed_experts") or 0
        self.top_k = arch.get("num_experts_per_tok", 0)
        self.intermediate = arch.get("moe_intermediate_size") or arch.get("intermediate_size")


def mismatches(out, ref, tolerance):
    """Elements of out (NaN included) farther from ref than tolerance."""
    return int((~((out.double() - ref).abs() <= tolerance)).sum().item())


# ---- prefill ---------------------------------------------------------------------------------


def attention_f64(q, k, v, causal, scale):
    """One sequence, [tokens, heads, dim], GQA by repetition; causal aligned bottom-right. Returns the
    output and sum_j p_j |v_j| (the tolerance's magnitude)."""
    group = q.shape[1] // k.shape[1]
    qd, kd, vd = q.double(), k.double().repeat_interleave(group, 1), v.double().repeat_interleave(group, 1)
    s = torch.einsum("qhd,khd->hqk", qd, kd) * scale
    if causal:
        sq, skv = q.shape[0], k.shape[0]
        allowed = torch.arange(skv)[None, :] <= torch.arange(sq)[:, None] + (skv - sq)
        s = s.masked_fill(~allowed.to(s.device), float("-inf"))
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)  # a row that sees no key: zeros
    return torch.einsum("hqk,khd->qhd", p, vd), torch.einsum("hqk,khd->qhd", p, vd.abs())


def prefill_args(m, q, k, v, o, cu_q, cu_kv, lens, causal, scale):
    return PrefillArgs(ctypes.sizeof(PrefillArgs), len(lens), m.heads, m.kv_heads, m.head_dim,
                       max(l[0] for l in lens), max(l[1] for l in lens), ARGUS_DTYPE_BF16, q.data_ptr(),
                       k.data_ptr(), v.data_ptr(), o.data_ptr(), cu_q.data_ptr(), cu_kv.data_ptr(), int(causal),
                       scale, m.v_head_dim)


def prefill_inputs(m, lens, gen, device):
    tq, tkv = sum(l[0] for l in lens), sum(l[1] for l in lens)
    q = random_bf16((tq, m.heads, m.head_dim), gen, device, Q_SCALE)
    k = random_bf16((tkv, m.kv_heads, m.head_dim), gen, device)
    v = random_bf16((tkv, m.kv_heads, m.v_head_dim), gen, device)
    o = torch.full((tq, m.heads, m.v_head_dim), float("nan"), dtype=torch.bfloat16, device=device)
    prefix = lambda xs: torch.tensor([0] + list(torch.tensor(xs).cumsum(0)), dtype=torch.int32, device=device)
    return q, k, v, o, prefix([l[0] for l in lens]), prefix([l[1] for l in lens])


def check_prefill(lib, m, lens, causal, device, gen):
    scale = 1 / math.sqrt(m.head_dim)
    q, k, v, o, cu_q, cu_kv = prefill_inputs(m, lens, gen, device)
    args = prefill_args(m, q, k, v, o, cu_q, cu_kv, lens, causal, scale)
    check_status(lib, lib.argus_attention_prefill(ctypes.byref(args), stream_of(device)), "argus_attention_prefill")
    synchronize(device)
    wrong = 0
    for b, (sq, skv) in enumerate(lens):
        q0, kv0 = int(cu_q[b]), int(cu_kv[b])
        ref, magnitude = attention_f64(q[q0:q0 + sq], k[kv0:kv0 + skv], v[kv0:kv0 + skv], causal, scale)
        wrong += mismatches(o[q0:q0 + sq], ref, ref.abs() * 2.0 ** -8 + magnitude * 2.0 ** -7 + 1e-30)
    return wrong


def sdpa(q, k, v, causal, scale):
    """PyTorch's attention over [heads, tokens, dim] (SDPA where the build has it)."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
    s = (q @ k.transpose(-1, -2)) * scale
    if causal:
        s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool, device=s.device).triu(1), float("-inf"))
    return torch.softmax(s.float(), dim=-1).to(q.dtype) @ v


def time_prefill(lib, m, seqlen, device, repeats, gen):
    lens = [(seqlen, seqlen)]
    scale = 1 / math.sqrt(m.head_dim)
    q, k, v, o, cu_q, cu_kv = prefill_inputs(m, lens, gen, device)
    args = prefill_args(m, q, k, v, o, cu_q, cu_kv, lens, True, scale)
    group = m.heads // m.kv_heads
    qt = q.transpose(0, 1).contiguous()
    kt = k.transpose(0, 1).repeat_interleave(group, 0).contiguous()
    vt = v.transpose(0, 1).repeat_interleave(group, 0).contiguous()
    ours, theirs = median_pair(
        lambda i: check_status(lib, lib.argus_attention_prefill(ctypes.byref(args), stream_of(device)), "prefill"),
        lambda i: sdpa(qt, kt, vt, True, scale), repeats, device)
    flops = seqlen * seqlen * m.heads * (m.head_dim + m.v_head_dim)  # 2 (QK and PV) x 2 (FMA) / 2 (causal)
    return {"op": "prefill", "seqlen": seqlen, "causal": True, "argus_s": ours, "torch_s": theirs,
            "ratio": theirs / ours, "argus_tflops": flops / ours / 1e12}


# ---- paged decode ------------------------------------------------------------------------------


def decode_inputs(m, seqlens, gen, device):
    pages_of = [-(-s // m.page) for s in seqlens]
    total = sum(pages_of) + 3  # and pages no sequence uses
    order = torch.randperm(total, generator=gen)
    max_pages = max(1, max(pages_of))
    table = torch.full((len(seqlens), max_pages), 1 << 30, dtype=torch.int32)  # unused: far outside
    at = 0
    for b, n in enumerate(pages_of):
        table[b, :n] = order[at:at + n].to(torch.int32)
        at += n
    q = random_bf16((len(seqlens), m.heads, m.head_dim), gen, device, Q_SCALE)
    kc = random_bf16((total, m.page, m.kv_heads, m.head_dim), gen, device)
    vc = random_bf16((total, m.page, m.kv_heads, m.v_head_dim), gen, device)
    o = torch.full((len(seqlens), m.heads, m.v_head_dim), float("nan"), dtype=torch.bfloat16, device=device)
    lens = torch.tensor(seqlens, dtype=torch.int32, device=device)
    return q, kc, vc, table.to(device), lens, o


def decode_args(m, q, kc, vc, table, lens, o, scale):
    return DecodeArgs(ctypes.sizeof(DecodeArgs), q.shape[0], m.heads, m.kv_heads, m.head_dim, m.page, table.shape[1],
                      ARGUS_DTYPE_BF16, q.data_ptr(), kc.data_ptr(), vc.data_ptr(), table.data_ptr(),
                      lens.data_ptr(), o.data_ptr(), scale, m.v_head_dim)


def gathered(cache, table, b, n):
    """The first n tokens of sequence b, [n, kv_heads, dim]."""
    pages = table[b, :-(-n // cache.shape[1])].long()
    return cache[pages].reshape(-1, *cache.shape[2:])[:n]


def check_decode(lib, m, seqlens, device, gen):
    scale = 1 / math.sqrt(m.head_dim)
    q, kc, vc, table, lens, o = decode_inputs(m, seqlens, gen, device)
    args = decode_args(m, q, kc, vc, table, lens, o, scale)
    check_status(lib, lib.argus_attention_decode(ctypes.byref(args), stream_of(device)), "argus_attention_decode")
    synchronize(device)
    wrong = 0
    for b, n in enumerate(seqlens):
        if n == 0:
            ref = magnitude = torch.zeros(1, m.heads, m.v_head_dim, dtype=torch.float64, device=device)
        else:
            ref, magnitude = attention_f64(q[b:b + 1], gathered(kc, table, b, n), gathered(vc, table, b, n), False,
                                           scale)
        wrong += mismatches(o[b:b + 1], ref, ref.abs() * 2.0 ** -8 + magnitude * 2.0 ** -7 + 1e-30)
    return wrong


def time_decode(lib, m, batch, context, device, repeats, gen):
    scale = 1 / math.sqrt(m.head_dim)
    q, kc, vc, table, lens, o = decode_inputs(m, [context] * batch, gen, device)
    args = decode_args(m, q, kc, vc, table, lens, o, scale)
    group = m.heads // m.kv_heads

    def theirs(i):
        k = torch.stack([gathered(kc, table, b, context) for b in range(batch)]).transpose(1, 2)
        v = torch.stack([gathered(vc, table, b, context) for b in range(batch)]).transpose(1, 2)
        sdpa(q[:, :, None, :], k.repeat_interleave(group, 1), v.repeat_interleave(group, 1), False, scale)

    ours, theirs_s = median_pair(
        lambda i: check_status(lib, lib.argus_attention_decode(ctypes.byref(args), stream_of(device)), "decode"),
        theirs, repeats, device)
    kv_bytes = 2 * batch * context * m.kv_heads * (m.head_dim + m.v_head_dim)
    return {"op": "decode", "batch": batch, "context": context, "argus_s": ours, "torch_s": theirs_s,
            "ratio": theirs_s / ours, "argus_gbps": kv_bytes / ours / 1e9}


# ---- MoE -------------------------------------------------------------------------------------


def moe_inputs(m, tokens, gen, device):
    x = random_bf16((tokens, m.hidden), gen, device)
    logits = (torch.randn(tokens, m.experts, generator=gen) * 2).to(device)
    w_gate_up = random_bf16((m.experts, 2 * m.intermediate, m.hidden), gen, device, 1 / math.sqrt(m.hidden))
    w_down = random_bf16((m.experts, m.hidden, m.intermediate), gen, device, 1 / math.sqrt(m.intermediate))
    out = torch.full((tokens, m.hidden), float("nan"), dtype=torch.bfloat16, device=device)
    return x, logits, w_gate_up, w_down, out


def moe_args(lib, m, x, logits, w_gate_up, w_down, out, renormalize, device):
    args = MoeArgs(ctypes.sizeof(MoeArgs), x.shape[0], m.hidden, m.intermediate, m.experts, m.top_k,
                   ARGUS_DTYPE_BF16, x.data_ptr(), logits.data_ptr(), w_gate_up.data_ptr(), w_down.data_ptr(),
                   out.data_ptr(), int(renormalize), None, 0)
    workspace = torch.empty(max(1, lib.argus_moe_workspace_size(ctypes.byref(args))), dtype=torch.uint8,
                            device=device)
    args.workspace, args.workspace_size = workspace.data_ptr(), workspace.numel()
    return args, workspace


def route(m, logits, renormalize):
    weights, experts = torch.softmax(logits.double(), dim=-1).topk(m.top_k, dim=-1)
    if renormalize:
        weights = weights / weights.sum(-1, keepdim=True)
    return weights, experts


def moe_f64(m, x, logits, w_gate_up, w_down, renormalize):
    weights, experts = route(m, logits, renormalize)
    out = torch.zeros(x.shape[0], m.hidden, dtype=torch.float64, device=x.device)
    for e in range(m.experts):
        rows, slot = (experts == e).nonzero(as_tuple=True)
        if rows.numel() == 0:
            continue
        gate, up = (x[rows].double() @ w_gate_up[e].double().T).split(m.intermediate, dim=-1)
        out.index_add_(0, rows, (F.silu(gate) * up) @ w_down[e].double().T * weights[rows, slot, None])
    return out


def moe_torch(m, x, logits, w_gate_up, w_down, renormalize):
    """The per-expert loop a PyTorch user writes, in bf16."""
    weights, experts = route(m, logits.float(), renormalize)
    out = torch.zeros(x.shape[0], m.hidden, dtype=torch.float32, device=x.device)
    for e in range(m.experts):
        rows, slot = (experts == e).nonzero(as_tuple=True)
        if rows.numel() == 0:
            continue
        gate, up = (x[rows] @ w_gate_up[e].T).split(m.intermediate, dim=-1)
        out.index_add_(0, rows, ((F.silu(gate) * up) @ w_down[e].T).float() * weights[rows, slot, None].float())
    return out.to(torch.bfloat16)


def check_moe(lib, m, tokens, renormalize, device, gen):
    x, logits, w_gate_up, w_down, out = moe_inputs(m, tokens, gen, device)
    args, _workspace = moe_args(lib, m, x, logits, w_gate_up, w_down, out, renormalize, device)
    check_status(lib, lib.argus_moe(ctypes.byref(args), stream_of(device)), "argus_moe")
    synchronize(device)
    ref = moe_f64(m, x, logits, w_gate_up, w_down, renormalize)
    rms = ref.pow(2).mean(-1, keepdim=True).sqrt()
    return mismatches(out, ref, ref.abs() * 2.0 ** -8 + rms * 2.0 ** -6 + 1e-30)


def time_moe(lib, m, tokens, device, repeats, gen):
    x, logits, w_gate_up, w_down, out = moe_inputs(m, tokens, gen, device)
    args, _workspace = moe_args(lib, m, x, logits, w_gate_up, w_down, out, True, device)
    ours, theirs = median_pair(
        lambda i: check_status(lib, lib.argus_moe(ctypes.byref(args), stream_of(device)), "argus_moe"),
        lambda i: moe_torch(m, x, logits, w_gate_up, w_down, True), repeats, device)
    return {"op": "moe", "tokens": tokens, "argus_s": ours, "torch_s": theirs, "ratio": theirs / ours}


# ---- driver ----------------------------------------------------------------------------------


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--library", required=True)
    p.add_argument("--catalog", required=True, help="the catalog the library was built from")
    p.add_argument("--device", default="cuda", help="cuda (a ROCm GPU, as PyTorch names it) or cpu")
    p.add_argument("--json", help="append one JSON line per case here")
    p.add_argument("--seqlens", default="1024,4096", help="prefill sequence lengths to time")
    p.add_argument("--context", type=int, default=4096, help="decode context to check and time")
    p.add_argument("--decode-batch", type=int, default=16)
    p.add_argument("--tokens", default="1,16,128,512,4096", help="MoE token counts to check and time")
    p.add_argument("--repeats", type=int, default=25)
    p.add_argument("--check-only", action="store_true")
    opts = p.parse_args()

    lib = load(opts.library)
    manifest = json.loads(lib.argus_manifest_json().decode())
    m = Model(opts.catalog)
    device = opts.device
    machine = machine_of(device)
    print(f"# {manifest['target']} library for {manifest['model']} on {machine}, HIP {hip_runtime()}")
    print(f"# command: {' '.join(sys.argv)}")
    gen = torch.Generator().manual_seed(2026)
    out = open(opts.json, "a") if opts.json else None
    failures, ratios = 0, {}

    def report(record):
        nonlocal failures
        record.update({"device": machine, "hip": hip_runtime()})
        failures += record.get("wrong", 0) != 0
        if "ratio" in record:
            ratios.setdefault(record["op"], []).append(record["ratio"])
        print(json.dumps(record))
        if out:
            out.write(json.dumps(record) + "\n")

    varlen = [(130, 130), (0, 0), (5, 77), (70, 20)]
    for causal in (True, False):
        report({"op": "prefill", "lens": varlen, "causal": causal,
                "wrong": check_prefill(lib, m, varlen, causal, device, gen)})
    report({"op": "decode", "seqlens": [0, 1, 77, opts.context],
            "wrong": check_decode(lib, m, [0, 1, 77, opts.context], device, gen)})
    token_counts = [int(t) for t in opts.tokens.split(",")]
    if m.experts:
        for tokens in token_counts:
            for renormalize in (True, False):
                report({"op": "moe", "tokens": tokens, "renormalize": renormalize,
                        "wrong": check_moe(lib, m, tokens, renormalize, device, gen)})
    if not opts.check_only:
        for seqlen in (int(s) for s in opts.seqlens.split(",")):
            report(time_prefill(lib, m, seqlen, device, opts.repeats, gen))
        report(time_decode(lib, m, opts.decode_batch, opts.context, device, opts.repeats, gen))
        for tokens in token_counts if m.experts else []:
            report(time_moe(lib, m, tokens, device, opts.repeats, gen))
    for op, rs in ratios.items():
        geomean = math.exp(sum(math.log(r) for r in rs) / len(rs))
        print(f"# {op}: argus / torch, geometric mean over {len(rs)} cases: {geomean:.3f}")
    print(f"# {failures} case(s) with wrong elements")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
