#!/usr/bin/env bash
# The main job: set up, build argus-gen, tune and generate the CPU kernel
# library for Llama-3-8B from shapes/llama3-8b.yaml, and package it.
#   bash scripts/generate.sh [CATALOG] [TARGET]
# TARGET defaults to the CPU target this machine runs best (cpu-avx512 with
# AVX-512 BF16, else cpu-avx2): the sweep times candidates here.
set -euo pipefail
cd "$(dirname "$0")/.."
catalog="${1:-shapes/llama3-8b.yaml}"
target="${2:-}"  # empty: argus-gen's default
model="$(basename "$catalog" .yaml)"
out="out/${model}-${target:-cpu}"
bash scripts/build.sh --target argus-gen
./build/generator/tools/argus-gen build --catalog "$catalog" ${target:+--target "$target"} --out "$out" --jobs "$(nproc)"
./build/generator/tools/argus-gen package --out "$out"
echo "library:  $PWD/$out/lib/libargus_kernels.so.1.0.0"
echo "header:   $PWD/$out/include/argus_kernels.h"
echo "manifest: $PWD/$out/manifest.json"
