#!/usr/bin/env bash
# On an H100/H200 with nvcc 13: builds a cuda-sm90a library from the CUDA runtime and the test
# tables (test/cuda/cuda_test_tables.cu), then checks argus_gemm through the C ABI against the
# float64 reference (bench/cuda/check_library_sm90.cu).
# Usage: bash bench/cuda/run_library_check_sm90.sh RESULTS_DIR
set -euo pipefail
results=${1:?results directory}
mkdir -p "$results" build-cuda
bash test/cuda/build_cuda_library.sh nvcc "$PWD" test/cuda/cuda_test_tables.cu build-cuda/library
nvcc -O2 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -I dist/include bench/cuda/check_library_sm90.cu \
  -L build-cuda/library -largus_kernels -Xlinker -rpath="$PWD/build-cuda/library" -o build-cuda/check_library_sm90
set -o pipefail
build-cuda/check_library_sm90 2>&1 | tee "$results/library_check.log"
