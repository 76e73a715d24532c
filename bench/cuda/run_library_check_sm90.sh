#!/usr/bin/env bash
# On an H100/H200 with nvcc 13: checks argus_gemm of a cuda-sm90a library through the C ABI against
# the float64 reference (bench/cuda/check_library_sm90.cu). LIBRARY_DIR: an argus-gen library's lib/
# directory (argus-gen build --target cuda-sm90a, built where argus-gen is, carried here), whose
# generated fallback kernels are checked too; without it, a library built here from the CUDA
# runtime and the test tables (test/cuda/cuda_test_tables.cu).
# Usage: bash bench/cuda/run_library_check_sm90.sh RESULTS_DIR [LIBRARY_DIR]
set -euo pipefail
results=${1:?results directory}
library=${2:-}
mkdir -p "$results" build-cuda
if [ -z "$library" ]; then
  bash test/cuda/build_cuda_library.sh nvcc "$PWD" test/cuda/cuda_test_tables.cu build-cuda/library
  library=build-cuda/library
fi
library=$(cd "$library" && pwd)
nvcc -O2 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -I dist/include bench/cuda/check_library_sm90.cu \
  -L "$library" -largus_kernels -Xlinker -rpath="$library" -o build-cuda/check_library_sm90
set -o pipefail
build-cuda/check_library_sm90 2>&1 | tee "$results/library_check.log"
