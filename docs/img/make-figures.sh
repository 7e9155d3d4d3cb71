#!/usr/bin/env bash
# Regenerates the figures of docs/report.md with `roofprof report` (the roofprof of the build
# directory $1, default build). Inputs:
#  - tests/fixtures/report/*.json: SYNTHETIC results and ceilings (make_fixtures.py says how
#    they are made up); used for the figure types of the seed paper.
#  - docs/img/data/vm-*.json: REAL measurements on the development VM (AMD EPYC, 2 vCPUs):
#    `roofprof ceilings --quick --only compute bandwidth -o vm-ceilings.json` and
#    `OPENBLAS_NUM_THREADS=1 roofprof run --backend emul --region dgemm_ -o vm-dgemm-sizes.json
#     -- report_dgemm_sizes 5 20` (tests/fixtures/report/dgemm_sizes.c).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
R="$BUILD/bin/roofprof report"
F=tests/fixtures/report
C="--ceilings $F/ceilings.json"
O=docs/img
$R $F/kernels.json $C --svg $O/kernels.svg --no-plot >/dev/null
$R $F/kernels.json $C --rw read --svg $O/kernels-read.svg --no-plot >/dev/null
$R $F/kernels.json $C --rw write --svg $O/kernels-write.svg --no-plot >/dev/null
$R $F/kernels.json $C --hierarchical --svg $O/kernels-hierarchical.svg --no-plot >/dev/null
$R $F/kernels.json $F/kernels-run2.json $F/kernels-run3.json $C --svg $O/kernels-merged.svg \
  --no-plot >/dev/null
$R $F/dgemm-openblas.json $C --svg $O/dgemm-series.svg --no-plot >/dev/null
$R --compare $F/dgemm-openblas.json $F/dgemm-naive.json $C --svg $O/dgemm-compare.svg \
  --no-plot >/dev/null
$R $O/data/vm-dgemm-sizes.json --ceilings $O/data/vm-ceilings.json --threads 1 --level L2 \
  --svg $O/vm-dgemm-sizes.svg --no-plot >/dev/null
echo "figures written to $O"
