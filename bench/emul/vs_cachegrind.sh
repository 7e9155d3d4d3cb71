#!/usr/bin/env bash
# Issue 16's goal for the emulation backend, measured: the whole `roofprof run --backend emul`
# (its native run, then the emulated run with cache simulation) against valgrind's cachegrind
# with cache simulation, of the same engine (BUILD_DIR/lib/roofprof/valgrind), and against the
# program alone, on the library kernels users profile (libs.c): OpenBLAS dgemm_ n = 1000 twice
# (OPENBLAS_NUM_THREADS=1) and FFTW 1D complex n = 4096.
#
#   bench/emul/vs_cachegrind.sh BUILD_DIR [REPEATS] [FFTW_CALLS]
#
# Wall seconds, median of REPEATS (default 3) runs, the configurations interleaved within each
# repeat. cachegrind simulates two levels (D1 and LL) where roofprof simulates every level the
# host has; both get the host's geometry (sysfs, or the typical one roofprof uses where sysfs
# lists none, said in the output). cachegrind runs with its default VEX settings; roofprof with
# its exact-count ones (docs/emulation.md), which cost valgrind itself 1.1-1.4x.
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

# The host's data caches by level (size in bytes, ways, line), as roofprof reads them.
levels=()
for lvl in 1 2 3 4; do
  for d in /sys/devices/system/cpu/cpu0/cache/index*; do
    [ -r "$d/level" ] && [ "$(cat "$d/level")" = "$lvl" ] || continue
    case "$(cat "$d/type")" in Data|Unified) ;; *) continue ;; esac
    size=$(cat "$d/size"); size=${size%K}
    levels+=("$((size * 1024)),$(cat "$d/ways_of_associativity"),$(cat "$d/coherency_line_size")")
  done
done
if [ ${#levels[@]} -eq 0 ]; then
  levels=(49152,12,64 1048576,16,64 33554432,16,64)
  echo "no caches in sysfs: roofprof and cachegrind simulate L1 48K/12, L2 1M/16, L3 32M/16 (cachegrind: D1 and LL)"
fi
d1=${levels[0]}
ll=${levels[${#levels[@]}-1]}

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
  local native=() cg=() rp=()
  for _ in $(seq "$repeats"); do
    native+=("$(wall "$tmp/libs" "$@")")
    cg+=("$(wall "$vg" --tool=cachegrind --cache-sim=yes --D1="$d1" --LL="$ll" --cachegrind-out-file=/dev/null "$tmp/libs" "$@")")
    rp+=("$(wall "$roof" run --backend emul -q -o "$tmp/r.json" --region "$region" -- "$tmp/libs" "$@")")
  done
  local n c r
  n=$(median "${native[@]}"); c=$(median "${cg[@]}"); r=$(median "${rp[@]}")
  echo "| $name | $n | $c | $r | $(ratio "$r" "$c") | $(ratio "$r" "$n") |"
}

echo "valgrind $("$vg" --version | sed 's/valgrind-//'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), median of $repeats, wall seconds"
echo
echo "| workload | native | cachegrind --cache-sim=yes | roofprof run --backend emul | roofprof / cachegrind (goal <= 1.0) | roofprof / native (goal <= 30) |"
echo "|---|---:|---:|---:|---:|---:|"
row "OpenBLAS dgemm_ n=1000, 2 calls" dgemm_ dgemm 1000 2
row "FFTW 1D complex n=4096, $fftw_calls calls" fftw_execute fftw 4096 "$fftw_calls"
