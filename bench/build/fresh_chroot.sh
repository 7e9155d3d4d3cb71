#!/usr/bin/env bash
# Issue 38: `make demo`, then `make test`, on a fresh clone in a clean Debian 12 chroot
# (debootstrap, minbase, with git and make; apt's package cache and lists empty; no ccache), as
# a new user's first commands. `make test` runs in a second fresh clone (the packages make demo
# installed stay: its apt part is the test suite's extras), so that it builds everything. Each
# line of their output is stamped with the seconds since the command started; the phases are
# read from the stamps, and the CPU time of all of make's processes (user, sys: apt, compilers,
# tests) comes from bash's `time`:
#   make demo: packages (apt and the Valgrind engine) and configuration, compilation, the first
#              line of the demo's run (its first output), the roofline, the end;
#   make test: packages and configuration, compilation, the test suite (ctest), the end.
# Usage (root; debootstrap is installed with apt when missing):
#   bench/build/fresh_chroot.sh [--demo-only] [REPO]   (REPO: what to clone, default this one;
#   JOBS=N (default 2); MIRROR (default http://deb.debian.org/debian); WORK=DIR (default a new
#   directory under /var/tmp, kept with the logs: DIR/demo.log, DIR/test.log); BASE=DIR: copy
#   this untouched debootstrap result instead of running debootstrap (same command as below)
set -euo pipefail
demo_only=0
[ "${1:-}" = --demo-only ] && { demo_only=1; shift; }
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
jobs=${JOBS:-2}
mirror=${MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" -eq 0 ] || { echo "fresh_chroot.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || { echo "fresh_chroot.sh: $src is not a git repository" >&2; exit 2; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
work=${WORK:-$(mktemp -d /var/tmp/roofprof-fresh.XXXXXX)}
mkdir -p "$work"
root=$work/root
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# The system, outside the measured time.
start=$(now)
if [ -n "${BASE:-}" ]; then
  cp -a "$BASE" "$root"
else
  debootstrap --variant=minbase --include=git,make,ca-certificates bookworm "$root" "$mirror" \
    >"$work/debootstrap.log" 2>&1
fi
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/*
cp /etc/resolv.conf "$root/etc/resolv.conf"
git clone -q --no-local "$src" "$root/root/roofprof"
[ "$demo_only" -eq 1 ] || git clone -q --no-local "$src" "$root/root/roofprof-test"
echo "chroot: debootstrap and clone of $(git -C "$root/root/roofprof" log -1 --format='%h %cs') in $(since "$start") s" \
     "(not in the times below)"

# Runs "make TARGET" in the chroot (its own mount namespace: proc, sys, a new dev), each output line
# prefixed with the seconds since the start, into LOG.
timed_make() { # DIR TARGET LOG
  local dir=$1 target=$2 log=$3 t0 rc
  t0=$(now)
  set +e
  unshare -m --propagation private bash -c '
    root=$1; shift
    mount -t proc proc "$root/proc" && mount -t sysfs sys "$root/sys"
    # A /dev of its own (not the host'"'"'s, which package scripts in the chroot could change).
    d=$root/dev
    mount -t tmpfs -o mode=755 dev "$d"
    mknod -m 666 "$d/null" c 1 3 && mknod -m 666 "$d/zero" c 1 5 && mknod -m 666 "$d/full" c 1 7
    mknod -m 666 "$d/random" c 1 8 && mknod -m 666 "$d/urandom" c 1 9 && mknod -m 666 "$d/tty" c 5 0
    mkdir "$d/pts" "$d/shm" && mount -t devpts -o newinstance,ptmxmode=0666 devpts "$d/pts"
    ln -s pts/ptmx "$d/ptmx" && mount -t tmpfs -o mode=1777 shm "$d/shm"
    ln -s /proc/self/fd "$d/fd" && ln -s fd/0 "$d/stdin" && ln -s fd/1 "$d/stdout" && ln -s fd/2 "$d/stderr"
    exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
      bash -c "cd \"\$0\" && TIMEFORMAT=\"make: CPU user %U s, sys %S s; wall %R s\" && time make \"\$@\"" "$@"' \
    sh "$root" "$dir" "$target" JOBS="$jobs" 2>&1 |
  while IFS= read -r line; do
    printf '%s %s\n' "$(since "$t0")" "$line"
  done >"$log"
  rc=${PIPESTATUS[0]}
  set -e
  echo "$(since "$t0") [exit $rc]" >>"$log"
}
# Seconds of the first line of LOG matching the ERE, or "-".
at() { # LOG ERE
  awk -v re="$2" '$0 ~ re { print $1; found = 1; exit } END { if (!found) print "-" }' "$1"
}
last_build_line() { grep -nE '^[0-9.]+ \[ *[0-9]+%\]' "$1" | tail -1 | cut -d: -f1; }
after_line() { # LOG LINE_NUMBER: seconds of the line after it
  awk -v n="$2" 'NR == n + 1 { print $1; exit }' "$1"
}
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

echo "make demo (-j$jobs), load average at start $(loadavg)"
timed_make /root/roofprof demo "$work/demo.log"
n=$(last_build_line "$work/demo.log")
printf '  packages and configuration %s s; compilation ends %s s; first output %s s; roofline %s s; done %s s; load average at end %s\n' \
  "$(at "$work/demo.log" '\[ *[0-9]+%\]')" "$(awk -v n="$n" 'NR == n { print $1 }' "$work/demo.log")" \
  "$(after_line "$work/demo.log" "$n")" "$(at "$work/demo.log" ' Roofline: ')" \
  "$(tail -1 "$work/demo.log" | cut -d' ' -f1)" "$(loadavg)"
grep -h 'make: CPU' "$work/demo.log" | sed 's/^[0-9.]* /  /'
tail -1 "$work/demo.log" | grep -q 'exit 0' || { echo "make demo failed: $work/demo.log" >&2; exit 1; }
[ "$demo_only" -eq 1 ] && exit 0

echo "make test (-j$jobs), load average at start $(loadavg)"
timed_make /root/roofprof-test test "$work/test.log"
printf '  packages and configuration %s s; test suite starts %s s; done %s s; load average at end %s\n' \
  "$(at "$work/test.log" '\[ *[0-9]+%\]')" "$(at "$work/test.log" ' Test project ')" \
  "$(tail -1 "$work/test.log" | cut -d' ' -f1)" "$(loadavg)"
grep -E '^[0-9.]+ ([0-9]+% tests passed|Total Test time|make: CPU)' "$work/test.log" | sed 's/^/  /'
echo "logs: $work/demo.log $work/test.log"
