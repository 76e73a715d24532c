#!/usr/bin/env bash
# The main job: set up, build argus-gen, tune and generate the CPU kernel
# library for Llama-3-8B from shapes/llama3-8b.yaml, and package it.
#   bash scripts/generate.sh [CATALOG] [TARGET]
set -euo pipefail
cd "$(dirname "$0")/.."
catalog="${1:-shapes/llama3-8b.yaml}"
target="${2:-cpu-avx512}"
model="$(basename "$catalog" .yaml)"
out="out/${model}-${target}"
bash scripts/build.sh --target argus-gen
./build/generator/tools/argus-gen build --catalog "$catalog" --target "$target" --out "$out" --jobs "$(nproc)"
./build/generator/tools/argus-gen package --out "$out"
echo "library:  $PWD/$out/lib/libargus_kernels.so.1.0.0"
echo "header:   $PWD/$out/include/argus_kernels.h"
echo "manifest: $PWD/$out/manifest.json"
