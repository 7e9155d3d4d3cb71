#!/usr/bin/env python3
"""A frequent small region probed inside a larger one (docs/methodology.md): compensation and clock-only
boundaries against the enclosing region's time alone.

Usage: bench/overhead/nested.py BUILD_DIR [--steps 10] [--pairs 100000] [--reps 3] [--work 24]

bench_pair_compute times its compute() itself (compute_s), which calls pair_force() STEPS x PAIRS
times. For each configuration, run --reps times interleaved, the medians of: compute's time_s in
the result, its measured (uncompensated) time, and the program's own compute_s. Configurations:
bare (the program alone), `-r compute` (alone), `-r compute -r pair_force` (the default: counters
only where cheap, compensation), and the same with `-e task-clock` (counters on every call)."""
import argparse, json, os, re, statistics, subprocess, tempfile


def run(cmd, cwd):
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=cwd).stdout
    return float(re.search(r"compute_s=([\d.]+)", out).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--work", type=int, default=24, help="pair_force's iterations (24: about 30 ns a call)")
    a = ap.parse_args()
    prog = [os.path.abspath(os.path.join(a.build, "bench", "bench_pair_compute")), str(a.steps), str(a.pairs), str(a.work)]
    roof = os.path.abspath(os.path.join(a.build, "bin", "roofprof"))
    configs = {
        "compute alone": ["-r", "compute"],
        "compute + pair_force": ["-r", "compute", "-r", "pair_force"],
        "compute + pair_force, -e task-clock": ["-e", "task-clock", "-r", "compute", "-r", "pair_force"],
    }
    work = tempfile.mkdtemp()
    own = {"bare": []}
    region = {k: [] for k in configs}
    measured = {k: [] for k in configs}
    for k in configs:
        own[k] = []
    for _ in range(a.reps):
        own["bare"].append(run(prog, work))
        for name, opts in configs.items():
            own[name].append(run([roof, "run", "-q", "--backend", "time", *opts, "-o", "r.json", "--", *prog], work))
            doc = json.load(open(os.path.join(work, "r.json")))
            r = next(x for x in doc["regions"] if x["name"] == "compute")
            region[name].append(r["time_s"])
            measured[name].append(r.get("compensation", {}).get("time_measured_s", r["time_s"]))
    bare = statistics.median(own["bare"])
    print(f"{'configuration':<38} {'compute T':>10} {'vs bare':>8} {'measured':>10} {'vs bare':>8} {'own timer':>10}")
    print(f"{'bare':<38} {'':>10} {'':>8} {'':>10} {'':>8} {bare:>10.4f}")
    for name in configs:
        t, m, o = statistics.median(region[name]), statistics.median(measured[name]), statistics.median(own[name])
        print(f"{name:<38} {t:>10.4f} {t / bare:>8.2f} {m:>10.4f} {m / bare:>8.2f} {o:>10.4f}")


if __name__ == "__main__":
    main()
