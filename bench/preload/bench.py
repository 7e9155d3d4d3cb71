#!/usr/bin/env python3
"""Overhead of the in-process agent (roofprof run --no-ptrace) per hooked call.

Usage: bench/preload/bench.py BUILD_DIR [--reps 5]

bench_preload N WORK calls bench_kernel (in a shared library, through the PLT) N times, each
call costing WORK loop iterations, and prints the loop's wall time and its CPU time (its own
process only, CLOCK_PROCESS_CPUTIME_ID: the agent's work inside the program counts, roofprof's
own process and time stolen by other VMs do not). Tool start-up is outside the loop.
Configurations run interleaved within each repeat; medians of the repeats are printed, and
for long regions the ratio to the bare run of the same repeat (paired).
  bare          the program alone
  agent-0ev     the agent with no counters (time only), its records drained and discarded by
                bench_drain: the cost of the hook, the shadow stack, the clock and the ring
  agent-1ev     roofprof run --no-ptrace --events task-clock
  agent         roofprof run --no-ptrace (task-clock, page-faults, context-switches; process scope)
  agent-thread  the same with --scope thread
  combined      roofprof run (its default: the tracer starts the program with the agent, which
                measures bench_kernel; the tracer drains its records)
  ptrace        roofprof run --no-preload (breakpoints), at 10^4 calls: the program is stopped
                at every boundary, so only its wall time means something
Last, bench_counter_paths: the CPU cost of one counter snapshot by each way of taking it
(read() of the group, a bare system call, the perf mmap page, ...) and what the mmap page
offers on this machine (cap_user_time, cap_user_rdpmc).
"""
import argparse, os, re, statistics, subprocess, sys, tempfile


def loop_times(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True, env=env, text=True)
    m = re.search(r"loop_s=([0-9.]+) cpu_s=([0-9.]+)", p.stdout)
    if not m:
        raise SystemExit(f"no timing line from {' '.join(cmd)}: {p.stdout!r}")
    return float(m.group(1)), float(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    bench = os.path.join(build, "bench")
    prog = os.path.join(bench, "bench_preload")
    roof = os.path.join(build, "bin", "roofprof")
    agent = os.path.join(build, "lib", "roofprof", "libroofprof-preload.so")
    out = os.path.join(tempfile.mkdtemp(prefix="roofprof-bench-"), "r.json")
    run = [roof, "run", "-q", "--no-ptrace", "--backend", "time", "-o", out, "--region", "bench_kernel"]
    drain_env = dict(os.environ, ROOFPROF_AGENT_REGIONS="0:bench_kernel\n", ROOFPROF_AGENT_EVENTS="")
    configs = {
        "bare": lambda n, w: ([prog, str(n), str(w)], None),
        "agent-0ev": lambda n, w: ([os.path.join(bench, "bench_drain"), agent, prog, str(n), str(w)], drain_env),
        "agent-1ev": lambda n, w: (run + ["--events", "task-clock", "--", prog, str(n), str(w)], None),
        "agent": lambda n, w: (run + ["--", prog, str(n), str(w)], None),
        "agent-thread": lambda n, w: (run + ["--scope", "thread", "--", prog, str(n), str(w)], None),
        "combined": lambda n, w: ([roof, "run", "-q", "--backend", "time", "-o", out, "--region", "bench_kernel",
                                   "--", prog, str(n), str(w)], None),
        "ptrace": lambda n, w: ([roof, "run", "-q", "--backend", "time", "--no-preload", "-o", out, "--region",
                                 "bench_kernel", "--", prog, str(n), str(w)], None),
    }

    def measure(plan, work):
        wall = {name: [] for name, _ in plan}
        cpu = {name: [] for name, _ in plan}
        for _ in range(a.reps):
            for name, n in plan:
                w, c = loop_times(*configs[name](n, work))
                wall[name].append(w / n)
                cpu[name].append(c / n)
        return wall, cpu

    print(f"# {os.uname().nodename}, {os.cpu_count()} CPUs, {a.reps} repeats, medians")
    print("## an empty function (WORK=0): cost per call")
    plan = [("bare", 10**6), ("agent-0ev", 10**6), ("agent-1ev", 10**6), ("agent", 10**6),
            ("agent-thread", 10**6), ("combined", 10**6), ("ptrace", 10**4)]
    wall, cpu = measure(plan, 0)
    med = lambda v: statistics.median(v)
    bw, bc = med(wall["bare"]), med(cpu["bare"])
    print(f"{'config':>13} {'calls':>8} {'wall ns/call':>13} {'overhead':>9} {'cpu ns/call':>12} {'overhead':>9}")
    for name, n in plan:
        w, c = med(wall[name]), med(cpu[name])
        print(f"{name:>13} {n:>8} {w * 1e9:>13.0f} {(w - bw) * 1e9:>9.0f} {c * 1e9:>12.0f} {(c - bc) * 1e9:>9.0f}")

    # Regions of 100 us of the program's own CPU time: WORK scaled from a bare calibration run.
    _, c = loop_times(*configs["bare"](10**3, 100000))
    work = max(1, round(100000 * 100e-6 / (c / 10**3)))
    print(f"## regions of about 100 us (WORK={work} iterations, calibrated bare), 10^4 calls: total overhead, paired by repeat")
    names = ["bare", "agent-0ev", "agent", "agent-thread", "combined"]
    wall, cpu = measure([(n, 10**4) for n in names], work)
    print(f"{'config':>13} {'wall us/call':>13} {'wall overhead':>14} {'cpu us/call':>12} {'cpu overhead':>13} {'(min, max)':>18}")
    for name in names:
        rw = [x / b - 1 for x, b in zip(wall[name], wall["bare"])]
        rc = [x / b - 1 for x, b in zip(cpu[name], cpu["bare"])]
        print(f"{name:>13} {med(wall[name]) * 1e6:>13.1f} {100 * med(rw):>13.2f}% {med(cpu[name]) * 1e6:>12.1f} "
              f"{100 * med(rc):>12.2f}% ({100 * min(rc):>6.2f}%, {100 * max(rc):>6.2f}%)")

    print("## one counter snapshot, by path (bench_counter_paths: CPU ns, median of 7 rounds)")
    sys.stdout.flush()
    subprocess.run([os.path.join(bench, "bench_counter_paths"), "100000"], check=True)


if __name__ == "__main__":
    sys.exit(main())
