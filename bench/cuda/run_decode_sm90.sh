#!/usr/bin/env bash
# On an H100/H200 with nvcc 12+: builds a cuda-sm90a library from the CUDA runtime and the test
# tables, then checks argus_attention_decode through the C ABI against the float64 reference and
# times it against the copy bandwidth (bench/cuda/decode_sm90_bench.cu).
# Usage: bash bench/cuda/run_decode_sm90.sh RESULTS_DIR
set -euo pipefail
results=${1:?results directory}
nvcc=${ARGUS_NVCC:-nvcc}
mkdir -p "$results" build-cuda
bash test/cuda/build_cuda_library.sh "$nvcc" "$PWD" test/cuda/cuda_test_tables.cu build-cuda/library
bash bench/cuda/build_decode_bench.sh "$nvcc" "$PWD" build-cuda/library build-cuda/decode
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv | tee "$results/decode_device.txt"
build-cuda/decode/decode_sm90_bench "$results/decode_sm90.jsonl" 2>&1 | tee "$results/decode_sm90.log"
