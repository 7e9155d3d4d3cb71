#!/usr/bin/env python3
"""Cost of roofprof's ptrace breakpoints per region boundary, against a bare run.

Usage: bench/overhead/run.py BUILD_DIR [--reps 5]
Runs bench_calls bare and under `roofprof run --region kernel_*` for 10^4 and 10^5 calls,
takes the median of the repeats, and prints per-call and per-boundary cost and the ratio of
the traced to the bare run (both measured in this run, interleaved). Probing is never stopped
(--max-probe-slowdown 0); the last columns compare roofprof's own estimate of its probes' cost
(the result's probe_cost, last repeat) with the overhead measured here (traced - bare)."""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

def timed(cmd, env=None):
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - t0

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    prog = os.path.join(a.build, "bench", "bench_calls")
    roof = os.path.join(a.build, "bin", "roofprof")
    out = tempfile.mkdtemp()
    print(f"{'calls':>8} {'entry':>5} {'bare s':>8} {'traced s':>9} {'ratio':>7} {'us/call':>8} {'us/boundary':>11}"
          f" {'est s':>7} {'est/true':>8}")
    for n in (10_000, 100_000):
        for variant in ("push", "step"):
            fn = "kernel_" + variant
            bare, traced = [], []
            for _ in range(a.reps):  # interleaved, so load changes hit both alike
                bare.append(timed([prog, str(n), "100", variant]))
                traced.append(timed([roof, "run", "-q", "--max-probe-slowdown", "0", "-o", os.path.join(out, "r.json"),
                                     "--region", fn, "--",
                                     prog, str(n), "100", variant]))
            res = json.load(open(os.path.join(out, "r.json")))
            calls = res["regions"][0]["calls"]
            assert calls == n, f"expected {n} calls, measured {calls}"
            b, t = statistics.median(bare), statistics.median(traced)
            per_call = (t - b) / n * 1e6
            est = res["regions"][0].get("probe_cost", {}).get("estimated_s")
            est_cols = f" {est:>7.3f} {est / (t - b):>8.2f}" if est is not None else f" {'-':>7} {'-':>8}"
            print(f"{n:>8} {variant:>5} {b:>8.3f} {t:>9.3f} {t / b:>7.1f} {per_call:>8.1f} {per_call / 2:>11.1f}"
                  + est_cols)

if __name__ == "__main__":
    sys.exit(main())
