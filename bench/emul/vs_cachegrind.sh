#!/usr/bin/env bash
# The emulation backend's goal, measured: the whole `roofprof run --backend emul`
# (its native run, then the emulated run with cache simulation) against valgrind's cachegrind
# with cache simulation, of the same engine (BUILD_DIR/lib/roofprof/valgrind), and against the
# program alone, on the library kernels users profile (libs.c): OpenBLAS dgemm_ n = 1000 twice
# (OPENBLAS_NUM_THREADS=1) and FFTW 1D complex n = 4096.
#
#   bench/emul/vs_cachegrind.sh BUILD_DIR [REPEATS] [FFTW_CALLS]
#
# Wall seconds, median of REPEATS (default 3) runs, the configurations interleaved within each
# repeat. cachegrind simulates two levels (D1 and LL) where roofprof simulates every level the
# host has; cachegrind gets the L1 and last level roofprof simulates (read from a result file).
# roofprof runs twice: with the host's last-level inclusion (its default) and with an inclusive
# last level (--cache-last-level inclusive, cachegrind's model), so that the cost of a
# non-inclusive model shows. cachegrind runs with its default VEX settings; roofprof with its
# exact-count ones (docs/emulation.md), which cost valgrind itself 1.1-1.4x.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: vs_cachegrind.sh BUILD_DIR [REPEATS] [FFTW_CALLS]}" && pwd)
repeats=${2:-3}
fftw_calls=${3:-200}
vg="$build/lib/roofprof/valgrind"
roof="$build/bin/roofprof"
[ -x "$vg" ] && [ -x "$roof" ] || { echo "build roofprof first (no $vg or $roof)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -o "$tmp/libs" "$here/libs.c" -lopenblas -lfftw3
export OPENBLAS_NUM_THREADS=1

# The hierarchy roofprof simulates here: cachegrind gets the same L1 and last level.
# shellcheck source=geometry.sh
. "$here/geometry.sh"
simulated_geometry "$roof" "$tmp/libs" "$tmp"
echo "simulated: ${levels[*]} (last level: $last; cachegrind: D1 $d1, LL $ll)"

wall() {  # seconds of one run of "$@" (output discarded; a failure ends the bench)
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null 2>"$tmp/err" || { echo "failed: $*" >&2; tail -5 "$tmp/err" >&2; exit 1; }
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

row() {  # name region kernel-args...
  local name=$1 region=$2
  shift 2
  local native=() cg=() rp=() ri=()
  for _ in $(seq "$repeats"); do
    native+=("$(wall "$tmp/libs" "$@")")
    cg+=("$(wall "$vg" --tool=cachegrind --cache-sim=yes --D1="$d1" --LL="$ll" --cachegrind-out-file=/dev/null "$tmp/libs" "$@")")
    rp+=("$(wall "$roof" run --backend emul -q -o "$tmp/r.json" --region "$region" -- "$tmp/libs" "$@")")
    ri+=("$(wall "$roof" run --backend emul -q --cache-last-level inclusive -o "$tmp/r.json" --region "$region" -- \
           "$tmp/libs" "$@")")
  done
  local n c r i
  n=$(median "${native[@]}"); c=$(median "${cg[@]}"); r=$(median "${rp[@]}"); i=$(median "${ri[@]}")
  echo "| $name | $n | $c | $r | $(ratio "$r" "$c") | $(ratio "$r" "$n") | $i | $(ratio "$i" "$c") |"
}

echo "valgrind $("$vg" --version | sed 's/valgrind-//'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), median of $repeats, wall seconds"
echo
echo "| workload | native | cachegrind --cache-sim=yes | roofprof run --backend emul | roofprof / cachegrind (goal <= 1.0) | roofprof / native (goal <= 30) | roofprof, inclusive last level | inclusive / cachegrind |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
row "OpenBLAS dgemm_ n=1000, 2 calls" dgemm_ dgemm 1000 2
row "FFTW 1D complex n=4096, $fftw_calls calls" fftw_execute fftw 4096 "$fftw_calls"
