#!/usr/bin/env bash
# Attach/detach stress (attaching and detaching never kill or hang the program): one program with 4 worker threads
# calling the region every 100 us (tests/fixtures/run/heartbeat.c), CPU load on every core,
# and CYCLES times `roofprof run --pid` + Ctrl-C (SIGINT) after a random 50-400 ms. After
# every cycle the program must be alive, untraced, not stopped, and beating. Prints the
# number of cycles and of harmed programs (a harmed program is restarted to go on).
#   bench/attach/stress.sh BUILD_DIR [CYCLES=300] [WORKERS=4] [PERIOD_US=100]
set -uo pipefail
build=${1:?usage: stress.sh BUILD_DIR [CYCLES] [WORKERS] [PERIOD_US]}
cycles=${2:-300} workers=${3:-4} period=${4:-100}
roofprof=$build/bin/roofprof
app=$build/tests/fixtures/run_heartbeat
[ -x "$roofprof" ] && [ -x "$app" ] || { echo "build roofprof and the fixtures first" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/roofprof-stress-XXXXXX")
load=()
cleanup() { kill "${load[@]}" "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
for _ in $(seq "$(nproc)"); do (while :; do :; done) & load+=($!); done
# A background job of a non-interactive shell ignores SIGINT, and roofprof keeps a signal that
# was ignored at its start ignored (nohup's convention): both start with SIGINT at its default.
start_app() { env --default-signal=INT "$app" "$dir/beat" "$workers" "$period" & pid=$!; sleep 0.3; }
beat() { cut -d' ' -f1 "$dir/beat" 2>/dev/null || echo 0; }
start_app
harmed=0 failed=0
t0=$(date +%s)
for i in $(seq "$cycles"); do
  env --default-signal=INT "$roofprof" run -q --backend time --pid "$pid" -r tick -o "$dir/r.json" 2>"$dir/err" &
  prof=$!
  sleep "0.$(printf '%03d' $((50 + RANDOM % 350)))"
  kill -INT "$prof"
  wait "$prof"; rc=$?
  [ "$rc" -eq 0 ] || { failed=$((failed + 1)); echo "cycle $i: roofprof exit $rc: $(head -c 300 "$dir/err")"; }
  b0=$(beat); sleep 0.15
  why=""
  if ! kill -0 "$pid" 2>/dev/null; then why="died"
  elif grep -q '^TracerPid:[[:space:]]*[1-9]' /proc/"$pid"/task/*/status; then why="still traced"
  elif grep -q '^State:[[:space:]]*[tT]' /proc/"$pid"/task/*/status; then why="stopped"
  elif [ "$(beat)" -le "$b0" ]; then sleep 0.5; [ "$(beat)" -gt "$b0" ] || why="no heartbeat"
  fi
  if [ -n "$why" ]; then
    harmed=$((harmed + 1))
    wait "$pid" 2>/dev/null; st=$?
    echo "cycle $i: program harmed ($why, status $st)"
    kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    start_app
  fi
done
echo "attach/detach cycles: $cycles, workers: $workers every ${period} us, load: $(nproc) busy loops," \
     "harmed: $harmed, roofprof failures: $failed, wall: $(( $(date +%s) - t0 )) s"
[ "$harmed" -eq 0 ] && [ "$failed" -eq 0 ]
