#!/usr/bin/env bash
# Builds the benchmarks that call a cuda-sm90a library in LIB_DIR through its C ABI
# (bench/cuda/attention_sm90_bench.cu, moe_sm90_bench.cu) with the host problems and float64
# references they check with (test/emulation/*_problem.cpp, generator/lib/Reference, plain C++).
# OpenMP runs the prefill reference's heads in parallel (the long-sequence checks).
# Usage: build_abi_benches.sh NVCC SOURCE_DIR LIB_DIR OUT_DIR
set -euo pipefail
nvcc=$1 source=$2 lib=$3 out=$4
mkdir -p "$out"
flags=(-O2 -std=c++20 -I "$source/dist/include" -I "$source/dist/runtime" -I "$source/test/emulation"
       -I "$source/generator/include" -I "$source/bench/cuda" -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fopenmp
       -L "$lib" -largus_kernels -Xlinker -rpath="$(cd "$lib" && pwd)")
problems=$source/test/emulation
"$nvcc" "$source/bench/cuda/attention_sm90_bench.cu" "$problems/decode_problem.cpp" "$problems/prefill_problem.cpp" \
  "$problems/gemm_problem.cpp" "$source/generator/lib/Reference/AttentionReference.cpp" "${flags[@]}" \
  -o "$out/attention_sm90_bench"
"$nvcc" "$source/bench/cuda/moe_sm90_bench.cu" "$problems/moe_problem.cpp" "$problems/gemm_problem.cpp" \
  "$source/generator/lib/Reference/MoeReference.cpp" "${flags[@]}" -o "$out/moe_sm90_bench"
echo "built $out/attention_sm90_bench and $out/moe_sm90_bench"
