#!/usr/bin/env bash
# `make demo` builds roofprof, its companions and the example (the target
# roofprof_runtime and demo), none of the test suite or the benchmarks, which are most of a full
# build (`make test` still builds everything: the default target). A dry run (make -n -B) of
# each in the build tree, Makefile generators only; docs/benchmarks.md has the times.
# Usage: demo_targets.sh BUILD
BUILD=$1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
[ -f "$BUILD/Makefile" ] || { echo "not a Makefile build tree: skipped"; exit 77; }
objects() { make -C "$BUILD" --no-print-directory -n -B "$@" 2>/dev/null |
            grep -oE 'Building [A-Z]+ object [^ "]+' | awk '{print $4}' | sort -u; }
demo=$(objects roofprof_runtime demo)
all=$(objects all)
[ -n "$demo" ] || fail "make demo's targets build nothing"
grep -q '^cli/CMakeFiles/roofprof.dir/main.cpp.o$' <<<"$demo" || fail "make demo does not build roofprof"
grep -q '^emul/CMakeFiles/roofprof-amd64-linux.dir/' <<<"$demo" || fail "make demo does not build the Valgrind tool"
grep -q '^preload/CMakeFiles/roofprof-preload.dir/' <<<"$demo" || fail "make demo does not build the agent"
if grep -E '^(tests|bench)/' <<<"$demo"; then fail "make demo builds objects of the tests or benchmarks"; fi
grep -qE '^tests/' <<<"$all" || fail "the full build has no test objects"
echo "make demo builds $(wc -l <<<"$demo") of the full build's $(wc -l <<<"$all") objects"
