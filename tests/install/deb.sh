#!/usr/bin/env bash
# Issue 20: `cpack -G DEB` gives a package whose Depends are the Debian packages of the libraries
# roofprof links against (dpkg-shlibdeps); unpacked with dpkg -x into a scratch root, its
# roofprof runs a region with the time and emul backends with the build tree and the private
# Valgrind engine hidden.
# Usage: deb.sh BUILD (absolute)
BUILD=$1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
scratch
cp "$BUILD/examples/demo" "$SCRATCH/demo"
(cd "$BUILD" && cpack -G DEB -B "$SCRATCH/pkg" >"$SCRATCH/cpack.log" 2>&1) ||
  { cat "$SCRATCH/cpack.log" >&2; fail cpack; }
deb=$(ls "$SCRATCH"/pkg/roofprof_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for p in libc6 libdw1 libelf1 libcapstone4 libunwind8 libstdc++6 libgomp1 libpfm4; do
  case ", $depends" in *", $p "*|*", $p,"*|*", $p") ;; *) fail "Depends lacks $p" ;; esac
done
dpkg-deb -c "$deb" | grep -q '\./usr/lib/roofprof/valgrind.bin$' || [ ! -d /opt/roofprof/valgrind ] ||
  fail "the package does not carry the Valgrind engine"
dpkg -x "$deb" "$SCRATCH/root"
P=$SCRATCH/root/usr
hidden_build "$HERE/run_region.sh" "$P" time "$SCRATCH/time.json" "$SCRATCH/demo" 200 20
hidden_build "$HERE/run_region.sh" "$P" emul "$SCRATCH/emul.json" "$SCRATCH/demo" 200 20
man -l "$P/share/man/man1/roofprof-run.1" 2>/dev/null | grep -q -- '--backend' || fail "roofprof-run(1) unreadable"
echo "$(basename "$deb") unpacked and ran time and emul"
