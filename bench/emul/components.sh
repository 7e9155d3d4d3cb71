#!/usr/bin/env bash
# Where the emulated run's time goes (docs/benchmarks.md, "Against cachegrind"): user CPU seconds
# of the valgrind process alone, for the same program under
#   none           valgrind's none tool, default VEX settings
#   none_exact     the none tool with roofprof's exact-count VEX settings
#   roof_nosim     roofprof's tool without cache simulation (no regions: whole-program counts)
#   roof_sim       roofprof's tool with cache simulation of the hierarchy `roofprof run --backend
#                  emul` simulates on this machine (bench/emul/geometry.sh), its last level as the
#                  host's (inclusive or not)
#   roof_sim_incl  the same with an inclusive last level
#   cachegrind     cachegrind --cache-sim=yes, D1 and LL: the same L1 and last level
# REPEATS rounds, the configurations interleaved in each.
#
#   bench/emul/components.sh BUILD_DIR REPEATS PROGRAM [ARGS...]
#   e.g. OPENBLAS_NUM_THREADS=1 bench/emul/components.sh build 3 /tmp/libs dgemm 1000 2
#   (libs: bench/emul/libs.c, gcc -O2 -o /tmp/libs bench/emul/libs.c -lopenblas -lfftw3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: components.sh BUILD_DIR REPEATS PROGRAM [ARGS...]}" && pwd)
repeats=${2:?repeats}
shift 2
lib="$build/lib/roofprof"
vg="$lib/valgrind"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -o "$tmp/libs" "$here/libs.c" -lopenblas -lfftw3
# shellcheck source=geometry.sh
. "$here/geometry.sh"
simulated_geometry "$build/bin/roofprof" "$tmp/libs" "$tmp"
echo "simulated: ${levels[*]} (last level: $last; cachegrind: D1 $d1, LL $ll)"
printf 'roofprof-probes 2\n' >"$tmp/probes"
exact=(--vex-iropt-level=0 --vex-iropt-unroll-thresh=0 --vex-guest-chase=no)
roof=(env VALGRIND_LIB="$lib" "$vg" --tool=roofprof "${exact[@]}" --probes="$tmp/probes" --out-dir="$tmp/ev"
      --progress-interval=0)
cpu() {  # name command...: one line "name seconds"
  local name=$1
  shift
  rm -rf "$tmp/ev" && mkdir "$tmp/ev"
  /usr/bin/time -f "$name %U" "$@" >/dev/null 2>"$tmp/err" || { tail -3 "$tmp/err" >&2; exit 1; }
  tail -1 "$tmp/err"
}
for _ in $(seq "$repeats"); do
  cpu none "$vg" --tool=none "$@"
  cpu none_exact "$vg" --tool=none "${exact[@]}" "$@"
  cpu roof_nosim "${roof[@]}" "$@"
  cpu roof_sim "${roof[@]}" --cache-sim=yes "${levels[@]}" --cache-last="$last" "$@"
  cpu roof_sim_incl "${roof[@]}" --cache-sim=yes "${levels[@]}" --cache-last=inclusive "$@"
  cpu cachegrind "$vg" --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null \
    --D1="$d1" --LL="$ll" "$@"
done | sort -k1,1 -s | awk '{ v[$1] = v[$1] " " $2 } END { for (k in v) print k ":" v[k] }' | sort
