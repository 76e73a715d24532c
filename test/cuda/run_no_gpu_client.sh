#!/usr/bin/env bash
# Compiles test/cuda/no_gpu_client.c against a built cuda-sm90a library and runs it.
# Usage: run_no_gpu_client.sh CC SOURCE_DIR LIBRARY_DIR WORK_DIR VERSION N K
#   (N, K): one of the library's catalog GEMMs.
set -euo pipefail
cc=$1 source=$2 library=$3 work=$4
shift 4
mkdir -p "$work"
"$cc" -std=c99 -Wall -Wextra -Werror -I "$source/dist/include" "$source/test/cuda/no_gpu_client.c" \
  -L "$library" -largus_kernels -Wl,-rpath,"$library" -o "$work/no_gpu_client"
"$work/no_gpu_client" "$@"
