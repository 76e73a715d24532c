#!/usr/bin/env bash
# On an H100/H200 with nvcc 12+: builds a cuda-sm90a library from the CUDA runtime and the test
# tables, then, for each part asked for (default: both):
#   attention  checks argus_attention_decode and argus_attention_prefill through the C ABI against
#              float64 and times them (bench/cuda/attention_sm90_bench.cu: decode against the copy
#              bandwidth, prefill in TFLOP/s), then PyTorch SDPA's best backend on the same shapes;
#   moe        checks argus_moe against float64 and times it on the Mixtral-8x7B, Qwen3-30B-A3B and
#              DeepSeek-V2-Lite layers (bench/cuda/moe_sm90_bench.cu), then the PyTorch grouped-GEMM
#              MoE on the same shapes and routing.
# The PyTorch peers (bench/cuda/torch_gpu_baselines.py) run where a PyTorch with CUDA is importable.
# Usage: bash bench/cuda/run_abi_sm90.sh RESULTS_DIR [attention|moe]...
set -euo pipefail
results=${1:?results directory}
shift
parts=("$@")
[ $# -gt 0 ] || parts=(attention moe)
nvcc=${ARGUS_NVCC:-nvcc}
mkdir -p "$results" build-cuda
bash test/cuda/build_cuda_library.sh "$nvcc" "$PWD" test/cuda/cuda_test_tables.cu build-cuda/library
bash bench/cuda/build_abi_benches.sh "$nvcc" "$PWD" build-cuda/library build-cuda/benches
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv | tee "$results/device.txt"
for part in "${parts[@]}"; do
  case $part in
    attention | moe) ;;
    *) echo "unknown part '$part' (attention or moe)" >&2; exit 2 ;;
  esac
  build-cuda/benches/${part}_sm90_bench "$results/${part}_sm90.jsonl" 2>&1 | tee "$results/${part}_sm90.log"
  python3 bench/cuda/torch_gpu_baselines.py "$part" "$results/${part}_torch.jsonl" 2>&1 |
    tee "$results/${part}_torch.log" || echo "PyTorch baseline for $part not measured (see $results/${part}_torch.log)"
done
