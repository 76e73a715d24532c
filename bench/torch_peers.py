#!/usr/bin/python3
"""PyTorch 1.13 CPU peers of the Argus benchmarks, in Google Benchmark JSON.

Why this file exists: oneDNN is what a C++ engine would call, but many CPU
serving stacks run PyTorch eager; a generated library has to beat that too.
This script times what a PyTorch user would write, on the shapes of
gemm_bench.cpp, attention_bench.cpp and moe_bench.cpp, and writes JSON whose
benchmark names parallel the C++ ones so the summarize scripts can put them in
the same tables:

  torch/{bf16,f32}/{qkv,o,gate_up,down}_n{N}_k{K}/M:{m}/threads:{T}
      F.linear(x, W), x M x K, W N x K (Llama-3-8B layers, M in 1,16,128,512);
      GFLOP/s = 2*M*N*K.
  prefill/torch/{bf16,f32}/{causal,full}/S={s}/threads:{T}
      one sequence, 32 query heads, 8 KV heads, d = 128. PyTorch 1.13 has no
      scaled_dot_product_attention, so: per KV head, a grouped view of its 4
      query heads, q @ k^T, scores in f32 * scale, causal mask by masked_fill_
      (mask built once), softmax in f32, back to the dtype, @ v. GFLOP/s
      counts useful work (4*d per visible query-key pair), like the C++ bench.
  decode/torch/bf16/B={b}/ctx={c}/threads:{T}
      paged KV cache (pages of 16, shuffled), per sequence: gather its pages
      through the block table (index_select), then the same composition;
      GB/s = K and V bytes read, like the C++ bench.
  moe/torch/{bf16,f32}/{qwen3-30b-a3b,mixtral-8x7b}/T:{n}/threads:{T}
      softmax routing, topk, renormalise; per expert with tokens:
      index_select its tokens, F.linear gate/up, silu(gate) * up, F.linear
      down, index_add_ of the weighted rows into an f32 accumulator; cast
      once. Counters as moe_bench: tokens, active_experts, GFLOP/s, weight_GB/s.
      Router logits are normal(0,1) plus a per-expert normal(0,0.5) bias (the
      same distribution as moe_bench.cpp, not the same numbers).

Each thread count runs in its own child process with OMP_NUM_THREADS and
OPENBLAS_NUM_THREADS set before torch loads (Debian's torch uses OpenBLAS for
f32 GEMM, whose thread pool is sized at load time) and torch.set_num_threads.
Set OPENBLAS_CORETYPE (e.g. SkylakeX) in the environment to match
gemm_bench's OpenBLAS; the core OpenBLAS picked is written to the context.

Timing: one warm-up call, then the median of >= 5 repeats (3 with --quick),
each a loop running >= 0.2 s (0.05 s with --quick), time.perf_counter.
Attention, decode and MoE results are checked against a float64 (MoE: f32)
reference before timing; a mismatch or an op PyTorch 1.13 does not support
for a dtype is written as an error entry with the message, never skipped.

Usage: /usr/bin/python3 bench/torch_peers.py --out torch.json [--threads 1,2]
           [--quick] [--only gemm,attention,decode,moe] [--filter REGEX]
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

GEMM_LAYERS = [("qkv", 6144, 4096), ("o", 4096, 4096), ("gate_up", 28672, 4096), ("down", 4096, 14336)]
GEMM_TOKENS = [1, 16, 128, 512]
HEADS, KV_HEADS, DIM, PAGE = 32, 8, 128, 16
GROUP = HEADS // KV_HEADS
PREFILL_S = [512, 1024, 2048]  # as attention_bench.cpp
DECODE = [(b, c) for b in (1, 8) for c in (1024, 4096, 16384)]
MOE_MODELS = [  # name, hidden, inter, experts, top_k, renormalise, token counts (as moe_bench.cpp)
    ("qwen3-30b-a3b", 2048, 768, 128, 8, True, [1, 16, 128, 512]),
    ("mixtral-8x7b", 4096, 14336, 8, 2, True, [1, 16, 128]),
]
QUICK = {  # fewer shapes for a smoke run
    "gemm_layers": ["o", "down"], "gemm_tokens": [1, 16, 128], "prefill_s": [512],
    "decode": [(1, 1024), (8, 4096)], "moe_tokens": {"qwen3-30b-a3b": [1, 16, 128], "mixtral-8x7b": [1]},
}


# ---------------------------------------------------------------- timing ---

def measure(fn, min_time, repeats, first_call):
    """Median seconds per call: `repeats` loops of >= min_time each, after a
    warm-up call (already made by the caller) that took `first_call` seconds.
    The warm-up is a pessimistic estimate of one call: a loop that is short
    after it goes round again, so every loop runs >= min_time."""
    one = max(first_call, 1e-7)
    inner = max(1, int(min_time / one))
    samples = []
    for _ in range(repeats):
        calls, t0 = 0, time.perf_counter()
        while True:
            for _ in range(inner):
                fn()
            calls += inner
            elapsed = time.perf_counter() - t0
            if elapsed >= min_time:
                break
        samples.append(elapsed / calls)
    return statistics.median(samples), samples


class Recorder:
    """Collects Google-Benchmark-style entries (median aggregates and errors)."""

    def __init__(self, threads, min_time, repeats, name_filter):
        self.entries, self.threads, self.min_time, self.repeats = [], threads, min_time, repeats
        self.filter = re.compile(name_filter) if name_filter else None

    def wanted(self, name):
        return not self.filter or self.filter.search(name + f"/threads:{self.threads}")

    def run(self, name, setup, counters, label=""):
        """setup() -> (fn, check) where check() returns "" or an error; counters(sec) -> dict."""
        full = f"{name}/threads:{self.threads}"
        if not self.wanted(name):
            return
        try:
            fn, check = setup()
            t0 = time.perf_counter()
            fn()  # warm-up, checked
            first = time.perf_counter() - t0
            err = check() if check else ""
            if err:
                return self.error(full, err)
            if first < self.min_time:  # a second warm-up call for short ones (allocator, primitive caches)
                t0 = time.perf_counter()
                fn()
                first = time.perf_counter() - t0
            sec, samples = measure(fn, self.min_time, self.repeats, first)
        except (RuntimeError, NotImplementedError, MemoryError) as e:
            return self.error(full, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        entry = {"name": full, "run_name": name, "run_type": "aggregate", "aggregate_name": "median",
                 "repetitions": len(samples), "threads": self.threads, "iterations": len(samples),
                 "real_time": sec * 1e3, "cpu_time": sec * 1e3, "time_unit": "ms",
                 "samples_ms": [s * 1e3 for s in samples]}
        if label:
            entry["label"] = label
        entry.update(counters(sec))
        self.entries.append(entry)
        shown = " ".join(f"{k}={v:.4g}" for k, v in counters(sec).items())
        print(f"  {full:<60} {sec * 1e3:10.3f} ms  {shown}", flush=True)

    def error(self, full, message):
        self.entries.append({"name": full, "run_name": full.rsplit("/threads:", 1)[0], "run_type": "iteration",
                             "threads": self.threads, "error_occurred": True, "error_message": message})
        print(f"  {full:<60} ERROR {message}", flush=True)


# ------------------------------------------------------------ benchmarks ---

def bench_gemm(rec, torch, F, dtypes, quick):
    layers = [l for l in GEMM_LAYERS if not quick or l[0] in QUICK["gemm_layers"]]
    tokens = QUICK["gemm_tokens"] if quick else GEMM_TOKENS
    gen = torch.Generator().manual_seed(1)
    for layer, n, k in layers:
        for dtn, dt in dtypes:
            name0 = f"torch/{dtn}/{layer}_n{n}_k{k}/M:"
            if not any(rec.wanted(name0 + str(m)) for m in tokens):
                continue
            w = (torch.rand(n, k, generator=gen) * 2 - 1).to(dt)
            for m in tokens:
                x = (torch.rand(m, k, generator=gen) * 2 - 1).to(dt)

                def setup(x=x, w=w):
                    return (lambda: F.linear(x, w)), None
                rec.run(name0 + str(m), setup, lambda s, m=m: {"GFLOP/s": 2.0 * m * n * k / s * 1e-9})
            del w


def attention_rows(torch, q, k, v, rows, scale, causal):
    """float64 attention of query rows [(i, h, visible-from-kv-rows)] -> list of (got_index, want)."""
    out = []
    for i, h in rows:
        g = h // GROUP
        vis = i + 1 if causal else k.shape[0]
        s = (k[:vis, g].double() @ q[i, h].double()) * scale
        p = torch.softmax(s, dim=0)
        out.append(((i, h), p @ v[:vis, g].double()))
    return out


def bench_prefill(rec, torch, F, dtypes, quick):
    sizes = QUICK["prefill_s"] if quick else PREFILL_S
    scale = 1.0 / math.sqrt(DIM)
    for dtn, dt in dtypes:
        for causal in (True, False):
            for s in sizes:
                name = f"prefill/torch/{dtn}/{'causal' if causal else 'full'}/S={s}"
                if not rec.wanted(name):
                    continue

                def setup(s=s, causal=causal, dt=dt):
                    gen = torch.Generator().manual_seed(s)
                    q = ((torch.rand(s, HEADS, DIM, generator=gen) * 4 - 2)).to(dt)
                    k = ((torch.rand(s, KV_HEADS, DIM, generator=gen) * 4 - 2)).to(dt)
                    v = ((torch.rand(s, KV_HEADS, DIM, generator=gen) * 2 - 1)).to(dt)
                    o = torch.full((s, HEADS, DIM), float("nan"), dtype=dt)
                    mask = torch.ones(s, s, dtype=torch.bool).triu_(1) if causal else None

                    def run():
                        for g in range(KV_HEADS):
                            qg = q[:, g * GROUP:(g + 1) * GROUP].permute(1, 0, 2)  # [G, S, D]
                            sc = torch.matmul(qg, k[:, g].t()).float().mul_(scale)  # [G, S, S] f32
                            if mask is not None:
                                sc.masked_fill_(mask, float("-inf"))
                            p = torch.softmax(sc, dim=-1).to(dt)
                            o[:, g * GROUP:(g + 1) * GROUP] = torch.matmul(p, v[:, g]).permute(1, 0, 2)

                    def check():
                        tol = 1e-4 if dt == torch.float32 else 2e-2
                        rows = [(i, h) for h in (0, HEADS - 1) for i in (0, s // 3, s - 1)]
                        for (i, h), want in attention_rows(torch, q, k, v, rows, scale, causal):
                            err = (o[i, h].double() - want).abs().max().item()
                            if not err <= tol:
                                return f"wrong output at query {i}, head {h}: max error {err:.3g} > {tol}"
                        return ""
                    return run, check
                pairs = s * (s + 1) / 2 if causal else float(s) * s
                rec.run(name, setup, lambda sec, pairs=pairs: {"GFLOP/s": 4.0 * DIM * HEADS * pairs / sec * 1e-9})


def bench_decode(rec, torch, F, quick):
    dt, scale = torch.bfloat16, 1.0 / math.sqrt(DIM)
    for batch, ctx in (QUICK["decode"] if quick else DECODE):
        name = f"decode/torch/bf16/B={batch}/ctx={ctx}"
        if not rec.wanted(name):
            continue

        def setup(batch=batch, ctx=ctx):
            gen = torch.Generator().manual_seed(batch * 7 + ctx)
            pages = (ctx + PAGE - 1) // PAGE
            q = (torch.rand(batch, HEADS, DIM, generator=gen) * 4 - 2).to(dt)
            kc = (torch.rand(batch * pages, PAGE, KV_HEADS, DIM, generator=gen) * 4 - 2).to(dt)
            vc = (torch.rand(batch * pages, PAGE, KV_HEADS, DIM, generator=gen) * 2 - 1).to(dt)
            table = torch.randperm(batch * pages, generator=gen).view(batch, pages).to(torch.int32)
            lens = [ctx] * batch
            table64 = table.long()  # index_select wants int64 rows; converted once, like a serving engine would
            o = torch.full((batch, HEADS, DIM), float("nan"), dtype=dt)

            def run():
                for b in range(batch):
                    n = lens[b]
                    used = table64[b, :(n + PAGE - 1) // PAGE]
                    kb = kc.index_select(0, used).view(-1, KV_HEADS, DIM)[:n]  # [n, Hkv, D]
                    vb = vc.index_select(0, used).view(-1, KV_HEADS, DIM)[:n]
                    qb = q[b].view(KV_HEADS, GROUP, DIM)
                    sc = torch.matmul(qb, kb.permute(1, 2, 0)).float().mul_(scale)  # [Hkv, G, n]
                    p = torch.softmax(sc, dim=-1).to(dt)
                    o[b] = torch.matmul(p, vb.permute(1, 0, 2)).reshape(HEADS, DIM)

            def check():
                b = batch - 1
                rows = table64[b].tolist()
                kb = kc[rows].reshape(-1, KV_HEADS, DIM)[:ctx]
                vb = vc[rows].reshape(-1, KV_HEADS, DIM)[:ctx]
                for h in (0, HEADS - 1):
                    g = h // GROUP
                    p = torch.softmax((kb[:, g].double() @ q[b, h].double()) * scale, dim=0)
                    err = (o[b, h].double() - p @ vb[:, g].double()).abs().max().item()
                    if not err <= 2e-2:
                        return f"wrong decode output, head {h}: max error {err:.3g} > 0.02"
                return ""
            return run, check
        kv_bytes = 2.0 * batch * ctx * KV_HEADS * DIM * 2
        rec.run(name, setup, lambda sec, kv=kv_bytes: {"GB/s": kv / sec * 1e-9})


def moe_weights(torch, hidden, inter, experts, dt, seed):
    """[E, 2I, H] gate/up (gate rows first) and [E, H, I] down, scaled by 1/sqrt(fan-in); built expert by expert."""
    gen = torch.Generator().manual_seed(seed)
    wgu = torch.empty(experts, 2 * inter, hidden, dtype=dt)
    wd = torch.empty(experts, hidden, inter, dtype=dt)
    for e in range(experts):
        wgu[e] = (torch.rand(2 * inter, hidden, generator=gen) * 2 - 1).mul_(1 / math.sqrt(hidden))
        wd[e] = (torch.rand(hidden, inter, generator=gen) * 2 - 1).mul_(1 / math.sqrt(inter))
    return wgu, wd


def bench_moe(rec, torch, F, dtypes, quick):
    for model, hidden, inter, experts, top_k, renorm, tokens in MOE_MODELS:
        if quick:
            tokens = QUICK["moe_tokens"][model]
        bias = torch.randn(experts, generator=torch.Generator().manual_seed(experts)) * 0.5
        for dtn, dt in dtypes:
            names = [f"moe/torch/{dtn}/{model}/T:{n}" for n in tokens]
            if not any(rec.wanted(nm) for nm in names):
                continue
            try:
                wgu, wd = moe_weights(torch, hidden, inter, experts, dt, seed=hidden)
            except (RuntimeError, MemoryError) as e:
                for nm in names:
                    rec.error(f"{nm}/threads:{rec.threads}", f"cannot build the expert weights: {e}")
                continue
            for n, name in zip(tokens, names):
                gen = torch.Generator().manual_seed(n * 1009 + experts)  # the same tokens and routing in both dtypes
                x = (torch.rand(n, hidden, generator=gen) * 2 - 1).to(dt)
                logits = torch.randn(n, experts, generator=gen) + bias
                out = torch.full((n, hidden), float("nan"), dtype=dt)
                active = [0]

                def run(x=x, logits=logits, out=out, n=n):
                    probs = torch.softmax(logits, dim=-1)
                    topw, topi = probs.topk(top_k, dim=-1)
                    if renorm:
                        topw = topw / topw.sum(dim=-1, keepdim=True)
                    flat = topi.reshape(-1)
                    order = torch.sort(flat, stable=True)[1]
                    counts = torch.bincount(flat, minlength=experts).tolist()
                    token_of = order // top_k
                    weight_of = topw.reshape(-1)[order]
                    acc = torch.zeros(n, hidden, dtype=torch.float32)
                    start = 0
                    for e, c in enumerate(counts):
                        if not c:
                            continue
                        idx = token_of[start:start + c]
                        gu = F.linear(x.index_select(0, idx), wgu[e])
                        h = F.silu(gu[:, :inter]) * gu[:, inter:]
                        y = F.linear(h, wd[e])
                        acc.index_add_(0, idx, y.float() * weight_of[start:start + c, None])
                        start += c
                    out.copy_(acc)
                    active[0] = sum(1 for c in counts if c)

                def check(x=x, logits=logits, out=out, n=n):
                    tol = 1e-4 if dt == torch.float32 else 2e-2
                    for t in sorted({0, n - 1}):
                        probs = torch.softmax(logits[t].double(), dim=-1)
                        w, ids = probs.topk(top_k)
                        if renorm:
                            w = w / w.sum()
                        want = torch.zeros(hidden, dtype=torch.float64)
                        xt = x[t].float()
                        for wj, e in zip(w.tolist(), ids.tolist()):
                            gu = wgu[e].float() @ xt
                            h = F.silu(gu[:inter]) * gu[inter:]
                            want += wj * (wd[e].float() @ h).double()
                        got = out[t].double()
                        rel = ((got - want).norm() / want.norm()).item()
                        if not rel <= tol:
                            return f"wrong MoE output for token {t}: relative L2 error {rel:.3g} > {tol}"
                    return ""

                def setup(run=run, check=check):
                    return run, check
                flops = 2.0 * n * top_k * 3 * hidden * inter
                wbytes = 3.0 * hidden * inter * (4 if dt == torch.float32 else 2)
                rec.run(name, setup, lambda sec, flops=flops, wbytes=wbytes: {
                    "tokens": float(n), "active_experts": float(active[0]),
                    "GFLOP/s": flops / sec * 1e-9, "weight_GB/s": active[0] * wbytes / sec * 1e-9})
            del wgu, wd


# ------------------------------------------------------------ processes ---

def openblas_core():
    try:
        import ctypes
        lib = ctypes.CDLL("libblas.so.3")
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return lib.openblas_get_corename().decode()
    except (OSError, AttributeError):
        return "unknown (not OpenBLAS)"


def child(args):
    """Runs every selected benchmark at one thread count; writes its entries as JSON."""
    import torch
    import torch.nn.functional as F
    threads = args.child
    torch.set_num_threads(threads)
    quick = args.quick
    rec = Recorder(threads, 0.05 if quick else 0.2, 3 if quick else 5, args.filter)
    dtypes = [("bf16", torch.bfloat16), ("f32", torch.float32)]
    only = set(args.only.split(","))
    print(f"threads {threads} (torch {torch.__version__}, OpenBLAS core {openblas_core()})", flush=True)
    if "gemm" in only:
        bench_gemm(rec, torch, F, dtypes, quick)
    if "attention" in only:
        bench_prefill(rec, torch, F, dtypes, quick)
    if "decode" in only:
        bench_decode(rec, torch, F, quick)
    if "moe" in only:
        bench_moe(rec, torch, F, dtypes, quick)
    info = {"torch_version": torch.__version__, "openblas_core": openblas_core(),
            "torch_parallel": torch.__config__.parallel_info().splitlines()[1].strip(),
            "cpu_capability": next((l.split(":", 1)[1].strip() for l in torch.__config__.show().splitlines()
                                    if "CPU capability" in l), "unknown")}
    with open(args.child_out, "w") as f:
        json.dump({"info": info, "benchmarks": rec.entries}, f)


def print_table(entries, threads):
    """One row per benchmark: its main counter at each thread count."""
    rows = {}
    for e in entries:
        metric = next((k for k in ("GFLOP/s", "GB/s") if k in e), None)
        value = "error" if e.get("error_occurred") else f"{e[metric]:.2f} {metric}" if metric else "?"
        rows.setdefault(e["run_name"], {})[e["threads"]] = value
    width = max((len(n) for n in rows), default=10)
    print("\n" + f"{'benchmark':<{width}}" + "".join(f"{f'threads {t}':>22}" for t in threads))
    for name, by_threads in rows.items():
        print(f"{name:<{width}}" + "".join(f"{by_threads.get(t, '-'):>22}" for t in threads))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=False, help="Google-Benchmark-style JSON to write")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    ap.add_argument("--quick", action="store_true", help="fewer shapes, 3 repeats of >= 0.05 s")
    ap.add_argument("--only", default="gemm,attention,decode,moe", help="subset of gemm,attention,decode,moe")
    ap.add_argument("--filter", default="", help="regex on benchmark names (with /threads:T)")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    bad = set(args.only.split(",")) - {"gemm", "attention", "decode", "moe"}
    if bad:
        ap.error(f"--only expects a subset of gemm,attention,decode,moe; found {','.join(sorted(bad))}")
    if args.child:
        return child(args)
    if not args.out:
        ap.error("--out is required")
    threads = [int(t) for t in args.threads.split(",") if t.strip()]
    if not threads or min(threads) < 1:
        ap.error(f"--threads expects positive integers, found '{args.threads}'")
    entries, info, started = [], {}, time.time()
    for t in threads:
        env = dict(os.environ, OMP_NUM_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t), MKL_NUM_THREADS=str(t))
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
            part = tmp.name
        cmd = [sys.executable, os.path.abspath(__file__), "--child", str(t), "--child-out", part,
               "--only", args.only, "--filter", args.filter] + (["--quick"] if args.quick else [])
        rc = subprocess.call(cmd, env=env)
        if rc != 0:
            print(f"the run with {t} threads failed (exit status {rc})", file=sys.stderr)
            os.unlink(part)
            return 1
        with open(part) as f:
            data = json.load(f)
        os.unlink(part)
        entries += data["benchmarks"]
        info = data["info"]
    context = {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
               "host_name": os.uname().nodename, "executable": os.path.abspath(__file__),
               "num_cpus": os.cpu_count(), "library": "torch", "threads": args.threads,
               "quick": args.quick, "duration_s": round(time.time() - started, 1),
               "openblas_coretype_env": os.environ.get("OPENBLAS_CORETYPE", ""), **info}
    with open(args.out, "w") as f:
        json.dump({"context": context, "benchmarks": entries}, f, indent=1)
    print_table(entries, threads)
    print(f"\n{len(entries)} entries ({sum(1 for e in entries if e.get('error_occurred'))} errors) "
          f"in {context['duration_s']} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
