#!/usr/bin/env bash
# `cpack -G DEB` gives a package whose Depends name the Debian package of every library
# its binaries link against (dpkg-shlibdeps); unpacked with dpkg -x into a scratch root, its
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
dpkg-deb -c "$deb" >"$SCRATCH/contents"
grep -q '\./usr/lib/roofprof/valgrind.bin$' "$SCRATCH/contents" || [ ! -d /opt/roofprof/valgrind ] ||
  fail "the package does not carry the Valgrind engine"
dpkg -x "$deb" "$SCRATCH/root"
P=$SCRATCH/root/usr
# Every library an executable or library of the package needs (DT_NEEDED) comes from a Debian
# package that Depends names.
needed=$(for f in "$P/bin/roofprof" "$P"/lib/roofprof/*; do readelf -d "$f" 2>/dev/null || true; done |
         sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u)
[ -n "$needed" ] || fail "no DT_NEEDED found in the package"
for lib in $needed; do
  pkg=$(dpkg -S "*/x86_64-linux-gnu/$lib" 2>/dev/null | cut -d: -f1 | grep -v -- -dev | sed -n 1p)
  [ -n "$pkg" ] || fail "$lib: no Debian package has it"
  case ", $depends," in *", $pkg "*|*", $pkg,"*) ;; *) fail "Depends lacks $pkg (for $lib)" ;; esac
done
hidden_build "$HERE/run_region.sh" "$P" time "$SCRATCH/time.json" "$SCRATCH/demo" 200 20
hidden_build "$HERE/run_region.sh" "$P" emul "$SCRATCH/emul.json" "$SCRATCH/demo" 200 20
man -l "$P/share/man/man1/roofprof-run.1" 2>/dev/null | grep -q -- '--backend' || fail "roofprof-run(1) unreadable"
echo "$(basename "$deb") unpacked and ran time and emul"
