#!/usr/bin/env python3
"""What probing an inlined function costs: wall time of `roofprof run` against the bare program.

Usage: bench/overhead/inlined.py BUILD_DIR [--n 5000] [--reps 100000] [--tries 3]
The fixture real_inlined (tests/fixtures/real/inlined.c, gcc -O2) calls scale_add, which gcc
inlines into main's loop, --reps times on --n doubles (2n flops a call). The bench runs, in
turn, the bare program and `roofprof run --backend time --region scale_add --max-probe-slowdown 0`
(default mode and counters; the cost guard off, so that every call is probed) --tries times
each, and prints the best wall time of each, their ratio, the calls roofprof counted and the
ptrace stops its probes made (None: no breakpoint worth saying; the
copy's boundaries are span patches in the program, docs/preload.md, "Span patches"). Add
--no-preload to measure breakpoints instead."""
import argparse, json, os, subprocess, tempfile, time


def wall(cmd, cwd):
    t0 = time.monotonic()
    subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=cwd)
    return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--reps", type=int, default=100000)
    ap.add_argument("--tries", type=int, default=3)
    ap.add_argument("--no-preload", action="store_true", help="breakpoints instead of span patches")
    a = ap.parse_args()
    prog = [os.path.abspath(os.path.join(a.build, "tests", "fixtures", "real_inlined")), str(a.n), str(a.reps)]
    roof = os.path.abspath(os.path.join(a.build, "bin", "roofprof"))
    probed = [roof, "run", "-q", "-o", "r.json", "--backend", "time", "--region", "scale_add",
              "--max-probe-slowdown", "0", *(["--no-preload"] if a.no_preload else []), "--", *prog]
    work = tempfile.mkdtemp()
    bare, run = [], []
    for _ in range(a.tries):
        bare.append(wall(prog, work))
        run.append(wall(probed, work))
    region = next(r for r in json.load(open(os.path.join(work, "r.json")))["regions"] if r["name"] == "scale_add")
    stops = (region.get("probe_cost") or {}).get("ptrace_stops")
    print(f"executions {a.reps}, n {a.n}: bare {min(bare):.3f} s, roofprof {min(run):.3f} s, "
          f"ratio {min(run) / min(bare):.2f}x; calls counted {region['calls']}, ptrace stops {stops}")


if __name__ == "__main__":
    main()
