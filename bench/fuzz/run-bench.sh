#!/usr/bin/env bash
# Fuzzes the result and ceilings loaders for a fixed number of executions (default 10^6) from
# the checked-in seed corpus and reports executions per second. Clean = the fuzzer exits 0
# (no crash, leak, timeout, out-of-memory or uncaught exception).
#   bench/fuzz/run-bench.sh BUILD_DIR [RUNS]
# BUILD_DIR is a roofprof build made with clang++ installed (tests/fuzz/CMakeLists.txt builds
# BUILD_DIR/tests/fuzz/libfuzzer/fuzz_loaders).
set -euo pipefail
build=${1:?usage: run-bench.sh BUILD_DIR [RUNS]}
runs=${2:-1000000}
src=$(cd "$(dirname "$0")/../.." && pwd)
fuzzer=$build/tests/fuzz/libfuzzer/fuzz_loaders
[ -x "$fuzzer" ] || { echo "no $fuzzer: install clang (scripts/install-deps.sh) and build" >&2; exit 2; }
log=$(mktemp)
start=$(date +%s.%N)
status=0
"$src/tests/fuzz/run-fuzz.sh" "$fuzzer" "$src/tests/fuzz/corpus" -runs="$runs" -max_len=4096 >"$log" 2>&1 || status=$?
end=$(date +%s.%N)
done_line=$(grep -E '^Done [0-9]+ runs' "$log" | tail -1 || true)
echo "fuzz_loaders: $done_line (exit $status)"
awk -v s="$start" -v e="$end" -v n="$runs" 'BEGIN { printf "wall %.0f s, %.0f executions/s\n", e - s, n / (e - s) }'
[ "$status" -eq 0 ] || { tail -40 "$log"; exit 1; }
rm -f "$log"
