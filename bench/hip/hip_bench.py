"""What the hip library checks in bench/hip share: the library's C ABI through ctypes, the stream
PyTorch runs on, and side-by-side timing with device events (the median of repeats, argus and
the PyTorch peer alternating sample by sample after a warm-up).

--device cpu runs everything with host tensors: with ARGUS_HIP_RUNTIME naming the test suite's fake
HIP runtime (test/hip/fake_amdhip64.cpp) the kernels run on the wave emulator, which is how these
scripts are tested without an AMD GPU. Timings from it mean nothing.
"""
import ctypes
import statistics
import time

import torch

ARGUS_DTYPE_BF16 = 2
WARM_UP = 3


def stream_of(device):
    """PyTorch's current stream as the library's `void *stream` (none on the host)."""
    return ctypes.c_void_p(torch.cuda.current_stream().cuda_stream) if device != "cpu" else None


def synchronize(device):
    if device != "cpu":
        torch.cuda.synchronize()


def machine_of(device):
    if device == "cpu":
        return "cpu (emulated kernels through a fake HIP runtime)"
    return torch.cuda.get_device_name()


def hip_runtime():
    return getattr(torch.version, "hip", None) or "none"


def check_status(lib, status, call):
    if status != 0:
        raise RuntimeError(f"{call} returned {status}: {lib.argus_last_error().decode()}")


def seconds(fn, device):
    """One call of fn, timed with device events (host clock on the cpu device)."""
    if device == "cpu":
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    begin.record()
    fn()
    end.record()
    end.synchronize()
    return begin.elapsed_time(end) / 1e3


def median_pair(ours, theirs, repeats, device):
    """Median seconds of ours(i) and theirs(i), alternating, i the sample (to rotate inputs)."""
    a, b = [], []
    for i in range(repeats + WARM_UP):
        t_ours = seconds(lambda: ours(i), device)
        t_theirs = seconds(lambda: theirs(i), device)
        if i >= WARM_UP:
            a.append(t_ours)
            b.append(t_theirs)
    return statistics.median(a), statistics.median(b)


def random_bf16(shape, gen, device, scale=1.0):
    """Uniform in [-scale, scale), drawn on the host (reproducible), then moved."""
    return ((torch.rand(*shape, generator=gen) * 2 - 1) * scale).to(torch.bfloat16).to(device)
