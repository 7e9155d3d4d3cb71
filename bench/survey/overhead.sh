#!/usr/bin/env bash
# The goal for `roofprof survey`: sampling costs at most 5% of the bare run at the default
# rate (1 kHz cpu-clock). Each workload runs bare, under `roofprof survey` (each sample copies
# 16 KiB of stack for CFI unwinding) and under `roofprof survey --unwind fp` (the kernel's
# frame-pointer walk only), interleaved within each repeat; wall seconds, median of REPEATS
# (default 5):
#   program under sampling  the program's own wall time from exec to exit as the survey measured it
#                           (the result's wall_time_s): what sampling costs the program
#   whole survey            the whole command, roofprof's start, unwinding, symbolization and table
#   cfi / fp                the same two times of the default survey against --unwind fp's
#   CPU s                   user + system CPU seconds of the whole survey (program and roofprof:
#                           the kernel's stack copies and the unwinding), which a loaded machine
#                           disturbs less than wall times; cfi / fp their ratio
#
#   bench/survey/overhead.sh BUILD_DIR [REPEATS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: overhead.sh BUILD_DIR [REPEATS]}" && pwd)
repeats=${2:-5}
roof="$build/bin/roofprof"
[ -x "$roof" ] || { echo "build roofprof first (no $roof)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -o "$tmp/libs" "$here/../emul/libs.c" -lopenblas -lfftw3
export OPENBLAS_NUM_THREADS=1

now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

# Runs a command (its output discarded) and prints its user + system CPU seconds, children included.
cpu_of() {
  local t
  t=$( { TIMEFORMAT='%3U %3S'; time "$@" >/dev/null 2>"$tmp/err"; } 2>&1 ) || { cat "$tmp/err" >&2; exit 1; }
  awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.3f", a[1] + a[2] }'
}

wall_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["wall_time_s"])' "$1"; }

row() {  # name command...
  local name=$1
  shift
  local bare=() sampled=() whole=() fp_sampled=() fp_whole=() cpu=() fp_cpu=() s e
  for _ in $(seq "$repeats"); do
    s=$(now); "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }; e=$(now)
    bare+=("$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f", e - s }')")
    s=$(now)
    cpu+=("$(cpu_of "$roof" survey -q -o "$tmp/s.json" -- "$@")")
    e=$(now)
    whole+=("$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f", e - s }')")
    sampled+=("$(wall_of "$tmp/s.json")")
    s=$(now)
    fp_cpu+=("$(cpu_of "$roof" survey -q --unwind fp -o "$tmp/f.json" -- "$@")")
    e=$(now)
    fp_whole+=("$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f", e - s }')")
    fp_sampled+=("$(wall_of "$tmp/f.json")")
  done
  local b p w fp fw c fc
  b=$(median "${bare[@]}"); p=$(median "${sampled[@]}"); w=$(median "${whole[@]}")
  fp=$(median "${fp_sampled[@]}"); fw=$(median "${fp_whole[@]}")
  c=$(median "${cpu[@]}"); fc=$(median "${fp_cpu[@]}")
  echo "| $name | $b | $p | $(ratio "$p" "$b") | $w | $(ratio "$w" "$b") | $fp | $(ratio "$p" "$fp") | $fw | $(ratio "$w" "$fw") | $c | $fc | $(ratio "$c" "$fc") |"
}

echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, median of $repeats, wall seconds, sampling at the default 1 kHz"
echo
echo "| workload | bare | program under sampling | ratio (goal <= 1.05) | whole survey | ratio | program, --unwind fp | cfi / fp | whole, --unwind fp | cfi / fp | CPU s | CPU s, --unwind fp | cfi / fp |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
row "OpenBLAS dgemm_ n=1000, 10 calls" "$tmp/libs" dgemm 1000 10
row "FFTW 1D complex n=4096, 40000 calls" "$tmp/libs" fftw 4096 40000
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  row "numpy: import, 1000x1000 a@a twice" /usr/bin/python3 -c 'import numpy as np; a=np.ones((1000,1000)); b=a@a; c=b@a'
fi
