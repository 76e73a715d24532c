#!/usr/bin/env bash
# Builds a cuda-sm90a library from the CUDA runtime (dist/runtime/cuda/sources.txt) and the
# given tables source, the way a generated library is built.
# Usage: build_cuda_library.sh NVCC SOURCE_DIR TABLES.cu OUT_DIR
set -euo pipefail
nvcc=$1 source=$2 tables=$3 out=$4
mkdir -p "$out/obj"
flags=(-O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC,-fvisibility=hidden
       -I "$source/dist/include" -I "$source/dist/runtime" -I "$source/dist/runtime/gpu" -I "$source/dist/runtime/cuda")
objects=()
while read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  object="$out/obj/$(basename "${line%.*}").o"
  "$nvcc" "${flags[@]}" -c "$source/dist/runtime/$line" -o "$object"
  objects+=("$object")
done <"$source/dist/runtime/cuda/sources.txt"
"$nvcc" "${flags[@]}" -c "$tables" -o "$out/obj/tables.o"
"$nvcc" -shared -o "$out/libargus_kernels.so.1" "${objects[@]}" "$out/obj/tables.o" \
  -Xlinker -soname=libargus_kernels.so.1 -Xlinker --version-script="$source/dist/runtime/argus_exports.map"
ln -sf libargus_kernels.so.1 "$out/libargus_kernels.so"
echo "built $out/libargus_kernels.so.1"
