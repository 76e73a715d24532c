#!/usr/bin/env bash
# check_kill_resume.sh ARGUS_GEN CATALOG HOME CACHE WORK REFERENCE_DB
#
# A sweep SIGKILLed at two moments (early, then with part of its results in
# the database) and started again loses no committed result, redoes none
# (each row keeps the time it was first recorded at), and ends with exactly
# the results of an uninterrupted sweep of the same catalog (REFERENCE_DB).
# CACHE holds the uninterrupted build's objects, so the sweeps here mostly
# measure: that is where most of a sweep's results are committed.
set -euo pipefail
gen=$1 catalog=$2 home=$3 cache=$4 work=$5 reference_db=$6
out=$work/out
rm -rf "$work"
mkdir -p "$work"

build() { "$gen" build --catalog "$catalog" --out "$out" --home "$home" --cache "$cache" --jobs 2 "$@"; }

# Rows as "shape_key|parameters|recorded_at" lines, sorted.
# A database still being created reads as empty.
rows() {
  [[ -f "$1" ]] || return 0
  # The export's keys are sorted: parameters, recorded_at, shape_key.
  { "$gen" db export "$1" 2>/dev/null || true; } | grep -E '^ *"(shape_key|parameters|recorded_at)": ' |
    sed -E 's/^ *"[a-z_]+": "(.*)",?$/\1/' | paste -d'|' - - - | awk -F'|' '{print $3 "|" $1 "|" $2}' |
    sort || true
}
keys() { rows "$1" | cut -d'|' -f1,2; }

# Starts a build in its own process group and SIGKILLs the whole group (the
# measuring child too) once the database holds at least $1 results, or after
# $2 seconds, whichever comes first.
kill_when() {
  local want=$1 limit=$2
  setsid bash -c "$(declare -f build); gen='$gen' catalog='$catalog' out='$out' home='$home' cache='$cache'; build" \
    > "$work/killed.log" 2>&1 &
  local pid=$! start=$SECONDS
  while kill -0 "$pid" 2>/dev/null; do
    local have
    have=$(rows "$out/tuning.db" 2>/dev/null | wc -l)
    if (( have >= want || SECONDS - start >= limit )); then
      kill -KILL -- "-$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  wait "$pid" 2>/dev/null || true
}

expected=$(keys "$reference_db" | wc -l)
(( expected > 0 )) || { echo "FAIL: the reference database $reference_db has no results"; exit 1; }

kill_when 1000000 3           # early: lowering, compiling or the first measurements
first=$(rows "$out/tuning.db" | wc -l)
kill_when $(( expected / 2 )) 600
rows "$out/tuning.db" > "$work/before.txt"
before=$(wc -l < "$work/before.txt")
echo "killed twice: $first results after the first kill, $before after the second (of $expected)"
(( before < expected )) || { echo "FAIL: the sweep finished before it was killed"; exit 1; }

build > "$work/resumed.log" 2>&1 || { cat "$work/resumed.log"; echo "FAIL: the resumed build failed"; exit 1; }
rows "$out/tuning.db" > "$work/after.txt"
missing=$(comm -23 "$work/before.txt" "$work/after.txt" | wc -l)
(( missing == 0 )) || { comm -23 "$work/before.txt" "$work/after.txt"; echo "FAIL: $missing results lost or redone"; exit 1; }
new=$(( $(wc -l < "$work/after.txt") - before ))
grep -q "($new new:" "$work/resumed.log" || { cat "$work/resumed.log"; echo "FAIL: the resumed sweep did not report $new new results"; exit 1; }
if ! diff <(keys "$reference_db") <(keys "$out/tuning.db") > "$work/keys.diff"; then
  cat "$work/keys.diff"; echo "FAIL: the resumed sweep's results differ from an uninterrupted sweep's"; exit 1
fi
[[ -f "$out/lib/libargus_kernels.so.1.0.0" ]] || { echo "FAIL: no library after resuming"; exit 1; }
echo "PASS: resumed with $before of $expected results kept as recorded, $new measured after the kills"
