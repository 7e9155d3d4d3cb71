#!/usr/bin/env bash
# roofprof ceilings vs likwid-bench on this machine (see docs/benchmarks.md, "Ceilings").
#   bench/ceilings/run-bench.sh [BUILD_DIR] [REPEATS] [vs_likwid.py options, e.g. --levels DRAM --no-compute]
#   (also run by bench/run-all.sh)
# Installs likwid (Debian package) if likwid-bench is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
repeats=${2:-3}
exe="$build/bin/roofprof"
[ -x "$exe" ] || { echo "vs_likwid: $exe not found (build first)" >&2; exit 2; }
if ! command -v likwid-bench >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "vs_likwid: installing likwid" >&2
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends likwid >/dev/null
fi
# A session (and so a scheduler autogroup) of its own: see raise_priority() in vs_likwid.py.
exec setsid -w python3 "$here/vs_likwid.py" --roofprof "$exe" --repeats "$repeats" "${@:3}"
