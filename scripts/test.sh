#!/usr/bin/env bash
# Set up, build everything, run every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
ARGUS_SETUP_ARGS=--tests bash scripts/build.sh
cd build
ctest --output-on-failure --parallel "${ARGUS_TEST_JOBS:-$(nproc)}" --timeout 1500
