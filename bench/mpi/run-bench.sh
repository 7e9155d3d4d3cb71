#!/usr/bin/env bash
# roofprof report over the rank files of a 1024-rank job (see run.py), and roofprof's reader
# of the in-process records under a 2-rank job (see reader.py; needs the fixtures built);
# $1 is the build directory.
set -euo pipefail
"$(dirname "$0")/run.py" "${1:-build}"
"$(dirname "$0")/reader.py" "${1:-build}"
