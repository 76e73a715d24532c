#!/usr/bin/env bash
# Builds, on any machine with nvcc 13 (no GPU needed), everything bench/cuda/run_sm90_all.sh runs,
# into build-cuda/: the library of the test tables, its ABI benches (attention, MoE), the library
# check, the GEMM bench against cuBLAS, and, when ARGUS_GEN names an argus-gen, the cuda-sm90a
# library argus-gen builds from CATALOG (default shapes/llama3-8b.yaml). Building here and carrying
# build-cuda/ to the GPU machine keeps compilation off the device's time.
# Usage: [ARGUS_GEN=build/generator/tools/argus-gen] bash bench/cuda/build_sm90_all.sh [CATALOG]
set -euo pipefail
catalog=${1:-shapes/llama3-8b.yaml}
nvcc=${ARGUS_NVCC:-nvcc}
arch=(-gencode=arch=compute_90a,code=sm_90a)
mkdir -p build-cuda
bash test/cuda/build_cuda_library.sh "$nvcc" "$PWD" test/cuda/cuda_test_tables.cu build-cuda/library
bash bench/cuda/build_abi_benches.sh "$nvcc" "$PWD" build-cuda/library build-cuda/benches
"$nvcc" -O2 -std=c++20 "${arch[@]}" -I dist/include bench/cuda/check_library_sm90.cu \
  -L build-cuda/library -largus_kernels -o build-cuda/check_library_sm90
"$nvcc" -O3 -std=c++20 "${arch[@]}" -Xptxas -v -I dist/runtime -I dist/runtime/cuda \
  bench/cuda/gemm_sm90_bench.cu -lcublas -o build-cuda/gemm_sm90_bench 2>build-cuda/gemm_sm90_ptxas.txt
if [ -n "${ARGUS_GEN:-}" ]; then
  rm -rf build-cuda/generated
  "$ARGUS_GEN" build --catalog "$catalog" --target cuda-sm90a --out build-cuda/generated
fi
echo "built build-cuda/"
