#!/usr/bin/env python3
"""What a region boundary costs against the number of threads calling the region at once.

Usage: bench/overhead/threads.py BUILD_DIR [--calls 200000] [--reps 3] [--threads 0,1,2,8,16]
                                 [--reference OTHER_BUILD_DIR]
bench_thread_calls makes the same number of calls of tiny() in all, split over T threads, at once.
For each T it runs, interleaved, bare, under `roofprof run --backend time --region tiny` (the
in-process agent with the default software counters, scope process), the same with `-e none`
(clock only), and with --reference the first of these with another build's roofprof (an earlier
version, measured in the same run); it takes the medians. The cost of a call is the CPU time the
whole process spent in the calling phase (all threads: the program measures it) less the bare
run's, over the calls: CPU time, not wall time, so that a machine with fewer cores than threads
measures the same thing. T = 0 is a serial program (main makes the calls, no other thread);
"vs 1" is the cost with counters at T threads over that at the first T of the list."""
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
    ap.add_argument("--threads", default="0,1,2,8,16")
    ap.add_argument("--reference", help="another build directory whose roofprof is measured alongside")
    a = ap.parse_args()
    prog = os.path.abspath(os.path.join(a.build, "bench", "bench_thread_calls"))
    roofs = {"counters": os.path.abspath(os.path.join(a.build, "bin", "roofprof"))}
    roofs["clock"] = roofs["counters"]
    if a.reference:
        roofs["reference"] = os.path.abspath(os.path.join(a.reference, "bin", "roofprof"))
    work = tempfile.mkdtemp()
    head = f"{'threads':>7} {'calls':>8} {'bare':>7} {'counters':>9} {'vs 1':>5} {'clock only':>10}"
    if a.reference:
        head += f" {'reference':>9} {'vs 1':>5} {'reference/this':>14}"
    print("us per call (CPU time, all threads)\n" + head)
    first = {}
    for t in [int(x) for x in a.threads.split(",")]:
        runs = {k: [] for k in ["bare", *roofs]}
        for _ in range(a.reps):
            base = [prog, str(t), str(a.calls)]
            calls, cpu = phase(base, work)
            runs["bare"].append(cpu)
            for kind, roof in roofs.items():
                extra = ["-e", "none"] if kind == "clock" else []
                cmd = [roof, "run", "-q", "-o", "r.json", "--backend", "time", "--region", "tiny", *extra, "--", *base]
                runs[kind].append(phase(cmd, work)[1])
        bare = statistics.median(runs["bare"])
        cost = {k: (statistics.median(v) - bare) / calls * 1e6 for k, v in runs.items() if k != "bare"}
        for k, v in cost.items():
            first.setdefault(k, v)
        line = (f"{t:>7} {calls:>8} {bare / calls * 1e6:>7.3f} {cost['counters']:>9.3f}"
                f" {cost['counters'] / first['counters']:>5.2f} {cost['clock']:>10.3f}")
        if a.reference:
            line += (f" {cost['reference']:>9.3f} {cost['reference'] / first['reference']:>5.2f}"
                     f" {cost['reference'] / cost['counters']:>14.2f}")
        print(line)


if __name__ == "__main__":
    main()
