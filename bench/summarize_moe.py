#!/usr/bin/env python3
"""Turns argus_moe_bench JSON (and torch_peers.py JSON) into Markdown tables of medians.

Why this file exists: the results file in bench/results/ must be regenerated
from the raw JSON the same way every time, not hand-copied.

Usage: bench/summarize_moe.py MOE.json [TORCH.json] [MORE.json ...] [--torch-threads T]
  MOE.json    argus_moe_bench --benchmark_out output (argus and the oneDNN composition)
  TORCH.json  torch_peers.py --out output; its moe/torch entries whose thread
              count equals MOE.json's context "threads" fill the torch column
              (override with --torch-threads).
  Files are told apart by their context (torch_peers.py writes library: torch),
  so several argus_moe_bench files may be merged, e.g. one run per model
  against the library generated from that model's catalog.
One table per dtype: GFLOP/s (2*tokens*top_k*3*hidden*inter per call) of each
peer, argus's weight GB/s, the ratios, and geometric means of argus/oneDNN and
argus/torch; with argus_packed entries (weights packed by argus_pack_weights)
also its GFLOP/s and argus packed/oneDNN (the composition's weights are plain).
"""
import argparse
import json
import math
import re

CPP = re.compile(r"^moe/(?P<lib>argus|argus_packed|onednn)/(?P<dt>f32|bf16)/(?P<model>[A-Za-z0-9_.-]+)/T:(?P<n>\d+)(/|$)")
TORCH = re.compile(r"^moe/torch/(?P<dt>f32|bf16)/(?P<model>[A-Za-z0-9_.-]+)/T:(?P<n>\d+)/threads:(?P<t>\d+)")
MODEL_ORDER = {"qwen3-30b-a3b": 0, "mixtral-8x7b": 1}
SHAPES = {"qwen3-30b-a3b": "H 2048, 128 experts × I 768, top-8",
          "mixtral-8x7b": "H 4096, 8 experts × I 14336, top-2"}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def collect(benchmarks, pattern, lib_of, keep=lambda g: True):
    """{(dt, model, n): {lib: entry}} of medians and {(dt, model, n): {lib: message}} of errors.
    A run without repetitions (--benchmark_repetitions=1) has no median: its one
    iteration entry stands in."""
    rows, single, errors = {}, {}, {}
    for b in benchmarks:
        g = pattern.match(b["name"])
        if not g or not keep(g):
            continue
        key = (g["dt"], g["model"], int(g["n"]))
        if b.get("error_occurred"):
            errors.setdefault(key, {})[lib_of(g)] = b.get("error_message", "error")
        elif b.get("aggregate_name") == "median":
            rows.setdefault(key, {})[lib_of(g)] = b
        elif b.get("run_type") == "iteration":
            single.setdefault(key, {})[lib_of(g)] = b
    for key, libs in single.items():
        for lib, b in libs.items():
            rows.setdefault(key, {}).setdefault(lib, b)
    return rows, errors


def main():
    ap = argparse.ArgumentParser(description="Markdown tables of argus_moe_bench (and torch_peers.py) medians")
    ap.add_argument("files", nargs="+", help="argus_moe_bench JSON first, then torch_peers.py JSON (optional)")
    ap.add_argument("--torch-threads", type=int, help="thread count of the torch entries to use")
    args = ap.parse_args()
    cpp, torch_files = [], []
    for path in args.files:
        with open(path) as f:
            d = json.load(f)
        (torch_files if d.get("context", {}).get("library") == "torch" else cpp).append(d)
    if not cpp:
        ap.error("expected at least one argus_moe_bench JSON file")
    data = {"context": cpp[0].get("context", {}), "benchmarks": [b for d in cpp for b in d["benchmarks"]]}
    threads = args.torch_threads or int(data.get("context", {}).get("threads", 0) or 0)
    rows, errors = collect(data["benchmarks"], CPP, lambda g: g["lib"])
    torch_info = ""
    for tdata in torch_files:
        trows, terrs = collect(tdata["benchmarks"], TORCH, lambda g: "torch",
                               keep=lambda g: not threads or int(g["t"]) == threads)
        for src, dst in ((trows, rows), (terrs, errors)):
            for key, v in src.items():
                dst.setdefault(key, {}).update(v)
        ctx = tdata.get("context", {})
        torch_info = (f"torch {ctx.get('torch_version', '?')} ({ctx.get('cpu_capability', '?')}, OpenBLAS core "
                      f"{ctx.get('openblas_core', '?')}), {threads} threads")
    ctx = data.get("context", {})
    libraries = ", ".join(sorted({d.get("context", {}).get("argus_library", "?") for d in cpp}))
    print(f"Threads: {ctx.get('threads', '?')}; oneDNN {ctx.get('onednn', '—')}; "
          f"library {libraries}" + (f"; {torch_info}" if torch_info else ""))
    fmt = lambda v, d=1: f"{v:.{d}f}" if v is not None else "—"
    for dt in ("bf16", "f32"):
        keys = sorted({k for k in list(rows) + list(errors) if k[0] == dt},
                      key=lambda k: (MODEL_ORDER.get(k[1], 9), k[1], k[2]))
        if not keys:
            continue
        print(f"\n### {dt}\n")
        print("| model | tokens | active experts | argus ms | argus GFLOP/s | argus weight GB/s "
              "| argus packed GFLOP/s | oneDNN composition GFLOP/s | torch GFLOP/s | argus / oneDNN | argus / torch "
              "| argus packed / oneDNN |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        ratios = {"onednn": [], "torch": []}
        packed_ratios = []
        for key in keys:
            r, e = rows.get(key, {}), errors.get(key, {})

            def cell(lib, counter="GFLOP/s", digits=1):
                if lib in r:
                    return fmt(r[lib].get(counter), digits)
                return "error" if lib in e else "—"
            a = r.get("argus", {}).get("GFLOP/s")
            ratio = {}
            for peer in ratios:
                p = r.get(peer, {}).get("GFLOP/s")
                ratio[peer] = a / p if a and p else None
                if ratio[peer]:
                    ratios[peer].append(ratio[peer])
            ap, op = r.get("argus_packed", {}).get("GFLOP/s"), r.get("onednn", {}).get("GFLOP/s")
            packed_ratio = ap / op if ap and op else None
            if packed_ratio:
                packed_ratios.append(packed_ratio)
            active = next((r[lib]["active_experts"] for lib in ("argus", "onednn", "torch")
                           if lib in r and "active_experts" in r[lib]), None)
            ms = r["argus"]["real_time"] if "argus" in r else None
            _, model, n = key
            print(f"| {model} | {n} | {fmt(active, 0)} | {fmt(ms, 3)} | {cell('argus')} | "
                  f"{cell('argus', 'weight_GB/s', 2)} | {cell('argus_packed')} | {cell('onednn')} | {cell('torch')} | "
                  f"{fmt(ratio['onednn'], 2)} | {fmt(ratio['torch'], 2)} | {fmt(packed_ratio, 2)} |")
        for peer, values in ratios.items():
            if values:
                print(f"\nGeometric mean of argus / {peer} over {len(values)} shapes: {geomean(values):.2f}")
        if packed_ratios:
            print(f"\nGeometric mean of argus packed / onednn over {len(packed_ratios)} shapes: "
                  f"{geomean(packed_ratios):.2f}")
    print("\nShapes: " + "; ".join(f"{m}: {s}" for m, s in SHAPES.items()) + ".")
    for key, e in sorted(errors.items()):
        for lib, msg in e.items():
            print(f"\nerror {lib} {key}: {msg}")


if __name__ == "__main__":
    main()
