#!/usr/bin/env bash
# `make demo` ends with a roofline that has roofs and every demo kernel's point.
# Runs examples/demo.sh (what make demo runs after the build) into a scratch directory, then
# checks its plot (each kernel's letter drawn, none "not plotted", compute and bandwidth roofs)
# and the report's JSON of the same view (each kernel's point and its exact W).
# Usage: demo_roofline.sh SOURCE BUILD
set -euo pipefail
src=$1 build=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/roofprof-demo-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
if ! "$src/examples/demo.sh" "$build" "$scratch" >"$scratch/out" 2>&1; then
  cat "$scratch/out"
  echo "FAIL: examples/demo.sh failed" >&2
  exit 1
fi
cat "$scratch/out"
ceilings=$(ls "$scratch"/demo-ceilings-*.json)
level=$(sed -n 's/^Roofline: \([A-Z0-9]*\),.*/\1/p' "$scratch/out")
[ -n "$level" ] || { echo "FAIL: no roofline title in the demo's output" >&2; exit 1; }
"$build/bin/roofprof" report "$scratch/demo.json" --ceilings "$ceilings" --level "$level" \
  --no-plot --json "$scratch/report.json" >/dev/null 2>&1
exec python3 "$(dirname "$0")/check_demo.py" "$scratch/out" "$scratch/report.json"
