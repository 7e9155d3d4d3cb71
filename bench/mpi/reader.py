#!/usr/bin/env python3
"""Benchmark of roofprof's reader of the in-process records under an MPI job (docs/benchmarks.md,
"The reader under an MPI job").

Runs the fixture tests/fixtures/mpi/mpi_calls (RANKS ranks, each calling mpi_tick(K) CALLS
times) REPS times bare and REPS times with each rank under
`roofprof run --backend time -e none -r mpi_tick`, interleaved, and prints for each the best and
median wall time of the whole mpirun command, the ratios of the bests and of the medians, and the reader's CPU
time, sleeps and rings from the ranks' results (agent_reader).

    bench/mpi/reader.py BUILD_DIR [RANKS] [CALLS] [K] [REPS] [OTHER_ROOFPROF]

OTHER_ROOFPROF: another roofprof binary (e.g. a build of an earlier commit) timed the same way in
the same runs, as a third command ("other roofprof").
"""
import json
import resource
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def rank_cpu(out_dir, argv):
    """Inside a rank: runs argv, writes the CPU seconds of it and its descendants to out_dir."""
    code = subprocess.run(argv).returncode
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.path.join(out_dir, f"cpu.{os.getpid()}"), "w") as f:
        f.write(f"{ru.ru_utime + ru.ru_stime}\n")
    sys.exit(code)


def job_cpu(out_dir):
    """The CPU seconds of every rank of the last job, per rank (median), and clears them."""
    files = [os.path.join(out_dir, n) for n in os.listdir(out_dir) if n.startswith("cpu.")]
    values = []
    for f in files:
        with open(f) as fh:
            values.append(float(fh.read()))
        os.remove(f)
    return statistics.median(values)


def timed(argv, cwd):
    """Wall seconds of the whole command, and its standard output."""
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(argv)}\n{p.stderr}")
    return dt, p.stdout


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--rank-cpu":
        rank_cpu(sys.argv[2], sys.argv[3:])
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    given = [int(a) for a in sys.argv[2:6]]
    other = os.path.abspath(sys.argv[6]) if len(sys.argv) > 6 else None
    ranks, calls, k, reps = given + [2, 100000, 5000, 5][len(given):]
    roofprof = os.path.abspath(os.path.join(build, "bin", "roofprof"))
    app = os.path.abspath(os.path.join(build, "tests", "fixtures", "mpi_calls"))
    mpirun = shutil.which("mpirun")
    launch = [mpirun, "--oversubscribe", "--allow-run-as-root", "--mca", "btl", "self,vader",
              "--mca", "plm_rsh_agent", "", "-np", str(ranks)]
    program = [app, str(calls), str(k)]
    cmds = {
        "bare": launch + program,
        "roofprof -e none": launch + [roofprof, "run", "--backend", "time", "-e", "none", "-q",
                                      "-o", "reader.%r.json", "-r", "mpi_tick", "--"] + program,
    }
    if other:
        cmds["other roofprof"] = launch + [other, "run", "--backend", "time", "-e", "none", "-q",
                                           "-o", "other.%r.json", "-r", "mpi_tick", "--"] + program
    times = {c: [] for c in cmds}
    cpu = {c: [] for c in cmds}
    readers = []
    with tempfile.TemporaryDirectory() as tmp:
        wrap = [sys.executable, os.path.abspath(__file__), "--rank-cpu", tmp]
        cmds = {c: argv[:len(launch)] + wrap + argv[len(launch):] for c, argv in cmds.items()}
        for _ in range(reps):
            for c, argv in cmds.items():
                wall, out = timed(argv, tmp)
                assert f"calls {ranks * calls}" in out, out
                times[c].append(wall)
                cpu[c].append(job_cpu(tmp))
            for r in range(ranks):
                with open(os.path.join(tmp, f"reader.{r}.json")) as f:
                    doc = json.load(f)
                tick = next(x for x in doc["regions"] if x["name"] == "mpi_tick")
                assert tick["calls"] == calls, tick
                readers.append(doc["agent_reader"])
    bare = min(times["bare"])
    bare_median = statistics.median(times["bare"])
    print(f"{ranks} ranks x {calls} calls of mpi_tick({k}); {reps} runs each, interleaved; "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    print(f"{'command':>18} {'best s':>8} {'median s':>9} {'best / bare':>12} {'median / bare':>14} "
          f"{'CPU s a rank':>13}")
    for c, ts in times.items():
        m = statistics.median(ts)
        print(f"{c:>18} {min(ts):8.3f} {m:9.3f} {min(ts) / bare:11.2f}x {m / bare_median:13.2f}x "
              f"{statistics.median(cpu[c]):13.3f}")
    print(f"reader per rank (median of {len(readers)}): CPU "
          f"{statistics.median(r['cpu_s'] for r in readers) * 1e3:.1f} ms, sleeps "
          f"{statistics.median(r['sleeps'] for r in readers):.0f}, rings "
          f"{statistics.median(r['rings'] for r in readers):.0f}")


if __name__ == "__main__":
    main()
