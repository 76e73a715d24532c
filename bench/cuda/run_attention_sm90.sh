#!/usr/bin/env bash
# On an H100/H200 with nvcc 12+: builds a cuda-sm90a library from the CUDA runtime and the test
# tables, then checks argus_attention_decode and argus_attention_prefill through the C ABI against
# float64 and times them (decode against the copy bandwidth) (bench/cuda/attention_sm90_bench.cu).
# Usage: bash bench/cuda/run_attention_sm90.sh RESULTS_DIR
set -euo pipefail
results=${1:?results directory}
nvcc=${ARGUS_NVCC:-nvcc}
mkdir -p "$results" build-cuda
bash test/cuda/build_cuda_library.sh "$nvcc" "$PWD" test/cuda/cuda_test_tables.cu build-cuda/library
bash bench/cuda/build_attention_bench.sh "$nvcc" "$PWD" build-cuda/library build-cuda/attention
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv | tee "$results/attention_device.txt"
build-cuda/attention/attention_sm90_bench "$results/attention_sm90.jsonl" 2>&1 | tee "$results/attention_sm90.log"
