#!/usr/bin/env python3
"""Checks and times a hip library's argus_gemm against a float64 reference and torch.matmul
(hipBLASLt on ROCm builds of PyTorch), for the owner of an MI300X / MI250.

    python3 bench/hip/gemm_check.py --library OUT/lib/libargus_kernels.so --json results.jsonl

For every catalog GEMM of the library's manifest (n, k) and a set of m values (its bucket bounds,
capped), plus ragged shapes with alpha, beta and bias: fresh random bf16 inputs, C poisoned with
NaN (beta = 0), one argus_gemm on PyTorch's current stream, every element compared with a float64
GEMM (|err| <= 2^-8 |ref| + 2^-16 (|alpha| sum|ab| + |beta c| + |bias|)). Then, unless --check-only,
timing with device events: warm-up, then the median of --repeats samples, argus and torch.matmul
alternating sample by sample, inputs rotated over buffers larger than twice the last-level cache
(MI300X: 256 MiB Infinity Cache). One JSON line per shape; a summary at the end.

--device cpu runs the same path with host tensors on the wave emulator (hip_bench.py).
"""
import argparse
import ctypes
import json
import math
import sys

import torch

from hip_bench import (ARGUS_DTYPE_BF16, check_status, hip_runtime, machine_of, median_pair, random_bf16,
                       stream_of, synchronize)


class GemmArgs(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("m", ctypes.c_int64), ("n", ctypes.c_int64),
                ("k", ctypes.c_int64), ("a_type", ctypes.c_int), ("b_type", ctypes.c_int),
                ("c_type", ctypes.c_int), ("a", ctypes.c_void_p), ("lda", ctypes.c_int64),
                ("b", ctypes.c_void_p), ("ldb", ctypes.c_int64), ("c", ctypes.c_void_p),
                ("ldc", ctypes.c_int64), ("bias", ctypes.c_void_p), ("alpha", ctypes.c_float),
                ("beta", ctypes.c_float)]


def load(path):
    lib = ctypes.CDLL(path)
    lib.argus_gemm.argtypes = [ctypes.POINTER(GemmArgs), ctypes.c_void_p]
    lib.argus_gemm.restype = ctypes.c_int
    lib.argus_gemm_kernel_name.argtypes = [ctypes.POINTER(GemmArgs)]
    lib.argus_gemm_kernel_name.restype = ctypes.c_char_p
    lib.argus_last_error.restype = ctypes.c_char_p
    lib.argus_manifest_json.restype = ctypes.c_char_p
    return lib


def gemm_args(a, b, c, bias, alpha, beta):
    m, k = a.shape
    n = b.shape[0]
    return GemmArgs(ctypes.sizeof(GemmArgs), m, n, k, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16, ARGUS_DTYPE_BF16,
                    a.data_ptr(), a.stride(0), b.data_ptr(), b.stride(0), c.data_ptr(), c.stride(0),
                    bias.data_ptr() if bias is not None else None, alpha, beta)


def run_argus(lib, args, device):
    check_status(lib, lib.argus_gemm(ctypes.byref(args), stream_of(device)), "argus_gemm")


def check(lib, m, n, k, alpha, beta, with_bias, device, gen):
    a = random_bf16((m, k), gen, device)
    b = random_bf16((n, k), gen, device)
    bias = random_bf16((n,), gen, device) if with_bias else None
    c0 = random_bf16((m, n), gen, device)
    c = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device=device) if beta == 0 else c0.clone()
    args = gemm_args(a, b, c, bias, alpha, beta)
    run_argus(lib, args, device)
    synchronize(device)
    products = a.double() @ b.double().T
    scale = abs(alpha) * (a.double().abs() @ b.double().abs().T)
    ref = alpha * products
    if beta != 0:
        ref = ref + beta * c0.double()
        scale = scale + (beta * c0.double()).abs()
    if bias is not None:
        ref = ref + bias.double()
        scale = scale + bias.double().abs()
    err = (c.double() - ref).abs()
    tolerance = ref.abs() * 2.0 ** -8 + scale * 2.0 ** -16
    bad = ~(err <= tolerance)
    name = lib.argus_gemm_kernel_name(ctypes.byref(args)).decode()
    return int(bad.sum().item()), name


