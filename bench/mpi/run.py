#!/usr/bin/env python3
"""Benchmark of merging the rank files of one MPI job (docs/benchmarks.md, "MPI job merge").

Writes RANKS SYNTHETIC rank files of REGIONS regions each (rank r of a job: a `job` member,
rank-dependent calls, times and flops; no groups), then times, REPS times each, interleaved:
  * reference 1: cat of the files to /dev/null (reading them);
  * reference 2: python3's json.load of every file in one process (a bare parse);
  * roofprof report FILES --no-plot          (the job table and the per-rank spread);
  * roofprof report FILES --json OUT --svg OUT --per-rank (exports and every rank's points).
It prints the medians and their ratio to the bare parse.

    bench/mpi/run.py BUILD_DIR [RANKS] [REGIONS]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPS = 5


def region(r, rank):
    calls = 10 + (rank + r) % 7
    t = 1e-3 * calls * (1 + 0.1 * (rank % 4))
    w = 2e6 * calls
    q = 8e5 * calls
    return {"name": f"kernel_{r}", "kind": "function", "spec": f"kernel_{r}",
            "locations": [{"module": "/bench/app", "offset": 4096 + 64 * r,
                           "symbol": f"kernel_{r}", "role": "entry"}],
            "calls": calls, "time_s": t,
            "time_per_call_s": {"min": t / calls * 0.9, "q1": t / calls * 0.97, "median": t / calls,
                                "q3": t / calls * 1.04, "max": t / calls * 1.5},
            "counters": {"task-clock": t * 1e9}, "counters_multiplexed": False, "threads": 1,
            "closed_by": {"return": calls}, "flops": w, "flops_by_class": {"dp_256": w},
            "bytes": {lv: {"read": q * f * 0.8, "write": q * f * 0.2}
                      for lv, f in (("L1", 8), ("L2", 4), ("L3", 2), ("DRAM", 1))},
            "instructions": None,
            "sources": {"time": "clock", "counters": "perf", "flops": "emul", "bytes": "emul"}}


def rank_file(path, rank, ranks, regions):
    doc = {"schema": 1, "tool": {"name": "roofprof", "version": "bench"},
           "command": ["./app"], "pid": None, "exit_status": 0, "term_signal": None,
           "complete": True, "backend": "emul", "scope": "process", "repeat": 1,
           "wall_time_s": 1.0 + rank * 1e-3,
           "host": {"hostname": f"node{rank // 64}", "kernel": "6.1", "cpu_model": "bench",
                    "cpu_vendor": "bench", "logical_cpus": 64, "pmu": ""},
           "events": ["task-clock"],
           "regions": [region(r, rank) for r in range(regions)], "warnings": [],
           "job": {"launcher": "slurm", "rank": rank, "size": ranks, "id": "4242"}}
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)  # as roofprof run writes it


def timed(argv):
    """Wall seconds and CPU seconds (user + system, every thread) of one child."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(argv[:3])} ...\n{err}")
    return dt, usage.ru_utime + usage.ru_stime


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    ranks = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    regions = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    roofprof = os.path.join(build, "bin", "roofprof")
    with tempfile.TemporaryDirectory() as tmp:
        files = [os.path.join(tmp, f"prof.{r}.json") for r in range(ranks)]
        for r, f in enumerate(files):
            rank_file(f, r, ranks, regions)
        size = sum(os.path.getsize(f) for f in files) / 2 ** 20
        # The job must be recognised, else the bench measures the run merge.
        out = subprocess.run([roofprof, "report", *files, "--no-plot"], capture_output=True,
                             text=True, check=True).stdout
        assert f"MPI job 4242, {ranks} ranks merged" in out, out[:2000]
        cmds = {
            "cat": ["cat", *files],
            "json.load": [sys.executable, "-c",
                          "import json,sys\nfor f in sys.argv[1:]: json.load(open(f))", *files],
            "report (table)": [roofprof, "report", *files, "--no-plot"],
            "report --per-rank (json+svg)": [roofprof, "report", *files, "--per-rank",
                                             "--json", os.path.join(tmp, "o.json"),
                                             "--svg", os.path.join(tmp, "o.svg")],
        }
        times = {k: [] for k in cmds}
        cpu = {k: [] for k in cmds}
        for _ in range(REPS):
            for k, argv in cmds.items():
                wall, used = timed(argv)
                times[k].append(wall)
                cpu[k].append(used)
        ref = statistics.median(times["json.load"])
        print(f"{ranks} rank files x {regions} regions, {size:.0f} MiB in all; median of {REPS}; "
              f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
        print(f"{'command':>30} {'wall s':>8} {'/ json.load':>12} {'CPU s':>8}")
        for k, ts in times.items():
            m = statistics.median(ts)
            print(f"{k:>30} {m:8.3f} {m / ref:11.2f}x {statistics.median(cpu[k]):8.3f}")


if __name__ == "__main__":
    main()
