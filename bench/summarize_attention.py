#!/usr/bin/env python3
"""Turns argus_attention_bench JSON output into Markdown tables (medians).

Prefill: GFLOP/s of Argus and of the oneDNN composition, and their ratio.
Decode: GB/s of K/V read, against the measured copy bandwidth of the same run.

Usage: bench/summarize_attention.py ATTENTION.json
"""
import json
import re
import sys

PREFILL = re.compile(r"^prefill/(?P<lib>argus|onednn)/(?P<dt>f32|bf16)/(?P<mask>causal|full)/S=(?P<s>\d+)/")
DECODE = re.compile(r"^decode/argus/bf16/B=(?P<b>\d+)/ctx=(?P<c>\d+)/")


def main(path):
    with open(path) as f:
        data = json.load(f)
    medians = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    errors = [b for b in data["benchmarks"] if b.get("error_occurred")]
    copy = next((b["GB/s"] for b in medians if b["name"].startswith("copy/")), None)
    prefill = {}
    for b in medians:
        g = PREFILL.match(b["name"])
        if g:
            prefill.setdefault((g["dt"], g["mask"], int(g["s"])), {})[g["lib"]] = b["GFLOP/s"]
    print("### Prefill (GFLOP/s of useful work, Llama-3-8B: 32 heads, 8 KV heads, d = 128, one sequence)\n")
    print("| dtype | mask | S | argus | oneDNN composition | argus / oneDNN |")
    print("|---|---|---:|---:|---:|---:|")
    for (dt, mask, s), r in sorted(prefill.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
        a, o = r.get("argus"), r.get("onednn")
        ratio = f"{a / o:.2f}" if a and o else "—"
        fmt = lambda v: f"{v:.1f}" if v else "—"
        print(f"| {dt} | {mask} | {s} | {fmt(a)} | {fmt(o)} | {ratio} |")
    print(f"\n### Decode (bf16, paged, pages of 16; GB/s of K and V read)\n")
    print(f"Measured copy bandwidth (memcpy of 256 MiB, same threads, same run): "
          f"{copy:.1f} GB/s\n" if copy else "No copy bandwidth measured.\n")
    print("| batch | context | argus GB/s | of copy bandwidth |")
    print("|---:|---:|---:|---:|")
    for b in medians:
        g = DECODE.match(b["name"])
        if g:
            frac = f"{100 * b['GB/s'] / copy:.0f}%" if copy else "—"
            print(f"| {g['b']} | {g['c']} | {b['GB/s']:.2f} | {frac} |")
    for b in errors:
        print(f"\nerror {b['name']}: {b.get('error_message', 'error')}")


if __name__ == "__main__":
    main(sys.argv[1])
