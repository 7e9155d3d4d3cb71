#!/usr/bin/env bash
# `cmake --install BUILD --prefix P` gives a tree that works after it is moved: a region
# of the demo with every backend (time: software counters through perf_event_open; emul: the
# Valgrind tool under the engine the tree carries; perf: hardware counters, here a scripted PMU
# since this VM has none), with the build tree and the private engine hidden, and as nobody.
# Usage: relocate.sh BUILD (absolute)
BUILD=$1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
scratch
cp "$BUILD/examples/demo" "$SCRATCH/demo"
cmake --install "$BUILD" --prefix "$SCRATCH/first" >/dev/null
mv "$SCRATCH/first" "$SCRATCH/moved"
P=$SCRATCH/moved
for f in bin/roofprof lib/roofprof/roofprof-amd64-linux lib/roofprof/libroofprof-preload.so \
         lib/roofprof/vgpreload_core-amd64-linux.so lib/roofprof/roofprof-selftest-kernels \
         share/man/man1/roofprof.1 share/man/man1/roofprof-run.1 share/bash-completion/completions/roofprof \
         share/zsh/site-functions/_roofprof share/roofprof/events/skx.txt share/doc/roofprof/README.md; do
  [ -e "$P/$f" ] || fail "$f not installed"
done
if grep -rlF "$BUILD/" "$P/share"; then fail "the install's share/ names the build tree"; fi

hidden_build "$P/bin/roofprof" doctor >"$SCRATCH/doctor" 2>&1 || true
if [ -d /opt/roofprof/valgrind ] && ! grep -qF "($P/lib/roofprof/valgrind.bin)" "$SCRATCH/doctor"; then
  cat "$SCRATCH/doctor" >&2
  fail "doctor does not find the engine in the moved tree"
fi

hidden_build "$HERE/run_region.sh" "$P" time "$SCRATCH/time.json" "$SCRATCH/demo" 200 20
hidden_build "$HERE/run_region.sh" "$P" emul "$SCRATCH/emul.json" "$SCRATCH/demo" 200 20
grep -q '"flops"' "$SCRATCH/emul.json" || fail "emul: no flops in the result"
printf 'cpu GenuineIntel 6 0x55\ncount raw 0x1c7 0 1000\n' >"$SCRATCH/pmu.script"
ROOFPROF_SCRIPTED_PMU=$SCRATCH/pmu.script LIBPFM_FORCE_PMU=skx \
  hidden_build "$HERE/run_region.sh" "$P" perf "$SCRATCH/perf.json" "$SCRATCH/demo" 200 20

# An unprivileged user runs the moved tree (it writes into a directory of its own).
mkdir "$SCRATCH/nobody" && chmod 777 "$SCRATCH/nobody"
for backend in time emul; do
  hidden_build $(nobody_prefix) "$HERE/run_region.sh" "$P" $backend "$SCRATCH/nobody/$backend.json" \
    "$SCRATCH/demo" 200 20
done
echo "the moved install ran time, emul and perf from $P (and time, emul as $(id -un nobody 2>/dev/null || echo root))"
