#!/usr/bin/env bash
# Compiles every CUDA unit argus-gen emitted (test/cuda/CMakeLists.txt: argus_emit_generated) for
# sm_90a, prints ptxas's registers and spills per kernel entry, and fails on a compile error, when ptxas
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
  if grep -qE 'instructions are serialized|warpgroup.wait is injected' "$work/$name.ptxas"; then
    echo "FAIL: ptxas serialised $name's wgmma pipeline"
    exit 1
  fi
  # One line per kernel of the unit (a unit with TMA copies has two: NAME and NAME_cp_async).
  while read -r entry registers spills; do
    echo "$entry: $registers registers, $spills bytes spill stores"
    if [[ ",$no_spill," == *",$entry,"* ]] && [ "$spills" != 0 ]; then
      echo "FAIL: $entry spills"
      exit 1
    fi
  done < <(awk '/Compiling entry function/ { gsub(/\047/, "", $7); entry = $7 }
                /bytes spill stores/ { spills = $5 }
                /Used [0-9]+ registers/ { print entry, $5, spills }' "$work/$name.ptxas")
done
echo "compiled $# generated kernels for sm_90a"
