#!/usr/bin/env bash
# bench/ab_routine.sh - a change's speed against the library before it, in one command.
#
# Why this file exists: a session that A/Bs only what it changed misses what
# else it moved (session 45's decode change slowed f32 GEMMs of 8-16 rows
# 1.4-1.8x, unseen for two sessions). This runs the four A/B probes
# (AbProbe.h) over a fixed set of shapes: GEMM f32 and bf16 at 1, 16 and 128
# rows (plain and pre-packed weights; 512 rows with the weights read from
# memory), paged decode, prefill causal and full, MoE (Qwen3's experts on the
# generic kernels, plain and packed), each in both orders (OLD NEW,
# then NEW OLD), and prints each probe's speed ratio NEW / OLD per shape (the
# geometric mean of the two orders) and over all shapes. Timed unit tests
# are ruled out (README), so this belongs to a session's routine, not to CI.
#
# Usage: bench/ab_routine.sh OLD_LIB NEW_LIB [ITERATIONS=15]
#   OLD_LIB, NEW_LIB: libargus_kernels.so of two builds of shapes/llama3-8b.yaml
#   BUILD=dir          build directory holding bench/argus_*_ab (default build)
#   ARGUS_NUM_THREADS  threads of both libraries (default 2)
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: bench/ab_routine.sh OLD_LIB NEW_LIB [ITERATIONS=15]" >&2
  exit 2
fi
OLD=$1 NEW=$2 ITERS=${3:-15}
BUILD=${BUILD:-build}
export ARGUS_NUM_THREADS=${ARGUS_NUM_THREADS:-2}
for f in "$OLD" "$NEW"; do [ -f "$f" ] || { echo "ab_routine: no library at $f" >&2; exit 2; }; done
for p in gemm_ab decode_ab prefill_ab moe_ab; do
  [ -x "$BUILD/bench/argus_$p" ] || { echo "ab_routine: $BUILD/bench/argus_$p is not built (ninja -C $BUILD argus_$p)" >&2; exit 2; }
done

# probe and its arguments after the two libraries (ITERATIONS goes in later)
CASES=(
  "gemm_ab 1 4096 4096 @ 0 f32"  "gemm_ab 16 4096 4096 @ 0 f32"  "gemm_ab 128 4096 4096 @ 0 f32"
  "gemm_ab 1 4096 4096 @ 0 bf16-bf16" "gemm_ab 16 4096 4096 @ 0 bf16-bf16" "gemm_ab 128 4096 4096 @ 0 bf16-bf16"
  "gemm_ab 16 14336 4096 @ 0 f32" "gemm_ab 16 14336 4096 @ 0 bf16-bf16"
  "gemm_ab 1 4096 4096 @ 0 bf16-bf16 packed" "gemm_ab 4 4096 4096 @ 0 bf16-bf16 packed"
  "gemm_ab 4 4096 4096 @ 0 f32 packed" "gemm_ab 16 4096 4096 @ 0 f32 packed" "gemm_ab 128 4096 4096 @ 0 bf16-bf16 packed"
  "gemm_ab 512 4096 4096 @ 0 bf16-bf16 plain cold" "gemm_ab 512 4096 4096 @ 0 bf16-bf16 packed cold"
  "decode_ab 8 4096 @" "decode_ab 64 100 @" "decode_ab 1 16384 @"
  "prefill_ab 1 2048 1 @ bf16" "prefill_ab 1 2048 0 @ bf16" "prefill_ab 1 1024 1 @ f32"
  "moe_ab 16 @ bf16 plain" "moe_ab 16 @ bf16 packed" "moe_ab 128 @ bf16 packed" "moe_ab 16 @ f32 plain"
)

ratio() { # the "median B/A" a probe printed
  sed -n 's/.*median B\/A \([0-9.]*\).*/\1/p'
}
declare -A product count
printf '%-44s %8s %8s %8s\n' "case" "NEW/OLD" "OLD/NEW" "mean"
for c in "${CASES[@]}"; do
  read -r probe args <<<"${c//@/$ITERS}"
  forward=$("$BUILD/bench/argus_$probe" "$OLD" "$NEW" $args | ratio)
  backward=$("$BUILD/bench/argus_$probe" "$NEW" "$OLD" $args | ratio)
  mean=$(awk -v f="$forward" -v b="$backward" 'BEGIN { printf "%.3f", sqrt(f / b) }')
  printf "%-44s %8s %8s %8s\n" "$probe $args" "$forward" "$backward" "$mean"
  product[$probe]=$(awk -v p="${product[$probe]:-0}" -v m="$mean" 'BEGIN { printf "%.6f", p + log(m) }')
  count[$probe]=$(( ${count[$probe]:-0} + 1 ))
done
for probe in gemm_ab decode_ab prefill_ab moe_ab; do
  awk -v p="$probe" -v s="${product[$probe]}" -v n="${count[$probe]}" \
    'BEGIN { printf "%s: geometric mean NEW/OLD %.3f over %d shapes\n", p, exp(s / n), n }'
done
