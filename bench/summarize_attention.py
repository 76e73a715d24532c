#!/usr/bin/env python3
"""Turns argus_attention_bench JSON output into Markdown tables (medians).

Prefill: GFLOP/s of Argus and of the oneDNN composition, and their ratio.
Decode: GB/s of K/V read, against the copy bandwidth, the streaming read and the read of
scattered 32 KiB pages in decode's order (stream/read_pages_32KiB) measured in the same run.

Usage: bench/summarize_attention.py ATTENTION.json [--torch TORCH.json --threads T]
  TORCH.json (bench/torch_peers.py output) adds PyTorch's composition run with T threads.
"""
import argparse
import json
import re

PREFILL = re.compile(r"^prefill/(?P<lib>argus|onednn|torch)/(?P<dt>f32|bf16)/(?P<mask>causal|full)/S=(?P<s>\d+)/")
DECODE = re.compile(r"^decode/(?P<lib>argus|torch)/bf16/B=(?P<b>\d+)/ctx=(?P<c>\d+)/")


def torch_medians(path, threads):
    """PyTorch entries of torch_peers.py run with `threads` threads."""
    if not path:
        return []
    with open(path) as f:
        data = json.load(f)
    return [b for b in data["benchmarks"]
            if b["name"].endswith(f"/threads:{threads}") and b.get("aggregate_name") == "median"]


def main(path, torch_path=None, threads=2):
    with open(path) as f:
        data = json.load(f)
    medians = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    medians += torch_medians(torch_path, threads)
    errors = [b for b in data["benchmarks"] if b.get("error_occurred")]
    copy = next((b["GB/s"] for b in medians if b["name"].startswith("copy/")), None)
    read = next((b["GB/s"] for b in medians if b["name"].startswith("stream/read_1GiB")), None)
    pages = next((b["GB/s"] for b in medians if b["name"].startswith("stream/read_pages")), None)
    prefill = {}
    for b in medians:
        g = PREFILL.match(b["name"])
        if g:
            prefill.setdefault((g["dt"], g["mask"], int(g["s"])), {})[g["lib"]] = b["GFLOP/s"]
    print("### Prefill (GFLOP/s of useful work, Llama-3-8B: 32 heads, 8 KV heads, d = 128, one sequence)\n")
    print("| dtype | mask | S | argus | oneDNN composition | PyTorch | argus / oneDNN | argus / PyTorch |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    fmt = lambda v: f"{v:.1f}" if v else "—"
    ratio = lambda a, b: f"{a / b:.2f}" if a and b else "—"
    for (dt, mask, s), r in sorted(prefill.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
        a, o, t = r.get("argus"), r.get("onednn"), r.get("torch")
        print(f"| {dt} | {mask} | {s} | {fmt(a)} | {fmt(o)} | {fmt(t)} | {ratio(a, o)} | {ratio(a, t)} |")
    print(f"\n### Decode (bf16, paged, pages of 16; GB/s of K and V read)\n")
    print(f"Measured copy bandwidth (memcpy of 256 MiB, same threads, same run): "
          f"{copy:.1f} GB/s\n" if copy else "No copy bandwidth measured.\n")
    print(f"Measured streaming read (1 GiB, same threads, same run): "
          f"{read:.1f} GB/s\n" if read else "No streaming read measured.\n")
    print(f"Measured read of 1 GiB as scattered 32 KiB pages, head by head (same threads, same run): "
          f"{pages:.1f} GB/s\n" if pages else "No page read measured.\n")
    decode = {}
    for b in medians:
        g = DECODE.match(b["name"])
        if g:
            decode.setdefault((int(g["b"]), int(g["c"])), {})[g["lib"]] = b["GB/s"]
    print("| batch | context | argus GB/s | of copy bandwidth | of streaming read | of page read | PyTorch GB/s |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    share = lambda a, roof: f"{100 * a / roof:.0f}%" if roof and a else "—"
    for (batch, context), r in sorted(decode.items()):
        a, t = r.get("argus"), r.get("torch")
        cells = f"{share(a, copy)} | {share(a, read)} | {share(a, pages)}"
        print(f"| {batch} | {context} | {a:.2f} | {cells} | {t:.2f} |" if a and t else
              f"| {batch} | {context} | {fmt(a)} | {cells} | {fmt(t)} |")
    for b in errors:
        print(f"\nerror {b['name']}: {b.get('error_message', 'error')}")


if __name__ == "__main__":
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("attention")
    cli.add_argument("--torch", help="torch_peers.py JSON")
    cli.add_argument("--threads", type=int, default=2, help="thread count of the torch entries to use")
    a = cli.parse_args()
    main(a.attention, a.torch, a.threads)
