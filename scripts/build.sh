#!/usr/bin/env bash
# Configures and builds the whole tree into build/ (after installing what it needs).
#   ARGUS_SETUP_ARGS=--tests bash scripts/build.sh [cmake --build args...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh ${ARGUS_SETUP_ARGS:-}
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
generator=""
command -v ninja >/dev/null && generator="-G Ninja"
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build $generator -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build --parallel "${ARGUS_BUILD_JOBS:-$(nproc)}" "$@"
