#!/usr/bin/env bash
# Installs every Debian package Argus needs to build, test and generate libraries.
# Idempotent: packages already present are left alone, apt is only called when one is missing.
#   bash scripts/setup.sh [--tests]   (--tests: also what only the tests use)
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache git
  llvm-22 llvm-22-dev libmlir-22-dev mlir-22-tools clang-22 lld-22
  libz3-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev
  libsqlite3-dev libcurl4-openssl-dev libgtest-dev libgmock-dev libbenchmark-dev
  libdnnl-dev libopenblas-dev libpng-dev
  # dnnl-config.cmake calls find_package(OpenCL REQUIRED): a Recommends that --no-install-recommends drops.
  ocl-icd-opencl-dev
)
# The report's screenshot test renders report.html in headless Chromium.
if [ "${1:-}" = "--tests" ]; then PACKAGES+=(chromium); fi

missing=()
for p in "${PACKAGES[@]}"; do
  # No pipe into grep -q: under pipefail its early exit can fail the pipeline (SIGPIPE).
  [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == *"install ok installed"* ]] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
