#!/usr/bin/env python3
"""True time per call: what roofprof adds to a call, and whether the time it reports
per call is the function's own, in the mode a user gets by default.

Usage: bench/overhead/true_time.py BUILD_DIR [--reps 5] [--calls 100000]

bench_true_time WHAT N makes N calls and times its own loop (CLOCK_MONOTONIC via the vDSO):
  tiny       a static function of the executable (lea; ret)
  static1us  a static function of the executable that spins about 1 us
  lib        an exported library function with no work, called through the PLT
  fftw       fftw_execute of a 1024-point complex 1D plan
Each WHAT runs bare and under roofprof, interleaved, --reps times (medians printed):
  default   roofprof run with no option: on a machine without a PMU, auto chooses emulation; its
            native run (the one timed here; the emulated run follows and prints again) patches
            the entries and reads the clock only
  sw        roofprof run --backend time: the same mechanism, counting the time backend's
            software events (task-clock, page-faults, context-switches)
  clock     the same, counting no event (--events none): the clock only
  ptrace    roofprof run --backend time --no-preload: breakpoints, for reference (fewer calls)
Columns: the program's own time per call, bare and under roofprof; overhead per call (the
difference); roofprof's time per call (region time_s / calls) and its ratio to the bare
program's own figure (1.00 = the true time)."""
import argparse, json, os, re, statistics, subprocess, sys, tempfile


def per_call_us(cmd):
    """The program's own time per call, and how many calls of the function it made in all."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True, text=True)
    m = re.search(r"calls=([0-9]+) per_call_us=([0-9.]+)", p.stdout)
    if not m:
        sys.exit(f"no per_call_us in the output of {cmd}: {p.stdout!r}")
    return float(m.group(2)), int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--calls", type=int, default=100_000)
    a = ap.parse_args()
    prog = os.path.join(a.build, "bench", "bench_true_time")
    roof = os.path.join(a.build, "bin", "roofprof")
    out = os.path.join(tempfile.mkdtemp(), "r.json")
    regions = {"tiny": "tiny", "static1us": "static1us", "lib": "bench_kernel", "fftw": "fftw_execute"}
    configs = {
        "default": [],
        "sw": ["--backend", "time"],
        "clock": ["--backend", "time", "--events", "none"],
        "ptrace": ["--backend", "time", "--no-preload"],
    }
    print(f"{'what':>9} {'config':>6} {'calls':>7} {'mechanism':>10} {'bare us':>8} {'traced us':>9}"
          f" {'overhead us':>11} {'roofprof us':>11} {'ratio':>6}")
    for what, region in regions.items():
        for config, opts in configs.items():
            n = a.calls if config != "ptrace" else max(a.calls // 20, 100)
            if what == "fftw":
                n = max(n // 10, 100)
            bare, traced, reported = [], [], []
            mech = "?"
            for _ in range(a.reps):  # interleaved: load changes hit every configuration alike
                bare.append(per_call_us([prog, what, str(n)])[0])
                us, made = per_call_us([roof, "run", "-q", "--max-probe-slowdown", "0", *opts, "-o", out,
                                        "--region", region, "--", prog, what, str(n)])
                traced.append(us)
                r = json.load(open(out))["regions"][0]
                if r["calls"] != made:
                    sys.exit(f"{what} {config}: the program made {made} calls, roofprof measured {r['calls']}")
                reported.append(r["time_s"] / r["calls"] * 1e6)
                mech = r["sources"]["calls"]
            b, t, rep = statistics.median(bare), statistics.median(traced), statistics.median(reported)
            print(f"{what:>9} {config:>6} {n:>7} {mech:>10} {b:>8.3f} {t:>9.3f} {t - b:>11.3f} {rep:>11.3f}"
                  f" {rep / b:>6.2f}")


if __name__ == "__main__":
    sys.exit(main())
