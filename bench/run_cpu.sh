#!/usr/bin/env bash
# bench/run_cpu.sh - every CPU measurement of bench/results/, in one command.
#
# Why this file exists: the results tables must be reproducible by anyone
# from a clean checkout with the same commands, in the same order, with the
# same environment (threads, OpenBLAS core, OpenMP wait policy). It builds
# the harnesses and the generated libraries it needs, then runs each harness
# once per thread count and writes raw JSON next to the tables.
#
# Usage: bench/run_cpu.sh [THREADS...]        (default: 1 2)
#   BUILD=dir         build directory (default build-bench)
#   ONLY="gemm ..."   subset of: peak gemm attention moe dispatch torch
#   OUT=dir           where the JSON goes (default bench/results)
#   TARGET=cpu-...    library target (default: cpu-avx512 where the CPU has AVX512_BF16, else cpu-avx2)
# Installs what it uses (apt), like the README's two commands.
set -euo pipefail
cd "$(dirname "$0")/.."

THREADS=("${@:-1 2}")
read -r -a THREADS <<<"${THREADS[*]}"
BUILD=${BUILD:-build-bench}
OUT=${OUT:-bench/results}
ONLY=${ONLY:-peak gemm attention moe dispatch torch}
wants() { [[ " $ONLY " == *" $1 "* ]]; }

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  pkgs=(libdnnl-dev libopenblas-dev libbenchmark-dev)
  wants torch && pkgs+=(python3-torch)
  missing=()
  for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
fi

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$BUILD" argus-gen argus_peak_bench argus_gemm_bench argus_attention_bench argus_moe_bench argus_dispatch_bench
GEN="$BUILD/generator/tools/argus-gen"
mkdir -p "$OUT"

# The CPU target this host runs best (argus-gen's default): cpu-avx512 or cpu-avx2.
# (Linux spells the flag avx512_bf16; grepping for avx512bf16 found nothing and
# benchmarked the AVX2 library on AVX-512 machines.)
if grep -qw avx512_bf16 /proc/cpuinfo; then TARGET=${TARGET:-cpu-avx512}; else TARGET=${TARGET:-cpu-avx2}; fi
library() { # library CATALOG -> path of its .so (built once per run)
  local dir="/tmp/argus-bench-$1-$TARGET"
  # (command substitution does not inherit set -e: a failed build must stop the run here)
  "$GEN" build --catalog "shapes/$1.yaml" --target "$TARGET" --out "$dir" >&2 || return 1
  echo "$dir/lib/libargus_kernels.so.1.0.0"
}

# OpenBLAS's AVX-512 kernels where the CPU has them (it would pick Haswell's otherwise).
if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX}; fi
export OMP_WAIT_POLICY=PASSIVE
run() { # run THREADS LIBRARY BINARY JSON [ARGS...]
  local t=$1 lib=$2 bin=$3 json=$4
  shift 4
  ARGUS_LIBRARY="$lib" OMP_NUM_THREADS=$t ARGUS_NUM_THREADS=$t \
    "$BUILD/bench/$bin" --benchmark_out="$json" --benchmark_out_format=json "$@"
}

wants peak && OMP_NUM_THREADS=2 "$BUILD/bench/argus_peak_bench" \
  --benchmark_out="$OUT/cpu-peak.json" --benchmark_out_format=json
wants dispatch && "$BUILD/bench/argus_dispatch_bench" \
  --benchmark_out="$OUT/cpu-dispatch.json" --benchmark_out_format=json
if wants gemm || wants attention; then LLAMA=$(library llama3-8b); fi
if wants moe; then QWEN=$(library qwen3-30b-a3b); MIXTRAL=$(library mixtral-8x7b); fi
for t in "${THREADS[@]}"; do
  wants gemm && run "$t" "$LLAMA" argus_gemm_bench "$OUT/cpu-gemm-llama3-8b-t$t.json"
  wants attention && run "$t" "$LLAMA" argus_attention_bench "$OUT/cpu-attention-llama3-8b-t$t.json"
  if wants moe; then
    run "$t" "$QWEN" argus_moe_bench "$OUT/cpu-moe-qwen3-30b-a3b-t$t.json" --benchmark_filter=qwen3
    run "$t" "$MIXTRAL" argus_moe_bench "$OUT/cpu-moe-mixtral-8x7b-t$t.json" --benchmark_filter=mixtral
  fi
done
# Debian's torch lives in the system python (not a virtualenv's).
if wants torch; then
  /usr/bin/python3 bench/torch_peers.py --threads "$(IFS=,; echo "${THREADS[*]}")" --out "$OUT/cpu-torch-peers.json"
fi
echo "raw results in $OUT; tables: bench/summarize_{gemm,attention,moe}.py (see bench/README.md)"
