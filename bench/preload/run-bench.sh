#!/usr/bin/env bash
# Overhead of the in-process agent per call and for ~100 us regions: bench/preload/run-bench.sh BUILD_DIR
# (the build must have the targets roofprof and bench_preload). Results: docs/benchmarks.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/bench.py" "${1:-build}" "${@:2}"
