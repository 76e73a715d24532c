#!/usr/bin/env python3
"""Turns argus_gemm_bench JSON output into a Markdown table of median GFLOP/s.

Why this file exists: the results file in bench/results/ must be regenerated
from the raw JSON the same way every time, not hand-copied.

Usage: bench/summarize_gemm.py GEMM.json [PEAK.json] [--torch TORCH.json --threads T]
  PEAK.json (argus_peak_bench output) adds Argus's fraction of the measured peak;
  TORCH.json (bench/torch_peers.py output) adds PyTorch's F.linear run with T threads.
"""
import argparse
import json
import math
import re

NAME = re.compile(r"^(?P<lib>[a-z_]+)/(?P<dt>f32|bf16)/(?P<layer>[a-z_]+)_n(?P<n>\d+)_k(?P<k>\d+)/M:(?P<m>\d+)/")


def peaks(path, threads):
    """Median GFLOP/s of each argus_peak_bench loop, by its name (f32_fma_avx512, ...),
    scaled to `threads` threads (a per-core peak times the threads the GEMMs ran with)."""
    if not path:
        return {}
    with open(path) as f:
        data = json.load(f)
    return {b["name"].split("/")[1]: b["GFLOP/s"] * threads / b.get("threads", threads) for b in data["benchmarks"]
            if b.get("aggregate_name") == "median" and "GFLOP/s" in b}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def torch_benchmarks(path, threads):
    """PyTorch entries of torch_peers.py run with `threads` threads."""
    if not path:
        return []
    with open(path) as f:
        data = json.load(f)
    return [b for b in data["benchmarks"] if b["name"].endswith(f"/threads:{threads}")]


def main(path, peak_path=None, torch_path=None, threads=2):
    with open(path) as f:
        data = json.load(f)
    rows = {}    # (dt, layer, n, k, m) -> {lib: gflops}
    errors = {}  # (dt, layer, n, k, m) -> {lib: message}
    for b in data["benchmarks"] + torch_benchmarks(torch_path, threads):
        g = NAME.match(b["name"])
        if not g:
            continue
        key = (g["dt"], g["layer"], int(g["n"]), int(g["k"]), int(g["m"]))
        if b.get("error_occurred"):
            errors.setdefault(key, {})[g["lib"]] = b.get("error_message", "error")
        elif b.get("aggregate_name") == "median":
            rows.setdefault(key, {})[g["lib"]] = b["GFLOP/s"]
    libs = ["argus", "argus_packed", "onednn_plain", "onednn_packed", "openblas", "torch"]
    gemm_threads = int(data["context"].get("threads", threads))
    peak = peaks(peak_path, gemm_threads)
    order = {"qkv": 0, "o": 1, "gate_up": 2, "down": 3}
    for dt in ("bf16", "f32"):
        print(f"\n### {dt}\n")
        print("| layer | N×K | M | argus | argus packed | oneDNN plain | oneDNN packed | OpenBLAS | PyTorch "
              "| argus / oneDNN plain | argus packed / oneDNN packed |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        keys = sorted({k for k in list(rows) + list(errors) if k[0] == dt},
                      key=lambda k: (order.get(k[1], 9), k[4]))
        for key in keys:
            r, e = rows.get(key, {}), errors.get(key, {})
            cells = []
            for lib in libs:
                if lib in r:
                    cells.append(f"{r[lib]:.1f}")
                elif lib in e:
                    cells.append("error")
                else:
                    cells.append("—")
            ratios = [f"{r[mine] / r[peer]:.2f}" if mine in r and r.get(peer) else "—"
                      for mine, peer in (("argus", "onednn_plain"), ("argus_packed", "onednn_packed"))]
            _, layer, n, k, m = key
            print(f"| {layer} | {n}×{k} | {m} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
        for mine, peer in [("argus", p) for p in ("onednn_plain", "onednn_packed", "openblas", "torch")] + [
                ("argus_packed", "onednn_packed"), ("argus_packed", "argus")]:
            ratios = [rows[k][mine] / rows[k][peer] for k in keys
                      if mine in rows.get(k, {}) and rows[k].get(peer)]
            if ratios:
                print(f"\nGeometric mean of {mine} / {peer} over {len(ratios)} shapes: {geomean(ratios):.2f}")
        if peak:
            relevant = ("bf16_amx_tdpbf16ps", "bf16_vdpbf16ps") if dt == "bf16" else ("f32_fma_avx512",)
            for name, value in sorted((n, v) for n, v in peak.items() if n in relevant):
                for mine in ("argus", "argus_packed"):
                    best = max((rows[k][mine] for k in keys if mine in rows.get(k, {})), default=0)
                    if best:
                        print(f"Best {mine} {dt} GFLOP/s {best:.1f} = {100 * best / value:.0f}% of the measured {name} "
                              f"peak for {gemm_threads} thread(s) ({value:.0f} GFLOP/s)")
    for key, e in sorted(errors.items()):
        for lib, msg in e.items():
            print(f"\nerror {lib} {key}: {msg}")


if __name__ == "__main__":
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("gemm")
    cli.add_argument("peak", nargs="?")
    cli.add_argument("--torch", help="torch_peers.py JSON")
    cli.add_argument("--threads", type=int, default=2, help="thread count of the torch entries to use")
    a = cli.parse_args()
    main(a.gemm, a.peak, a.torch, a.threads)
