#!/usr/bin/env bash
# Compiles every CUDA unit argus-gen emitted (test/cuda/CMakeLists.txt: argus_emit_generated) for
# sm_90a, prints ptxas's registers and spills per kernel, and fails on a compile error, when ptxas
# serialises a wgmma pipeline (C7510-C7517), or when a kernel named in NO_SPILL (comma-separated
# symbols) spills. The others are lane-group templates
# written for 64-lane CDNA waves: on a 32-lane warp each lane holds twice their state, and some
# spill; their figures are printed, not bounded.
# Usage: compile_generated_sm90.sh NVCC SOURCE_DIR WORK_DIR NO_SPILL UNIT.cu...
set -euo pipefail
nvcc=$1 source=$2 work=$3 no_spill=$4
shift 4
mkdir -p "$work"
for unit in "$@"; do
  name=$(basename "$unit" .cu)
  "$nvcc" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -I "$source/dist/runtime" \
    -I "$source/dist/runtime/cuda" -c "$unit" -o "$work/$name.o" 2>"$work/$name.ptxas" || {
    cat "$work/$name.ptxas"
    echo "FAIL: $name does not compile for sm_90a"
    exit 1
  }
  registers=$(grep -oE "Used [0-9]+ registers" "$work/$name.ptxas" | grep -oE "[0-9]+")
  spills=$(grep -oE "[0-9]+ bytes spill stores" "$work/$name.ptxas" | grep -oE "^[0-9]+")
  echo "$name: $registers registers, $spills bytes spill stores"
  if grep -qE 'instructions are serialized|warpgroup.wait is injected' "$work/$name.ptxas"; then
    echo "FAIL: ptxas serialised $name's wgmma pipeline"
    exit 1
  fi
  if [[ ",$no_spill," == *",$name,"* ]] && [ "$spills" != 0 ]; then
    echo "FAIL: $name spills"
    exit 1
  fi
done
echo "compiled $# generated kernels for sm_90a"
