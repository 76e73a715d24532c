#!/usr/bin/env bash
# Every Hopper check and timing in one call on an H100/H200, from what bench/cuda/build_sm90_all.sh
# put in build-cuda/ (built here first when it is missing), each step under its own time limit so
# one slow step cannot take the others' time:
#   1. the device (nvidia-smi) and the copy bandwidth the benches measure themselves;
#   2. argus_gemm through the C ABI against float64 (check_library_sm90), on the test-table library
#      and on the argus-gen library in build-cuda/generated/lib when there is one (its generated
#      fallback kernels too);
#   3. attention and MoE through the C ABI: checked against float64, then timed (run_abi_sm90.sh's
#      benches), then their PyTorch peers (torch_gpu_baselines.py) in the same call;
#   4. the GEMM bench against cuBLAS, --quick (gemm_quick), or every catalog M (gemm_full, only when
#      named).
# STEP names a subset: library_check_tables, library_check_generated, attention_sm90, moe_sm90,
# attention_torch, moe_torch, gemm_quick, gemm_full (default: all but gemm_full).
# A failed step is reported and the next one runs; the exit status counts the failures. All steps
# together stop by ARGUS_DEVICE_SECONDS (default 480), each cut to what is left, so the call ends
# with its logs written inside a device lease.
# Usage: bash bench/cuda/run_sm90_all.sh RESULTS_DIR [STEP...]
set -uo pipefail
results=${1:?results directory}
shift
steps=" $* "
[ $# -gt 0 ] || steps=" library_check_tables library_check_generated attention_sm90 moe_sm90 attention_torch moe_torch gemm_quick "
mkdir -p "$results"
[ -x build-cuda/benches/attention_sm90_bench ] || bash bench/cuda/build_sm90_all.sh || exit 1
failures=0
deadline=$((SECONDS + ${ARGUS_DEVICE_SECONDS:-480}))
step() { # step NAME SECONDS COMMAND...: runs COMMAND under a limit, its output in RESULTS/NAME.log
  local name=$1 limit=$2
  shift 2
  [[ "$steps" == *" $name "* ]] || return 0
  ((limit > deadline - SECONDS)) && limit=$((deadline - SECONDS))
  if ((limit < 10)); then
    echo "== $name: not run, the call's time is spent" | tee -a "$results/steps.txt"
    failures=$((failures + 1))
    return
  fi
  echo "== $name (limit ${limit} s)"
  local begin=$SECONDS
  timeout "$limit" "$@" 2>&1 | tee "$results/$name.log"
  local status=${PIPESTATUS[0]}
  echo "== $name: exit $status after $((SECONDS - begin)) s" | tee -a "$results/steps.txt"
  [ "$status" = 0 ] || failures=$((failures + 1))
}
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  nvcc --version | tail -1
  python3 -c 'import torch; print("torch", torch.__version__)'
} 2>&1 | tee "$results/device.txt"
test_library=$PWD/build-cuda/library
step library_check_tables 60 env LD_LIBRARY_PATH="$test_library" build-cuda/check_library_sm90
if [ -d build-cuda/generated/lib ]; then
  step library_check_generated 60 env LD_LIBRARY_PATH="$PWD/build-cuda/generated/lib" build-cuda/check_library_sm90
fi
step attention_sm90 150 env LD_LIBRARY_PATH="$test_library" build-cuda/benches/attention_sm90_bench \
  "$results/attention_sm90.jsonl"
step moe_sm90 100 env LD_LIBRARY_PATH="$test_library" build-cuda/benches/moe_sm90_bench "$results/moe_sm90.jsonl"
for part in attention moe; do
  step "${part}_torch" 150 python3 bench/cuda/torch_gpu_baselines.py "$part" "$results/${part}_torch.jsonl"
done
step gemm_quick 60 build-cuda/gemm_sm90_bench --quick --json="$results/gemm_sm90_quick.jsonl"
step gemm_full 300 build-cuda/gemm_sm90_bench --json="$results/gemm_sm90.jsonl"
echo "$failures failed steps"
exit "$failures"
