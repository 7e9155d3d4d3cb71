#!/usr/bin/env bash
# Slowdown of roofprof's valgrind tool (emul backend) against valgrind's own tools.
#
#   bench/emul/slowdown.sh [BUILD_DIR] [REPEATS]
#
# BUILD_DIR holds lib/roofprof/roofprof-amd64-linux (default: build-emul next to this repo's
# CMakeLists.txt). Each configuration runs REPEATS times (default 3); the best CPU time
# (user + system, of valgrind and the program: they are one process) is reported, which
# stays meaningful on a shared, loaded machine where wall time does not. Workloads (workloads.c): a naive dgemm at -O2 (scalar SSE2, no FMA) and daxpy
# at -O3 -mavx2 -mfma (vfmadd231pd ymm, which valgrind 3.19 emulated lane by lane in a helper).
# Every configuration runs under the engine the tool was built against (BUILD_DIR/lib/roofprof/
# valgrind, cmake/valgrind.cmake), so the ratios compare tools of one valgrind.
# Configurations, all on the same binary and input:
#   native                  the program alone
#   none (default VEX)      valgrind --tool=none
#   none                    valgrind --tool=none with roofprof's exact-count VEX settings
#   tool, not counting      the tool with --instrument=no: valgrind plus the tool's fixed
#                           costs (callbacks, its own code layout), no counting code
#   roofprof                the tool, one region probe on the kernel, events written
#   roofprof + cache        the same with --cache-sim=yes and the host's cache geometry
#   lackey                  valgrind --tool=lackey --detailed-counts=yes, same VEX settings
# Prints a Markdown table (CPU seconds; ratios against "none" and the tool not counting).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-$repo/build-emul}
repeats=${2:-3}
tool_dir=$(cd "$build/lib/roofprof" && pwd)
[ -x "$tool_dir/roofprof-amd64-linux" ] || { echo "no roofprof-amd64-linux in $tool_dir: build roofprof_emul_tool" >&2; exit 2; }
vg="$tool_dir/valgrind"
# The probe file's format, from the header the tool and roofprof share (probes/site_role.h).
probe_magic=$(sed -n 's/^#define RP_PROBE_FILE_MAGIC "\(.*\)"/\1/p' "$repo/probes/site_role.h")
entry_role=$(sed -n 's/^ *RP_SITE_ENTRY = \([0-9]*\),.*/\1/p' "$repo/probes/site_role.h")
[ -x "$vg" ] || { echo "no engine launcher $vg: reconfigure the build (cmake/valgrind.cmake)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -o "$tmp/wl_o2" "$here/workloads.c"
gcc -O3 -mavx2 -mfma -o "$tmp/wl_fma" "$here/workloads.c"

vex=(--vex-iropt-level=0 --vex-iropt-unroll-thresh=0 --vex-guest-chase=no)

# --cache-level options from sysfs (data and unified caches, by level)
cache=()
for lvl in 1 2 3 4; do
  for d in /sys/devices/system/cpu/cpu0/cache/index*; do
    [ -r "$d/level" ] || continue
    [ "$(cat "$d/level")" = "$lvl" ] || continue
    case "$(cat "$d/type")" in Data|Unified) ;; *) continue ;; esac
    size=$(cat "$d/size"); size=${size%K}; size=$((size * 1024))
    cache+=("--cache-level=$size,$(cat "$d/ways_of_associativity"),$(cat "$d/coherency_line_size")")
  done
done
if [ ${#cache[@]} -eq 0 ]; then  # a VM without sysfs caches: a typical geometry, said in the output
  cache=(--cache-level=49152,12,64 --cache-level=1048576,16,64 --cache-level=33554432,16,64)
  echo "no caches in sysfs: simulating L1 48K/12, L2 1M/16, L3 32M/16"
fi

best() {  # best CPU time (user + sys, seconds) of REPEATS runs of "$@", after one checked run
  local best="" t
  "$@" >/dev/null 2>"$tmp/check.err" || { echo "failed: $*" >&2; tail -5 "$tmp/check.err" >&2; exit 1; }
  for _ in $(seq "$repeats"); do
    t=$( { TIMEFORMAT='%3U %3S'; time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ printf "%.3f", $1 + $2 }')
    best=$(awk -v a="$t" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
  printf '%.3f' "$best"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }

row() {  # name exe kernel args...
  local name=$1 exe=$2 kernel=$3
  shift 3
  local addr
  addr=$(nm "$exe" | awk -v k="$kernel" '$3 == k { print $1 }')
  printf '%s\n%s\t%s\t%s\n' "$probe_magic" "$entry_role" "$addr" "$(readlink -f "$exe")" > "$tmp/probes"
  mkdir -p "$tmp/ev"
  local native none_def none bare rp rpc lackey
  native=$(best "$exe" "$@")
  none_def=$(best "$vg" --tool=none "$exe" "$@")
  none=$(best "$vg" --tool=none "${vex[@]}" "$exe" "$@")
  bare=$(best env VALGRIND_LIB="$tool_dir" "$vg" --tool=roofprof "${vex[@]}" --instrument=no "$exe" "$@")
  rp=$(best env VALGRIND_LIB="$tool_dir" "$vg" --tool=roofprof "${vex[@]}" --probes="$tmp/probes" \
       --out-dir="$tmp/ev" --progress-interval=0 "$exe" "$@")
  rpc=$(best env VALGRIND_LIB="$tool_dir" "$vg" --tool=roofprof "${vex[@]}" --probes="$tmp/probes" \
        --out-dir="$tmp/ev" --progress-interval=0 --cache-sim=yes "${cache[@]}" "$exe" "$@")
  lackey=$(best "$vg" --tool=lackey --detailed-counts=yes "${vex[@]}" "$exe" "$@")
  rm -rf "$tmp/ev"
  echo "| $name | $native | $none_def | $none | $bare ($(ratio "$bare" "$none")) | $rp ($(ratio "$rp" "$none"), $(ratio "$rp" "$bare")) | $rpc ($(ratio "$rpc" "$none")) | $lackey ($(ratio "$lackey" "$none")) |"
}

echo "valgrind $("$vg" --version | sed 's/valgrind-//'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), best of $repeats, CPU seconds (user + sys)"
echo
echo "| workload | native | none (default VEX) | none | tool, not counting (x none) | roofprof (x none, x not counting) | roofprof + cache (x none) | lackey (x none) |"
echo "|---|---|---|---|---|---|---|---|"
row "dgemm n=500, -O2 (no FMA)" "$tmp/wl_o2" dgemm dgemm 500
row "daxpy n=4096 x 10000, -O3 -mavx2 -mfma" "$tmp/wl_fma" daxpy axpy 4096 10000
