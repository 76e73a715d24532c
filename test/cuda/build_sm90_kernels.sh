#!/usr/bin/env bash
# Builds every Hopper GEMM kernel (through the H100 benchmark, which instantiates them all) for
# sm_90a and fails on a compile error or when ptxas reports that it serialised a wgmma pipeline
# (C7510-C7515: "wgmma.mma_async instructions are serialized") or injected a warpgroup wait
# (C7517): either costs the overlap the kernels are built for. Prints ptxas's register and spill
# report per kernel.
# Usage: build_sm90_kernels.sh NVCC SOURCE_DIR WORK_DIR
set -euo pipefail
nvcc=$1 source=$2 work=$3
mkdir -p "$work"
"$nvcc" -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -I "$source/dist/runtime" -I "$source/dist/runtime/cuda" \
  -c "$source/bench/cuda/gemm_sm90_bench.cu" -o "$work/gemm_sm90_bench.o" 2>"$work/ptxas.txt" || {
  cat "$work/ptxas.txt"
  exit 1
}
grep -E "Compiling entry|registers|spill" "$work/ptxas.txt" | sed 's/ptxas info *: //'
serialised='instructions are serialized|warpgroup.wait is injected'
if grep -qE "$serialised" "$work/ptxas.txt"; then
  grep -E "$serialised" "$work/ptxas.txt"
  echo "FAIL: ptxas serialised a wgmma pipeline"
  exit 1
fi
kernels=$(grep -c "Compiling entry function '_ZN5argus4sm90" "$work/ptxas.txt")
echo "built $kernels Hopper kernels for sm_90a"
[ "$kernels" -gt 0 ]
