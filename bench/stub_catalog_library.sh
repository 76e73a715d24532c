#!/usr/bin/env bash
# stub_catalog_library.sh OUT STUB_DIR
#
# Relinks the library `argus-gen build --out OUT` made with every kernel
# replaced by a no-op: its own dispatch tables and runtime objects
# (OUT/obj), the same export map, and one empty function per kernel symbol
# (OUT/src/kernels/*.cpp). argus_dispatch_bench --catalog-library= then times
# what a call costs before the kernel on that catalog's real tables.
set -euo pipefail
out=$1 stub=$2
here=$(cd "$(dirname "$0")/.." && pwd)
[[ -f "$out/obj/argus_tables.o" ]] || { echo "no $out/obj/argus_tables.o: build the library with argus-gen first" >&2; exit 1; }
mkdir -p "$stub"
{
  echo '#include "cpu/argus_cpu_abi.h"'
  echo 'static volatile long calls; // the one side effect: no call is optimised away'
  for src in "$out"/src/kernels/*.cpp; do
    echo "extern \"C\" void $(basename "$src" .cpp)(const argus_cpu_arg *, int) { calls = calls + 1; }"
  done
} > "$stub/noop_kernels.cpp"
c++ -O2 -fPIC -fvisibility=hidden -I"$here/dist/runtime" -c "$stub/noop_kernels.cpp" -o "$stub/noop_kernels.o"
c++ -shared -fopenmp -o "$stub/libargus_kernels_stub.so" -Wl,--version-script="$here/dist/runtime/argus_exports.map" \
  -Wl,--no-undefined "$out/obj/argus_tables.o" "$out"/obj/runtime_*.o "$stub/noop_kernels.o"
echo "$stub/libargus_kernels_stub.so"
