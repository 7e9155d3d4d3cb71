#!/usr/bin/env bash
# Runs the test suite as if on other hosts: no test may assume anything about this machine's
# caches, core count or speed (docs/validation.md, "The suite on any host").
#
# Usage: scripts/check-any-host.sh [BUILD_DIR] [-- CTEST_ARGS...]
#   BUILD_DIR   a build with test seams (CMake ROOFPROF_TEST_SEAMS=ON, the default); default: build
#   CTEST_ARGS  passed to each ctest run, e.g. -- -R 'Backend|Survey' -j2
#
# Four runs of ctest, each with its log in BUILD_DIR/check-any-host/NAME.log:
#   intel-client  ROOFPROF_HOST_CACHES: a small-cache Intel client
#   zen4          ROOFPROF_HOST_CACHES: an AMD Zen 4 with a 32 MB L3 (non-inclusive)
#   zen5-vm       ROOFPROF_HOST_CACHES: an AMD Zen 5 VM whose CPUID reports a 508 MB L3
#   busy-core     this host's caches, with one more CPU kept busy by a loop of this script's
# ROOFPROF_HOST_CACHES replaces what sysfs and CPUID say of the caches for every part of
# roofprof that reads them (common/cache_info.hpp); the CPU itself stays this one.
# One summary line per configuration; exit status 1 when any run had a failure.
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=build
if [ $# -gt 0 ] && [ "$1" != "--" ]; then build=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
ctest_args=("$@")
case $build in /*) ;; *) build=$here/$build ;; esac

if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "check-any-host: $build is not a configured build directory (cmake -S . -B $build)" >&2
  exit 2
fi
if ! grep -q '^ROOFPROF_TEST_SEAMS:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "check-any-host: $build was built without ROOFPROF_TEST_SEAMS: ROOFPROF_HOST_CACHES would be ignored" >&2
  exit 2
fi

logs=$build/check-any-host
mkdir -p "$logs"

configs=(
  "intel-client|L1=32K:8:64,L2=256K:4:64,L3=6M:12:64"
  "zen4|L1=32K:8:64,L2=1M:8:64,L3=32M:16:64,non-inclusive"
  "zen5-vm|L1=48K:12:64,L2=1M:16:64,L3=508M:16:64"
  "busy-core|"
)

busy=""
stop_busy() {
  if [ -n "$busy" ]; then
    kill "$busy" 2>/dev/null
    wait "$busy" 2>/dev/null
    busy=""
  fi
}
trap stop_busy EXIT
trap 'stop_busy; exit 130' INT TERM

summary=()
failed=0
for entry in "${configs[@]}"; do
  name=${entry%%|*}
  caches=${entry#*|}
  log=$logs/$name.log
  env_args=(env -u ROOFPROF_HOST_CACHES)
  if [ -n "$caches" ]; then
    env_args=(env ROOFPROF_HOST_CACHES="$caches")
    what="ROOFPROF_HOST_CACHES=$caches"
  else
    # A second CPU busy for the whole run: the suite shares the machine with something else.
    (while :; do :; done) &
    busy=$!
    what="this host's caches, one more CPU busy (pid $busy)"
  fi
  echo "check-any-host: $name: $what (log: $log)"
  start=$(date +%s)
  "${env_args[@]}" ctest --test-dir "$build" --output-on-failure "${ctest_args[@]}" >"$log" 2>&1
  rc=$?
  stop_busy
  secs=$(($(date +%s) - start))
  line=$(grep -E '^[0-9]+% tests passed' "$log" | tail -1)
  [ -n "$line" ] || line="no test summary (ctest exit $rc)"
  failures=$(sed -n '/^The following tests FAILED:/,$p' "$log" | grep -E '^[[:space:]]+[0-9]+ - ' |
             sed -E 's/^[[:space:]]+[0-9]+ - ([^ ]+).*/\1/' | tr '\n' ' ')
  [ "$rc" -eq 0 ] || failed=1
  summary+=("$(printf '%-13s %s, %d s%s' "$name:" "$line" "$secs" "${failures:+; failed: $failures}")")
done

echo
for s in "${summary[@]}"; do echo "$s"; done
exit $failed
