#!/usr/bin/env python3
"""Turns argus_verify_bench's JSON (--benchmark_out) into the markdown table of
bench/results/verifier-times.md: median verification time per kernel, with the
corpus README's bug kind and expected check next to each broken kernel."""
import json
import re
import sys
from pathlib import Path

def corpus_expectations(root):
    out = {}
    for f in sorted((root / "test/verifier/corpus").glob("*.argus")):
        text = f.read_text()
        expect = re.search(r"# EXPECT: ([a-z-]+)", text)
        bug = re.search(r"# BUG: (.*)", text)
        out[f.stem] = (expect.group(1) if expect else "?", bug.group(1).strip() if bug else "")
    return out

def main():
    bench = json.load(open(sys.argv[1]))
    root = Path(sys.argv[2])
    expect = corpus_expectations(root)
    rows = []
    for b in bench["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        name = b["run_name"].split("/iterations")[0]
        kind, stem = name.split("/", 1)
        stem = stem.split("/")[-1] if kind == "corpus" else stem
        check, bug = expect.get(stem, ("proved", "")) if kind == "corpus" else ("proved", "shipped template")
        rows.append((name, check, "yes" if b.get("proved", 0) >= 1 else "no", b["real_time"], bug))
    print("| kernel | expected | proved | median ms | planted bug |")
    print("|---|---|---|---:|---|")
    for name, check, proved, ms, bug in rows:
        print(f"| {name} | {check} | {proved} | {ms:.0f} | {bug} |")
    times = sorted(r[3] for r in rows)
    print()
    print(f"{len(rows)} kernels; median of medians {times[len(times)//2]:.0f} ms; "
          f"{sum(t < 1000 for t in times)} under 1 s; slowest {times[-1]:.0f} ms.")

if __name__ == "__main__":
    main()
