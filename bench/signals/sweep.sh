#!/bin/bash
# The fault probe's signal sweep (a signal in every phase is neither lost nor fatal): `roofprof run` signalled at every phase of
# its start-up and run, in every backend. Usage: bench/signals/sweep.sh BUILD [STEP_MS] [LAST_MS]
# For each backend (time, native, emul), signal (INT, TERM) and delay (0, STEP_MS, ... LAST_MS
# after launching roofprof), one run in a fresh directory with a private TMPDIR. A run is
#   lost    when roofprof had not ended 20 s after the signal, or ended with another status
#           than 128 + signal (the signal ignored, or the program SIGKILLed after the grace);
#   harmed  when it left a result that does not read back, marked a result complete, gave it a
#           W from a partial emulated run (native counting's W of the calls measured stays), or left files in TMPDIR or a temporary file next to the result.
# The shell's status of a process the signal killed is 128 + signal too: a run that ended with
# nothing on stderr and no result is counted apart ("before main": the signal's default action
# before roofprof's first code, the dynamic loader's millisecond).
set -u
BUILD=$(cd "${1:?usage: sweep.sh BUILD [STEP_MS] [LAST_MS]}" && pwd)
STEP=${2:-10}
LAST=${3:-300}
BIN=$BUILD/bin/roofprof
FIX=$BUILD/tests/fixtures
WORK=$(mktemp -d "${TMPDIR:-/tmp}/roofprof-sweep-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
runs=0 lost=0 harmed=0 premain=0 noresult=0
check_result() {  # FILE BACKEND: "ok" when it reads back incomplete, without W from a partial emulated run
  python3 - "$1" "$2" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("unreadable"); sys.exit()
if d.get("complete") is not False: print("complete"); sys.exit()
if sys.argv[2] == "emul" and any(r.get("flops") is not None for r in d.get("regions", [])):
    print("flops"); sys.exit()
print("ok")
PY
}
for backend in time native emul; do
  if [ $backend = emul ]; then region=work program=("$FIX/run_split_app" 200000)
  else region=tick program=("$FIX/run_heartbeat" beat); fi  # beat: in the run's own directory
  for sig in INT TERM; do
    num=$(kill -l $sig)
    for ((ms = 0; ms <= LAST; ms += STEP)); do
      dir=$WORK/$backend.$sig.$ms
      mkdir -p "$dir/tmp"
      (cd "$dir" && exec setsid env --default-signal=INT TMPDIR="$dir/tmp" "$BIN" run --backend $backend -r $region \
        -o r.json -- "${program[@]}" >/dev/null 2>"$dir/stderr") &
      pid=$!
      sleep "$(printf '0.%03d' "$ms")"
      kill -$sig $pid 2>/dev/null
      for ((w = 0; w < 200; ++w)); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
      runs=$((runs + 1))
      if kill -0 $pid 2>/dev/null; then
        lost=$((lost + 1)); echo "lost: $backend SIG$sig at $ms ms: still running"; kill -KILL $pid; wait $pid
        continue
      fi
      wait $pid; status=$?
      kill -KILL -- -$pid 2>/dev/null  # the program, if roofprof left it (its own process group)
      what=""
      if [ -s "$dir/r.json" ]; then
        verdict=$(check_result "$dir/r.json" $backend); [ "$verdict" = ok ] || what="result $verdict"
      else
        noresult=$((noresult + 1))
      fi
      [ -z "$(ls -A "$dir/tmp")" ] || what="$what left in TMPDIR: $(ls "$dir/tmp" | head -3 | tr '\n' ' ')"
      [ -z "$(ls -A "$dir" | grep -v -e '^tmp$' -e '^stderr$' -e '^r.json$' -e '^beat$')" ] || what="$what temporary files"
      if [ $status -ne $((128 + num)) ]; then
        lost=$((lost + 1)); echo "lost: $backend SIG$sig at $ms ms: status $status: $(tail -1 "$dir/stderr")"
      elif [ ! -s "$dir/stderr" ] && [ ! -e "$dir/r.json" ]; then
        premain=$((premain + 1))  # the signal's default action before roofprof's own code ran
      fi
      if [ -n "$what" ]; then harmed=$((harmed + 1)); echo "harmed: $backend SIG$sig at $ms ms:$what"; fi
    done
  done
done
echo "runs $runs lost $lost harmed $harmed (no result written: $noresult; ended by the signal before main: $premain)"
