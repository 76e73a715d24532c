#!/usr/bin/env python3
"""The PyTorch peers of the Hopper attention and MoE benchmarks, on the same shapes.

  attention  prefill: scaled_dot_product_attention, causal, Llama-3-8B's heads (32 query, 8 KV)
             at head_dim 128 and 64, sequences of 1024-8192 tokens, 16384 tokens per call; every
             backend PyTorch offers (cuDNN, flash, memory-efficient) is tried and the best kept.
             decode: SDPA of one query token per sequence against a contiguous KV cache (PyTorch
             has no paged decode; the contiguous cache is the easier case for it), batch 1-32,
             context 1024-16384.
  moe        the routed experts of Mixtral-8x7B, Qwen3-30B-A3B and DeepSeek-V2-Lite at 1-4096
             tokens: softmax top-k routing (renormalised as the model does), tokens sorted by
             expert, torch._grouped_mm for gate/up and down where this PyTorch has it (else one
             matmul per expert), SiLU·mul, the weighted combine by index_add_.

Timing as bench/cuda/gpu_timing.cuh: CUDA events, 3 warm-ups, median of 25 samples. Before timing,
--check compares the grouped MoE with a per-token float64 loop on a small problem, so a wrong
baseline cannot pass for a fast one. Writes JSON lines in the benches' format, with "impl" naming
the PyTorch path. Usage: torch_gpu_baselines.py {attention,moe} OUT.jsonl [--device cuda]
"""
import argparse
import json
import statistics
import sys

import torch
import torch.nn.functional as F

MOE_LAYERS = [
    ("mixtral-8x7b", 4096, 14336, 8, 2, True),
    ("qwen3-30b-a3b", 2048, 768, 128, 8, True),
    ("deepseek-v2-lite", 2048, 1408, 64, 6, False),
]
MOE_TOKENS = [1, 16, 128, 512, 4096]


def median_us(run, device):
    """Median microseconds of run() over 25 samples after 3 warm-ups (CUDA events on a GPU)."""
    samples = []
    for i in range(28):
        if device == "cuda":
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run()
            stop.record()
            stop.synchronize()
            elapsed_us = 1e3 * start.elapsed_time(stop)
        else:
            import time
            begin = time.perf_counter()
            run()
            elapsed_us = 1e6 * (time.perf_counter() - begin)
        if i >= 3:
            samples.append(elapsed_us)
    return statistics.median(samples)


def device_name(device):
    return torch.cuda.get_device_name() if device == "cuda" else "cpu"


# ---- MoE -------------------------------------------------------------------------------------

def grouped_mm_available(device):
    return device == "cuda" and hasattr(torch, "_grouped_mm")


def expert_matmuls(rows, weights, offsets, grouped):
    """rows sorted by expert (offsets: the end of each expert's rows) times each expert's weightsᵀ."""
    if grouped:
        return torch._grouped_mm(rows, weights.transpose(-2, -1), offs=offsets)
    out = rows.new_empty(rows.shape[0], weights.shape[1])
    begin = 0
    for e, end in enumerate(offsets.tolist()):
        if end > begin:
            out[begin:end] = rows[begin:end] @ weights[e].t()
        begin = end
    return out


def moe_torch(x, logits, w_gate_up, w_down, top_k, renormalize, grouped):
    experts, intermediate = w_gate_up.shape[0], w_down.shape[2]
    probs = torch.softmax(logits.float(), dim=-1)
    weights, chosen = torch.topk(probs, top_k, dim=-1)
    if renormalize:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    flat = chosen.flatten()
    order = torch.argsort(flat, stable=True)
    tokens = order // top_k
    offsets = torch.cumsum(torch.bincount(flat, minlength=experts), 0).to(torch.int32)
    gate_up = expert_matmuls(x[tokens], w_gate_up, offsets, grouped)
    h = (F.silu(gate_up[:, :intermediate].float()) * gate_up[:, intermediate:].float()).to(x.dtype)
    y = expert_matmuls(h, w_down, offsets, grouped).float() * weights.flatten()[order].unsqueeze(1)
    return torch.zeros(x.shape, dtype=torch.float32, device=x.device).index_add_(0, tokens, y).to(x.dtype)


def moe_float64(x, logits, w_gate_up, w_down, top_k, renormalize):
    intermediate = w_down.shape[2]
    probs = torch.softmax(logits.double(), dim=-1)
    weights, chosen = torch.topk(probs, top_k, dim=-1)
    if renormalize:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    out = torch.zeros(x.shape, dtype=torch.float64)
    for t in range(x.shape[0]):
        for j in range(top_k):
            e = int(chosen[t, j])
            gu = w_gate_up[e].double() @ x[t].double()
            h = F.silu(gu[:intermediate]) * gu[intermediate:]
            out[t] += weights[t, j] * (w_down[e].double() @ h)
    return out


def uniform_bf16(generator, device, *shape):
    return (torch.rand(*shape, generator=generator, device=device) * 2 - 1).to(torch.bfloat16)


def moe_tokens(tokens, hidden, experts, device, seed):
    """Tokens in [-1, 1) and router logits, drawn on the device."""
    g = torch.Generator(device=device).manual_seed(seed)
    return uniform_bf16(g, device, tokens, hidden), torch.randn(tokens, experts, generator=g, device=device)


