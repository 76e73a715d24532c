#!/usr/bin/env bash
# Builds and runs the Hopper GEMM benchmark against cuBLAS on an H100/H200 with nvcc 13.
# Usage: bash bench/cuda/run_gemm_sm90.sh RESULTS_DIR [bench options...]
# Writes RESULTS_DIR/gemm_sm90.jsonl (one line per shape and implementation), .log and gpu.txt.
set -euo pipefail
results=${1:?results directory}
shift
mkdir -p "$results" build-cuda
nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -I dist/runtime -I dist/runtime/cuda \
  bench/cuda/gemm_sm90_bench.cu -lcublas -o build-cuda/gemm_sm90_bench 2>"$results/ptxas.txt"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.limit --format=csv
  nvcc --version | tail -1
  echo "HGMMA instructions per kernel:"
  cuobjdump -sass build-cuda/gemm_sm90_bench | awk '/Function :/ {f=$3} /HGMMA/ {n[f]++} END {for (k in n) print n[k], k}'
} >"$results/gpu.txt" 2>&1 || true
cat "$results/gpu.txt"
set -o pipefail
timeout "${BENCH_TIMEOUT:-500}" build-cuda/gemm_sm90_bench --json="$results/gemm_sm90.jsonl" "$@" 2>&1 | tee "$results/gemm_sm90.log"
