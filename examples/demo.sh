#!/usr/bin/env bash
# `make demo`'s core (also run by the test examples.demo): profile the bundled example
# (examples/demo.c: daxpy, dgemm_naive, horner), measure the roofs it needs, and print the
# report with its roofline.
# Usage: examples/demo.sh BUILD [OUTDIR]
#   BUILD   the build tree (BUILD/bin/roofprof, BUILD/examples/demo)
#   OUTDIR  where demo.json and the roofs are written (default: BUILD)
# Roofs: a one-thread measurement of every ISA's compute peak and of L1 and L2 bandwidth
# (roofprof ceilings --only compute,bandwidth --threads 1 --levels L1,L2: seconds, where the
# full --quick measurement takes a minute or more on 2 cores), written to
# OUTDIR/demo-ceilings-KEY.json (KEY: this machine's CPU model, CPU count and kernel) and reused.
# The plot is at the first level of L2, L1, L3, DRAM where every kernel has traffic: with the
# example's sizes, L2.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: examples/demo.sh BUILD [OUTDIR]" >&2; exit 2; }
build=$(cd "$1" && pwd)
out=${2:-$build}
roofprof=$build/bin/roofprof
program=$build/examples/demo
for f in "$roofprof" "$program"; do
  [ -x "$f" ] || { echo "examples/demo.sh: $f is missing: build the targets roofprof_runtime and demo first" >&2; exit 2; }
done
mkdir -p "$out"
kernels=(daxpy dgemm_naive horner)

# 1. The run: native counting (or perf) for W; without a PMU, the emulated pass for the bytes,
#    which runs only when asked for (--emul-budget: the demo's takes seconds).
(cd "$build" && "$roofprof" run --emul-budget 300 $(printf -- '--region %s ' "${kernels[@]}") -o "$out/demo.json" -- ./examples/demo)

# 2. The roofs, measured once per machine.
key=$( { grep -m1 '^model name' /proc/cpuinfo || true; nproc; uname -r; } | cksum | cut -d' ' -f1)
ceilings=$out/demo-ceilings-$key.json
if [ ! -s "$ceilings" ]; then
  echo "roofprof demo: measuring this machine's roofs for one thread (compute, L1 and L2 bandwidth; about 10 s)" >&2
  if ! "$roofprof" ceilings --only compute bandwidth --threads 1 --levels L1,L2 -o "$ceilings.tmp" \
       >"$out/demo-ceilings.log" 2>&1; then
    cat "$out/demo-ceilings.log" >&2
    rm -f "$ceilings.tmp"
    exit 1
  fi
  mv "$ceilings.tmp" "$ceilings"
fi
echo "roofprof demo: roofs from $ceilings (the table: $out/demo-ceilings.log)" >&2

# 3. The report at the first level where every kernel has a point.
for level in L2 L1 L3 DRAM; do
  if ! report=$("$roofprof" report "$out/demo.json" --ceilings "$ceilings" --level "$level" 2>&1); then
    echo "$report" >&2
    exit 1
  fi
  if ! grep -q '^  not plotted' <<<"$report"; then
    echo "$report"
    exit 0
  fi
done
echo "$report"
echo "roofprof demo: no memory level where every kernel has traffic" >&2
exit 1
