#!/usr/bin/env bash
# run-fuzz.sh FUZZER SEED_DIR [libFuzzer options...]: fuzzes from the seed corpus without
# changing it (new inputs go to a temporary corpus, removed at the end). A crash leaves its
# input (crash-*) in the current directory and fails.
set -euo pipefail
fuzzer=$1 seeds=$2
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/roofprof-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT
exec_status=0
"$fuzzer" -rss_limit_mb=2048 -timeout=10 -max_len=65536 "$@" "$work" "$seeds" || exec_status=$?
exit $exec_status
