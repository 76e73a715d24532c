#!/usr/bin/env python3
"""Markdown tables of an argus_gemm_bench run on an AVX2-only CPU (bench/results/cpu-gemm-llama3-8b-avx2.md).

Usage: summarize_gemm_avx2.py BENCH.json THREADS PEAK_GFLOPS READ_GBPS

Unlike summarize_gemm.py it takes the peaks on the command line (argus_peak_bench times
AVX-512 loops only; argus-gen measures the AVX2 FMA and read roofs into the tuning
database, note machine_peaks), and bf16 rows are compared with the f32 peers: oneDNN 2.6
has no bf16 matmul without AVX-512, so f32 is what a user of this CPU would run.
A zero peak leaves its fraction out.
"""
import json, math, sys
path, threads, peak_gflops, read_gbps = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
d = json.load(open(path))
t = {}
for b in d['benchmarks']:
    if not b['name'].endswith('_median'): continue
    lib, dtype, layer, m = b['name'].split('/')[:4]
    t[(lib, dtype, layer, int(m.split(':')[1]))] = b['real_time']  # ms
layers = ['qkv_n6144_k4096', 'o_n4096_k4096', 'gate_up_n28672_k4096', 'down_n4096_k14336']
print(f"| dtype | layer | M | Argus ms | GFLOP/s | of peak / weight GB/s | oneDNN plain | oneDNN packed | OpenBLAS | vs plain | vs packed | vs OpenBLAS |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
ratios = {}
for dtype in ['bf16', 'f32']:
    for layer in layers:
        n, k = [int(x[1:]) for x in layer.split('_')[-2:]]
        for m in [1, 16, 128, 512]:
            a = t.get(('argus', dtype, layer, m))
            if a is None: continue
            gf = 2 * m * n * k / (a * 1e-3) / 1e9
            esize = 2 if dtype == 'bf16' else 4
            gbps = n * k * esize / (a * 1e-3) / 1e9
            if m >= 16:
                frac = f"{gf / peak_gflops * 100:.0f}% of {peak_gflops:.0f} GFLOP/s" if peak_gflops else "-"
            else:
                frac = f"{gbps:.1f} GB/s" + (f" ({gbps / read_gbps * 100:.0f}% of {read_gbps:.1f})" if read_gbps else "")
            row = [dtype, layer.split('_n')[0], str(m), f"{a:.2f}", f"{gf:.1f}", frac]
            for peer in ['onednn_plain', 'onednn_packed', 'openblas']:
                p = t.get((peer, dtype, layer, m)) or t.get((peer, 'f32', layer, m))
                row.append(f"{p:.2f}" if p else "-")
            for peer in ['onednn_plain', 'onednn_packed', 'openblas']:
                p = t.get((peer, dtype, layer, m)) or t.get((peer, 'f32', layer, m))
                if p:
                    ratios.setdefault((dtype, peer), []).append(p / a)
                    row.append(f"{p / a:.2f}x")
                else:
                    row.append("-")
            print("| " + " | ".join(row) + " |")
print()
print("| dtype | peer | geometric mean of peer time / Argus time | range |")
print("|---|---|---:|---:|")
for (dtype, peer), r in sorted(ratios.items()):
    print(f"| {dtype} | {peer} | {math.exp(sum(map(math.log, r)) / len(r)):.2f}x | {min(r):.2f}-{max(r):.2f}x |")
