#!/usr/bin/env bash
# check_llm_kernel_shipped.sh ARGUS_GEN INJECT CLIENT CATALOG HOME CACHE WORK TUNED_DB
#
# A kernel of an LLM's that is the tuning database's best for a configuration
# (recorded by INJECT, as an `--agent llm` sweep records one) is what the
# library ships: built from the database, the library names it in its
# manifest, dispatches the configuration's bucket to it, and it matches
# float64 through the C ABI (the C client).
set -euo pipefail
gen=$1 inject=$2 client=$3 catalog=$4 home=$5 cache=$6 work=$7 tuned_db=$8
rm -rf "$work"
mkdir -p "$work/out"
cp "$tuned_db" "$work/out/tuning.db"
symbol=$("$inject" "$work/out/tuning.db" "$home/templates/gemm/gemm_tn.argus" 512 256 1)
echo "the model's kernel: $symbol"
"$gen" build --catalog "$catalog" --out "$work/out" --home "$home" --cache "$cache" --jobs 2
grep -q '"template": "llm/injected0test.argus"' "$work/out/manifest.json" || { echo "FAIL: not in the manifest"; exit 1; }
LD_LIBRARY_PATH="$work/out/lib" "$client" "1x512x256:bf16@$symbol" 3x512x256:bf16:f32
echo "PASS: shipped $symbol"
