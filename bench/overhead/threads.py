#!/usr/bin/env python3
"""What a region boundary costs against the number of threads calling the region at once.

Usage: bench/overhead/threads.py BUILD_DIR [--calls 200000] [--reps 3] [--threads 1,2,8,16]
bench_thread_calls makes the same number of calls of tiny() in all, split over T threads. For
each T it runs bare, under `roofprof run --region tiny` (the in-process agent with the default
software counters, scope process) and the same with `-e none` (clock only), interleaved, and
takes the medians. The cost of a call is the CPU time the whole process spent in the calling
phase (all threads: the program measures it) less the bare run's, over the calls: CPU time, not
wall time, so that a machine with fewer cores than threads measures the same thing. The last
column is the cost with counters at T threads over the cost at 1 thread (issue: at most 2 at 16)."""
import argparse, os, re, statistics, subprocess, tempfile


def phase(cmd, cwd):
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=cwd).stdout
    m = re.search(r"calls=(\d+) cpu_s=([\d.]+) wall_s=([\d.]+)", out)
    return int(m.group(1)), float(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--calls", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", default="1,2,8,16")
    a = ap.parse_args()
    prog = os.path.join(a.build, "bench", "bench_thread_calls")
    roof = os.path.join(a.build, "bin", "roofprof")
    work = tempfile.mkdtemp()
    print(f"{'threads':>7} {'calls':>8} {'bare us/call':>12} {'counters us/call':>16} {'clock only us/call':>18}"
          f" {'counters vs 1 thread':>20}")
    first = None
    for t in [int(x) for x in a.threads.split(",")]:
        runs = {"bare": [], "counters": [], "clock": []}
        for _ in range(a.reps):
            base = [prog, str(t), str(a.calls)]
            calls, cpu = phase(base, work)
            runs["bare"].append(cpu)
            for kind, extra in (("counters", []), ("clock", ["-e", "none"])):
                cmd = [roof, "run", "-q", "-o", "r.json", "--region", "tiny", *extra, "--", *base]
                runs[kind].append(phase(cmd, work)[1])
        bare = statistics.median(runs["bare"])
        cost = {k: (statistics.median(v) - bare) / calls * 1e6 for k, v in runs.items() if k != "bare"}
        if first is None:
            first = cost["counters"]
        print(f"{t:>7} {calls:>8} {bare / calls * 1e6:>12.3f} {cost['counters']:>16.3f} {cost['clock']:>18.3f}"
              f" {cost['counters'] / first:>20.2f}")


if __name__ == "__main__":
    main()
