#!/usr/bin/env bash
# run_region.sh PREFIX BACKEND OUT PROGRAM [ARGS...]: region daxpy of PROGRAM measured with
# BACKEND by PREFIX/bin/roofprof into OUT, then reported; fails unless the report shows it.
set -euo pipefail
prefix=$1 backend=$2 out=$3
shift 3
if ! "$prefix/bin/roofprof" run -q --backend "$backend" --region daxpy -o "$out" -- "$@" >"$out.stdout" 2>"$out.stderr"
then
  cat "$out.stderr" >&2
  echo "FAIL: --backend $backend from $prefix" >&2
  exit 1
fi
"$prefix/bin/roofprof" report --no-plot "$out" >"$out.report" 2>&1 || { cat "$out.report" >&2; exit 1; }
grep -q daxpy "$out.report" || { cat "$out.report" >&2; echo "FAIL: no daxpy in the report ($backend)" >&2; exit 1; }
