#!/usr/bin/env bash
# Native counting's cost on library kernels (docs/native.md), ratios to the bare program in the same run.
#
#   bench/native/speed.sh [BUILD_DIR] [REPEATS]
#
# Workloads (bench/emul/libs.c, built once per library so that each run loads only its own:
# native counting plans and patches every module the program maps):
#   dgemm: OpenBLAS dgemm_, n = 1500, 3 calls (its kernel for this CPU: AVX-512 where there is)
#   fftw:  FFTW 1D complex transform, n = 4096, 2000 calls (FFTW_ESTIMATE)
# Configurations, each the median wall time of REPEATS runs (default 3), interleaved:
#   bare       the program alone
#   counting   roofprof run --backend native --emul-budget 0 -r REGION (native counting and the
#              region's probes, no emulated pass)
#   default    roofprof run -r REGION (what a user gets: on a machine without a PMU, native
#              counting; the emulated pass for the bytes runs only with --emul-budget)
# and W per call against the analytic count (dgemm: 2 n^3); besides the whole runs, the calls alone
# (the program's own timer around its loop of calls, libs.c's calls_s): what counting costs the
# work, apart from roofprof's fixed cost per run (start-up, symbol tables, the patches kept).
# With REFERENCE=/path/to/another/build/bin/roofprof (a build of an earlier commit, say), its
# counting run is measured in the same interleaved loop: "reference s" and "reference / bare".
# Prints a Markdown table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-$repo/build}
repeats=${2:-3}
roofprof="$build/bin/roofprof"
[ -x "$roofprof" ] || { echo "no $roofprof: build roofprof first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# libs.c calls both libraries; each build links one and stubs the other's entry points out.
cat > "$tmp/no_fftw.c" <<'C'
void *fftw_malloc(unsigned long n) { (void)n; return 0; }
void *fftw_plan_dft_1d(int n, void *i, void *o, int s, unsigned f) { (void)n; (void)i; (void)o; (void)s; (void)f; return 0; }
void fftw_execute(void *p) { (void)p; }
C
cat > "$tmp/no_blas.c" <<'C'
void dgemm_(void) {}
C
gcc -O2 -o "$tmp/libs_dgemm" "$repo/bench/emul/libs.c" "$tmp/no_fftw.c" -lopenblas -lm
gcc -O2 -o "$tmp/libs_fftw" "$repo/bench/emul/libs.c" "$tmp/no_blas.c" -lfftw3 -lm
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}

seconds() {  # wall seconds of "$@", stdout discarded; the program's calls_s appended to $calls_to
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > /dev/null 2> "$tmp/err"
  t1=$(date +%s.%N)
  sed -n 's/^calls_s=//p' "$tmp/err" | tail -1 >> "$calls_to"
  echo "$t1 - $t0" | bc -l
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

reference=${REFERENCE:-}
[ -z "$reference" ] || [ -x "$reference" ] || { echo "REFERENCE=$reference is not an executable" >&2; exit 2; }
ref_head="" ref_rule=""
[ -z "$reference" ] || ref_head=" reference s | reference / bare |" ref_rule="---|---|"
echo "| workload | bare s | counting s | default s | counting / bare | default / bare |$ref_head calls: bare s | calls: counting s | calls: counting / bare | W per call | analytic | W / analytic |"
echo "|---|---|---|---|---|---|${ref_rule}---|---|---|---|---|---|"
for w in "dgemm 1500 3 dgemm_" "fftw 4096 2000 fftw_execute"; do
  set -- $w
  kind=$1 n=$2 calls=$3 region=$4
  : > "$tmp/bare" ; : > "$tmp/counting" ; : > "$tmp/default" ; : > "$tmp/calls_bare" ; : > "$tmp/calls_counting"
  : > "$tmp/reference"
  # Each binary plans and keeps its patches once (an entry is per roofprof binary): not timed.
  for r in "$roofprof" $reference; do
    "$r" run -q --backend native --emul-budget 0 -r "$region" -o "$tmp/w.json" -- "$tmp/libs_$kind" "$kind" "$n" "$calls" > /dev/null 2>&1 || true
  done
  for _ in $(seq "$repeats"); do
    calls_to="$tmp/calls_bare" seconds "$tmp/libs_$kind" "$kind" "$n" "$calls" >> "$tmp/bare"
    calls_to="$tmp/calls_counting" seconds "$roofprof" run -q --backend native --emul-budget 0 -r "$region" -o "$tmp/c.json" -- "$tmp/libs_$kind" "$kind" "$n" "$calls" >> "$tmp/counting"
    calls_to=/dev/null seconds "$roofprof" run -q -r "$region" -o "$tmp/d.json" -- "$tmp/libs_$kind" "$kind" "$n" "$calls" >> "$tmp/default"
    [ -z "$reference" ] || calls_to=/dev/null seconds "$reference" run -q --backend native --emul-budget 0 -r "$region" \
      -o "$tmp/r.json" -- "$tmp/libs_$kind" "$kind" "$n" "$calls" >> "$tmp/reference"
  done
  b=$(median < "$tmp/bare") c=$(median < "$tmp/counting") d=$(median < "$tmp/default")
  cb=$(median < "$tmp/calls_bare") cc=$(median < "$tmp/calls_counting")
  read -r wpc <<< "$(python3 -c "
import json; r = json.load(open('$tmp/c.json'))['regions'][0]
print(r['flops'] / r['calls'] if r['flops'] is not None and r['calls'] else 'null')")"
  if [ "$kind" = dgemm ]; then analytic=$(python3 -c "print(2 * $n ** 3)"); else analytic="(5 n log2 n = $(python3 -c "import math; print(5 * $n * int(math.log2($n)))"), an estimate)"; fi
  ratio=$(python3 -c "
try: print(f'{float(\"$wpc\") / float(\"$analytic\"):.4f}')
except ValueError: print('-')")
  ref_cells=""
  if [ -n "$reference" ]; then
    rf=$(median < "$tmp/reference")
    ref_cells=$(printf " %.3f | %.2f |" "$rf" "$(echo "$rf / $b" | bc -l)")
  fi
  printf "| %s n=%s x%s | %.3f | %.3f | %.3f | %.2f | %.2f |%s %.3f | %.3f | %.2f | %s | %s | %s |\n" "$kind" "$n" "$calls" \
    "$b" "$c" "$d" "$(echo "$c / $b" | bc -l)" "$(echo "$d / $b" | bc -l)" "$ref_cells" "$cb" "$cc" "$(echo "$cc / $cb" | bc -l)" \
    "$wpc" "$analytic" "$ratio"
done