def median_times(lib, m, n, k, device, repeats, cache_bytes):
    """Median seconds of argus_gemm and torch.matmul, alternating, inputs rotated past the cache."""
    per_set = 2 * (m * k + n * k + m * n)
    sets = max(1, math.ceil(2 * cache_bytes / per_set)) if device != "cpu" else 1
    bufs = [((torch.rand(m, k, device=device) - 0.5).to(torch.bfloat16),
             (torch.rand(n, k, device=device) - 0.5).to(torch.bfloat16),
             torch.empty(m, n, dtype=torch.bfloat16, device=device)) for _ in range(min(sets, 64))]
    argus_args = [gemm_args(a, b, c, None, 1.0, 0.0) for a, b, c in bufs]

    def theirs(i):
        a, b, c = bufs[i % len(bufs)]
        torch.matmul(a, b.T, out=c)

    return median_pair(lambda i: run_argus(lib, argus_args[i % len(bufs)], device), theirs, repeats, device)


def shapes_of(manifest, max_m):
    out = []
    for group in manifest.get("gemm_groups", []):
        ms = sorted({min(b["m_max"] or max_m, max_m) for b in group["buckets"]})
        out += [(m, group["n"], group["k"]) for m in ms]
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--library", required=True)
    p.add_argument("--device", default="cuda", help="cuda (a ROCm GPU, as PyTorch names it) or cpu")
    p.add_argument("--json", help="append one JSON line per shape here")
    p.add_argument("--max-m", type=int, default=8192)
    p.add_argument("--repeats", type=int, default=25)
    p.add_argument("--cache-mib", type=int, default=256, help="last-level cache to rotate inputs past")
    p.add_argument("--check-only", action="store_true")
    p.add_argument("--quick", action="store_true", help="the first two catalog shapes and the ragged ones")
    opts = p.parse_args()

    lib = load(opts.library)
    manifest = json.loads(lib.argus_manifest_json().decode())
    device = opts.device
    machine = machine_of(device)
    runtime = hip_runtime()
    print(f"# {manifest['target']} library for {manifest['model']} on {machine}, HIP {runtime}")
    print(f"# command: {' '.join(sys.argv)}")
    gen = torch.Generator().manual_seed(2026)
    catalog = shapes_of(manifest, opts.max_m)
    if opts.quick:
        catalog = catalog[:2]
    ragged = [(77, 200, 136, 0.75, 0.5, True), (1, 33, 8, 1.0, 0.0, False), (300, 130, 200, 1.0, 0.0, True)]
    failures = 0
    ratios = []
    out = open(opts.json, "a") if opts.json else None
    for (m, n, k) in catalog:
        wrong, kernel = check(lib, m, n, k, 1.0, 0.0, False, device, gen)
        record = {"m": m, "n": n, "k": k, "kernel": kernel, "wrong": wrong, "device": machine, "hip": runtime}
        failures += wrong != 0
        if not opts.check_only:
            ours, theirs = median_times(lib, m, n, k, device, opts.repeats, opts.cache_mib << 20)
            record.update({"argus_s": ours, "torch_s": theirs, "ratio": theirs / ours,
                           "argus_tflops": 2 * m * n * k / ours / 1e12})
            ratios.append(theirs / ours)
        print(json.dumps(record))
        if out:
            out.write(json.dumps(record) + "\n")
    for (m, n, k, alpha, beta, bias) in ragged:
        wrong, kernel = check(lib, m, n, k, alpha, beta, bias, device, gen)
        failures += wrong != 0
        print(json.dumps({"m": m, "n": n, "k": k, "alpha": alpha, "beta": beta, "bias": bias, "kernel": kernel,
                          "wrong": wrong}))
    if ratios:
        geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"# argus / torch.matmul, geometric mean over {len(ratios)} shapes: {geomean:.3f}")
    print(f"# {failures} shape(s) with wrong elements")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