def moe_weights(hidden, intermediate, experts, device, seed):
    """Gate/up and down weights in [-1, 1), drawn on the device (a CPU draw of Mixtral's 1.4 G weights
    takes longer than timing them)."""
    g = torch.Generator(device=device).manual_seed(seed)
    return (uniform_bf16(g, device, experts, 2 * intermediate, hidden),
            uniform_bf16(g, device, experts, hidden, intermediate))


def check_moe(device, grouped):
    """The baseline against float64 on a small problem: within the kernels' own MoE tolerance."""
    x, logits = moe_tokens(70, 128, 8, device, 7)
    w_gate_up, w_down = moe_weights(128, 96, 8, device, 8)
    got = moe_torch(x, logits, w_gate_up, w_down, 2, True, grouped).double().cpu()
    ref = moe_float64(x.cpu(), logits.cpu(), w_gate_up.cpu(), w_down.cpu(), 2, True)
    rms = ref.pow(2).mean(dim=1, keepdim=True).sqrt()
    bad = ((got - ref).abs() > ref.abs() * 2 ** -8 + rms * 2 ** -6).sum().item()
    print(f"{'ok' if bad == 0 else 'FAIL'}   torch moe ({'grouped_mm' if grouped else 'per-expert'}) "
          f"against float64: {bad} elements off")
    return bad == 0


def run_moe(out, device):
    grouped = grouped_mm_available(device)
    if not check_moe(device, grouped):
        return 1
    impl = "torch_grouped_mm" if grouped else "torch_per_expert"
    for model, hidden, intermediate, experts, top_k, renormalize in MOE_LAYERS:
        w_gate_up, w_down = moe_weights(hidden, intermediate, experts, device, 0)
        for tokens in MOE_TOKENS:
            x, logits = moe_tokens(tokens, hidden, experts, device, tokens)
            us = median_us(lambda: moe_torch(x, logits, w_gate_up, w_down, top_k, renormalize, grouped), device)
            tflops = tokens * top_k * 3 * 2 * hidden * intermediate / (us * 1e-6) / 1e12
            print(f"{impl:17s} {model:17s} tokens {tokens:5d} {us:10.1f} us {tflops:6.1f} TFLOP/s")
            out.write(json.dumps({"device": device_name(device), "impl": impl, "model": model, "tokens": tokens,
                                  "us": round(us, 2), "tflops": round(tflops, 2)}) + "\n")
            del x, logits
        del w_gate_up, w_down
    return 0


# ---- Attention -------------------------------------------------------------------------------

def sdpa_backends():
    """(name, context manager factory) for each SDPA backend this PyTorch can select."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        return [("default", lambda: torch.no_grad())]
    names = ["CUDNN_ATTENTION", "FLASH_ATTENTION", "EFFICIENT_ATTENTION"]
    return [(n.lower(), (lambda b: lambda: sdpa_kernel(b))(getattr(SDPBackend, n)))
            for n in names if hasattr(SDPBackend, n)]


def best_sdpa_us(q, k, v, causal, device):
    """The fastest backend's median, and its name; backends that refuse the shapes are skipped."""
    best = None
    for name, backend in sdpa_backends():
        def run():
            with backend():
                F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
        try:
            run()
        except RuntimeError:
            continue
        us = median_us(run, device)
        if best is None or us < best[0]:
            best = (us, name)
    return best


def run_attention(out, device):
    heads, kv_heads = 32, 8
    make = lambda *shape: torch.randn(*shape, dtype=torch.bfloat16, device=device)
    for d in (128, 64):
        for length in (1024, 2048, 4096, 8192):
            tokens = 16384
            batch = tokens // length
            q, k, v = make(batch, heads, length, d), make(batch, kv_heads, length, d), make(batch, kv_heads, length, d)
            best = best_sdpa_us(q, k, v, True, device)
            if best is None:
                print(f"no SDPA backend takes d {d} length {length}")
                continue
            us, name = best
            tflops = 2.0 * 2.0 * d * heads * batch * 0.5 * length * length / (us * 1e-6) / 1e12
            print(f"sdpa ({name:19s}) prefill causal d {d:3d} length {length:5d} {us:10.1f} us {tflops:6.1f} TFLOP/s")
            out.write(json.dumps({"device": device_name(device), "impl": f"torch_sdpa_{name}", "head_dim": d,
                                  "prefill_length": length, "tokens": tokens, "us": round(us, 2),
                                  "tflops": round(tflops, 1)}) + "\n")
    for batch in (1, 8, 32):
        for context in (1024, 4096, 16384):
            q = make(batch, heads, 1, 128)
            k, v = make(batch, kv_heads, context, 128), make(batch, kv_heads, context, 128)
            best = best_sdpa_us(q, k, v, False, device)
            if best is None:
                continue
            us, name = best
            gbps = 2.0 * 2.0 * batch * context * kv_heads * 128 / (us * 1e-6) / 1e9
            print(f"sdpa ({name:19s}) decode batch {batch:2d} context {context:5d} {us:10.1f} us {gbps:6.0f} GB/s")
            out.write(json.dumps({"device": device_name(device), "impl": f"torch_sdpa_{name}", "batch": batch,
                                  "context": context, "us": round(us, 2), "gbps": round(gbps, 1)}) + "\n")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["attention", "moe"])
    parser.add_argument("out")
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("PyTorch has no CUDA device here: no baseline measured", file=sys.stderr)
        return 1
    print(f"PyTorch {torch.__version__} on {device_name(args.device)}")
    with open(args.out, "w") as out:
        return (run_attention if args.what == "attention" else run_moe)(out, args.device)


if __name__ == "__main__":
    sys.exit(main())
