#!/usr/bin/env python3
"""Benchmark of `roofprof report` over 10^6 region calls (docs/benchmarks.md, "Reports").

For each shape (regions x groups holding 10^6 calls in all) it writes a synthetic result
(make_result.py), then times, 5 times each, interleaved:
  * reference: python3's json.load of the same file (a bare parse of the input);
  * roofprof report FILE --ceilings C --no-plot      (table only, to /dev/null);
  * roofprof report FILE --ceilings C --svg --html --csv --json (every output).
It prints the medians, their ratio to the reference and the peak RSS of roofprof (the
largest of the repeats).

    bench/report/run.py BUILD_DIR
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CALLS = 10 ** 6
SHAPES = [(10, 10), (100, 100), (1000, 100)]  # regions, groups per region
REPS = 5


def timed(argv):
    """Wall seconds and peak RSS (MiB) of one child."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(argv)}\n{err}")
    return dt, usage.ru_maxrss / 1024


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    roofprof = os.path.join(build, "bin", "roofprof")
    ceilings = os.path.join(ROOT, "tests/fixtures/report/ceilings.json")
    print(f"{'shape':>22} {'file':>8} {'json.load':>10} {'table':>8} {'ratio':>6} {'RSS':>8} "
          f"{'all outputs':>12} {'ratio':>6} {'RSS':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for regions, groups in SHAPES:
            result = os.path.join(tmp, f"r{regions}x{groups}.json")
            subprocess.check_call([sys.executable, os.path.join(HERE, "make_result.py"), result,
                                   str(CALLS), str(regions), str(groups)])
            size = os.path.getsize(result) / 2 ** 20
            ref_cmd = [sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", result]
            table_cmd = [roofprof, "report", result, "--ceilings", ceilings, "--no-plot"]
            all_cmd = [roofprof, "report", result, "--ceilings", ceilings,
                       "--svg", os.path.join(tmp, "o.svg"), "--html", os.path.join(tmp, "o.html"),
                       "--csv", os.path.join(tmp, "o.csv"), "--json", os.path.join(tmp, "o.json")]
            ref, table, every, rss_table, rss_all = [], [], [], [], []
            for _ in range(REPS):
                ref.append(timed(ref_cmd)[0])
                t, r1 = timed(table_cmd)
                table.append(t)
                rss_table.append(r1)
                t, r2 = timed(all_cmd)
                every.append(t)
                rss_all.append(r2)
            r, t, a = (statistics.median(x) for x in (ref, table, every))
            shape = f"{CALLS:.0e} calls, {regions}x{groups}"
            print(f"{shape:>22} {size:6.1f}MB {r:9.3f}s {t:7.3f}s {t / r:5.2f}x "
                  f"{max(rss_table):6.0f}MB {a:11.3f}s {a / r:5.2f}x {max(rss_all):6.0f}MB")


if __name__ == "__main__":
    main()
