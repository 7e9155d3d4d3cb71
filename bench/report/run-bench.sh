#!/usr/bin/env bash
# roofprof report over 10^6 region calls (see run.py); $1 is the build directory.
set -euo pipefail
exec "$(dirname "$0")/run.py" "${1:-build}"
