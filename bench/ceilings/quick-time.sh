#!/usr/bin/env bash
# How long `roofprof ceilings --quick` takes on this machine (the goal: under 60 s on 2 cores),
# median of REPEATS fresh measurements (a cache directory of its own, so nothing is reused), with
# the load average before each run (other processes slow it down: docs/benchmarks.md).
#   bench/ceilings/quick-time.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
build=${1:-build}
repeats=${2:-3}
exe="$build/bin/roofprof"
[ -x "$exe" ] || { echo "quick-time: $exe not found (build first)" >&2; exit 2; }
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
times=()
for i in $(seq "$repeats"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  start=$(date +%s.%N)
  XDG_CACHE_HOME="$cache" "$exe" ceilings --quick --remeasure >/dev/null 2>"$cache/err"
  end=$(date +%s.%N)
  t=$(echo "$end - $start" | bc)
  flagged=$(grep -c "flagged" "$cache/err" || true)
  printf 'run %d: %.1f s (load average %s before it; %s lines flagged)\n' "$i" "$t" "$load" "$flagged"
  times+=("$t")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
printf 'median of %d: %.1f s (budget 60 s: %.2f of it), %d CPUs\n' "$repeats" "$median" \
  "$(echo "$median / 60" | bc -l)" "$(nproc)"
