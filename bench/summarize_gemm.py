#!/usr/bin/env python3
"""Turns argus_gemm_bench JSON output into a Markdown table of median GFLOP/s.

Why this file exists: the results file in bench/results/ must be regenerated
from the raw JSON the same way every time, not hand-copied.

Usage: bench/summarize_gemm.py bench/results/cpu-gemm-llama3-8b.json
"""
import json
import re
import sys

NAME = re.compile(r"^(?P<lib>[a-z_]+)/(?P<dt>f32|bf16)/(?P<layer>[a-z_]+)_n(?P<n>\d+)_k(?P<k>\d+)/M:(?P<m>\d+)/")


def main(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}    # (dt, layer, n, k, m) -> {lib: gflops}
    errors = {}  # (dt, layer, n, k, m) -> {lib: message}
    for b in data["benchmarks"]:
        g = NAME.match(b["name"])
        if not g:
            continue
        key = (g["dt"], g["layer"], int(g["n"]), int(g["k"]), int(g["m"]))
        if b.get("error_occurred"):
            errors.setdefault(key, {})[g["lib"]] = b.get("error_message", "error")
        elif b.get("aggregate_name") == "median":
            rows.setdefault(key, {})[g["lib"]] = b["GFLOP/s"]
    libs = ["argus", "onednn_plain", "onednn_packed", "openblas"]
    order = {"qkv": 0, "o": 1, "gate_up": 2, "down": 3}
    for dt in ("bf16", "f32"):
        print(f"\n### {dt}\n")
        print("| layer | N×K | M | argus | oneDNN plain | oneDNN packed | OpenBLAS | argus / oneDNN plain |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
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
            ratio = f"{r['argus'] / r['onednn_plain']:.2f}" if "argus" in r and r.get("onednn_plain") else "—"
            _, layer, n, k, m = key
            print(f"| {layer} | {n}×{k} | {m} | " + " | ".join(cells) + f" | {ratio} |")
    for key, e in sorted(errors.items()):
        for lib, msg in e.items():
            print(f"\nerror {lib} {key}: {msg}")


if __name__ == "__main__":
    main(sys.argv[1])
