#!/usr/bin/env bash
# roofprof report over the rank files of a 1024-rank job (see run.py); $1 is the build directory.
set -euo pipefail
exec "$(dirname "$0")/run.py" "${1:-build}"
