#!/usr/bin/env bash
# For the owner of an MI300X (gfx942) or MI250 (gfx90a) with ROCm and a ROCm build of PyTorch:
# builds argus-gen, generates the hip library of a catalog, then checks every catalog GEMM against
# float64 and times it against torch.matmul (hipBLASLt), and prefill and paged decode attention and
# (for MoE catalogs) the experts against float64 and PyTorch (SDPA, the per-expert loop), writing
# bench/results/hip-{gemm,attention-moe}-<model>-<arch>.jsonl and .log.
# Nothing here has run on AMD hardware yet: no AMD GPU is reachable where Argus is developed.
#   bash bench/hip/run_checks.sh [gfx942|gfx90a] [catalog.yaml]
set -euo pipefail
arch=${1:-gfx942}
catalog=${2:-shapes/llama3-8b.yaml}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --target argus-gen
out=out/$(basename "$catalog" .yaml)-hip-$arch
build/generator/tools/argus-gen build --catalog "$catalog" --target "hip-$arch" --out "$out"
mkdir -p bench/results
model=$(basename "$catalog" .yaml)
python3 bench/hip/gemm_check.py --library "$out/lib/libargus_kernels.so" \
  --json "bench/results/hip-gemm-$model-$arch.jsonl" | tee "bench/results/hip-gemm-$model-$arch.log"
python3 bench/hip/attention_moe_check.py --library "$out/lib/libargus_kernels.so" --catalog "$catalog" \
  --json "bench/results/hip-attention-moe-$model-$arch.jsonl" | tee "bench/results/hip-attention-moe-$model-$arch.log"
