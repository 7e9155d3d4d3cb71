#!/usr/bin/env bash
# Issue 20: seconds from `make demo` to its first output (roofprof's first line; the build it
# needs is roofprof, its companions and the example), against a full build (`cmake --build`
# of everything, what `make test` builds before running the suite). Both from an empty build
# directory, one after the other, in one run; configuration included in both.
# Usage: bench/build/demo_vs_full.sh   (JOBS=N, default nproc)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/roofprof-demo-time.XXXXXX")
trap 'rm -rf "$work"' EXIT
jobs=${JOBS:-$(nproc)}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }

start=$(now)
first=""
while IFS= read -r line; do
  if [ -z "$first" ] && [[ $line == roofprof* ]]; then
    first=$(since "$start")
    echo "first output after ${first} s: $line"
  fi
done < <(make -C "$src" --no-print-directory demo BUILD="$work/demo" JOBS="$jobs" 2>&1)
demo_total=$(since "$start")
[ -n "$first" ] || { echo "make demo printed nothing of roofprof's" >&2; exit 1; }

start=$(now)
cmake -S "$src" -B "$work/full" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/full" -j"$jobs" >/dev/null
full=$(since "$start")

echo "make demo: first output ${first} s, done ${demo_total} s; full build ${full} s (-j${jobs}, load average" \
     "$(cut -d' ' -f1-3 /proc/loadavg) at the end); demo/full = $(awk -v a="$first" -v b="$full" \
     'BEGIN { printf "%.2f", a / b }')"
