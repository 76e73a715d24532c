#!/usr/bin/env bash
# Builds bench/cuda/attention_sm90_bench.cu against a cuda-sm90a library in LIB_DIR, with the host
# problems and float64 reference it checks with (test/emulation/decode_problem.cpp, prefill_problem.cpp and
# generator/lib/Reference/AttentionReference.cpp, plain C++).
# Usage: build_decode_bench.sh NVCC SOURCE_DIR LIB_DIR OUT_DIR
set -euo pipefail
nvcc=$1 source=$2 lib=$3 out=$4
mkdir -p "$out"
flags=(-O2 -std=c++20 -I "$source/dist/include" -I "$source/dist/runtime" -I "$source/test/emulation"
       -I "$source/generator/include" -I "$source/bench/cuda")
"$nvcc" "${flags[@]}" -gencode=arch=compute_90a,code=sm_90a "$source/bench/cuda/attention_sm90_bench.cu" \
  "$source/test/emulation/decode_problem.cpp" "$source/test/emulation/prefill_problem.cpp" \
  "$source/test/emulation/gemm_problem.cpp" \
  "$source/generator/lib/Reference/AttentionReference.cpp" \
  -L "$lib" -largus_kernels -Xlinker -rpath="$(cd "$lib" && pwd)" -o "$out/attention_sm90_bench"
echo "built $out/attention_sm90_bench"
