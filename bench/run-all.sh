#!/usr/bin/env bash
# Runs every benchmark against the build in $1 (default: build). Results are printed;
# docs/benchmarks.md records them with the command that reproduces each.
set -euo pipefail
BUILD=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
echo "== overhead of ptrace region boundaries"
"$here/overhead/run.py" "$BUILD"
for extra in "$here"/*/run-bench.sh; do
  [ -x "$extra" ] && { echo "== $(basename "$(dirname "$extra")")"; "$extra" "$BUILD"; }
done
