#!/usr/bin/env bash
# What starting roofprof costs before it does anything: `roofprof --version`, median task-clock
# (ms) and page faults of REPEATS runs (default 11), against references measured in the same run:
#   /bin/true                       a process and nothing else
#   tables, shared                  an empty program linked to libcapstone.so and libpfm.so: the
#                                   dynamic linker relocates their ~120,000 table pointers
#   tables, static non-PIE          the same program with libcapstone.a and libpfm.a in a non-PIE
#                                   executable, as roofprof links them (CMake ROOFPROF_STATIC_TABLES)
#
#   bench/startup/start.sh [BUILD_DIR] [REPEATS]
# Needs perf (software events: any machine). Prints a Markdown table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-$repo/build}
repeats=${2:-11}
roofprof="$build/bin/roofprof"
[ -x "$roofprof" ] || { echo "no $roofprof: build roofprof first" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf is needed (linux-perf)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/tables.c" <<'C'
#include <capstone/capstone.h>
#include <perfmon/pfmlib.h>
int main(int argc, char **argv) {  /* never calls them: what loading costs */
  (void)argv;
  if (argc > 99) { csh h; cs_open(CS_ARCH_X86, CS_MODE_64, &h); pfm_initialize(); }
  return 0;
}
C
gcc -O2 -o "$tmp/shared" "$tmp/tables.c" -lcapstone -lpfm
gcc -O2 -no-pie -o "$tmp/static" "$tmp/tables.c" /usr/lib/x86_64-linux-gnu/libcapstone.a /usr/lib/x86_64-linux-gnu/libpfm.a

measure() {  # median "task-clock-ms page-faults" of $repeats runs of "$@"
  for _ in $(seq "$repeats"); do
    perf stat -x, -e task-clock,page-faults "$@" 2>&1 >/dev/null | cut -d, -f1 | paste -sd' '
  done | sort -g | awk '{a[NR] = $0} END {print a[int((NR + 1) / 2)]}'
}
read -r true_ms true_pf <<< "$(measure /bin/true)"
echo "| program | task-clock ms | page faults | ms / /bin/true |"
echo "|---|---|---|---|"
printf "| /bin/true | %.2f | %s | 1.00 |\n" "$true_ms" "$true_pf"
for row in "tables, shared|$tmp/shared" "tables, static non-PIE|$tmp/static" \
           "roofprof --version|$roofprof --version"; do
  name=${row%%|*} cmd=${row#*|}
  read -r ms pf <<< "$(measure $cmd)"
  printf "| %s | %.2f | %s | %.2f |\n" "$name" "$ms" "$pf" "$(echo "$ms / $true_ms" | bc -l)"
done
