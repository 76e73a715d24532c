#!/usr/bin/env bash
# Applies one sed mutation to a DSL template and checks that the verifier refuses the result with
# the expected finding: the proof of the template is only worth something if it can fail.
# Usage: verify_mutant.sh ARGUS_GEN TEMPLATE WORK_DIR NAME SED_EXPRESSION FINDING_REGEX [verify flags...]
set -euo pipefail
gen=$1 template=$2 work=$3 name=$4 mutation=$5 finding=$6
shift 6
mkdir -p "$work"
mutant="$work/$name.argus"
sed "$mutation" "$template" > "$mutant"
if cmp -s "$template" "$mutant"; then
  echo "mutation '$mutation' did not change $template"
  exit 1
fi
set +e
output=$("$gen" verify "$mutant" "$@" 2>&1)
status=$?
set -e
printf '%s\n' "$output" | sed -n 1,20p
# Here-strings, not pipes: under pipefail, grep -q closing a pipe early fails the pipeline.
if [ $status -eq 0 ] || ! grep -q "NOT proved" <<< "$output"; then
  echo "the verifier did not refuse mutant $name"
  exit 1
fi
if ! grep -Eq "$finding" <<< "$output"; then
  echo "mutant $name was refused, but without a finding matching '$finding'"
  exit 1
fi
echo "mutant $name refused: $finding"
