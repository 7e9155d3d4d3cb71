#!/usr/bin/env python3
"""roofprof ceilings against likwid-bench, in one run, same kernels, sizes and threads.

Lines: peakflops_avx512_fma and peakflops_avx_fma (L1-resident), load_avx512, copy_avx512 and
triad_avx512 with an L1-resident and a DRAM-sized working set, each on 1 and on all threads.
roofprof and likwid-bench runs are interleaved and repeated: each repeat measures every line
once with each tool, alternating which goes first. The headline ratio of a line is the median,
over the repeats, of the paired ratio roofprof / likwid of the same repeat: the two values of a
pair are measured seconds apart, so slow drifts of the machine (another guest, the host moving
a vCPU, a compiler next door) hit both and cancel. The ratio of the medians and of the best
values are printed beside it. Prints a Markdown table.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

COMPUTE = [  # likwid test, roofprof isa (dp fma)
    ("peakflops_avx512_fma", "avx512"),
    ("peakflops_avx_fma", "avx2"),
]
STREAMS = [  # likwid test, roofprof kind
    ("load_avx512", "load"),
    ("copy_avx512", "copy"),
    ("triad_avx512", "triad"),
]
LEVELS = ["L1", "DRAM"]




def raise_priority():
    """Both tools run with the same priority. On a shared machine (other users compiling) the
    scheduler's autogroups would otherwise give this session only its share of the CPU, and both
    tools would measure the load, not the machine. run-bench.sh starts us in a session of our own
    (setsid), so raising that session's autogroup nice affects only the benchmark. Root only."""
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write("-20")
        return True
    except OSError:
        return False


def roofprof_json(exe, args):
    out = subprocess.run([exe, "ceilings", "-o", "-"] + args, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def likwid(test, size_bytes, threads):
    out = subprocess.run(["likwid-bench", "-t", test, "-W", f"N:{size_bytes}B:{threads}"],
                         check=True, capture_output=True, text=True).stdout
    key = "MFlops/s" if test.startswith("peakflops") else "MByte/s"
    values = re.findall(rf"^{re.escape(key)}:\s+([0-9.]+)", out, re.M)
    if not values:
        sys.exit(f"vs_likwid: no {key} in likwid-bench output for {test}:\n{out}")
    return float(values[-1]) / 1000.0  # the group's total, in G


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--roofprof", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--levels", default=",".join(LEVELS),
                    help="bandwidth levels to compare (default L1,DRAM)")
    ap.add_argument("--no-compute", action="store_true", help="skip the peakflops lines")
    a = ap.parse_args()
    levels = [x for x in a.levels.split(",") if x]
    prio = raise_priority()
    cpus = len(os.sched_getaffinity(0))
    thread_counts = sorted({1, cpus})
    results = {}  # (line, threads) -> {"roofprof": [...], "likwid": [...], "unit": ...}

    def add(line, threads, side, value, unit, size=None):
        r = results.setdefault((line, threads), {"roofprof": [], "likwid": [], "unit": unit, "sizes": set()})
        r[side].append(value)
        if size:
            r["sizes"].add(size // 1024)

    def compute_group(t, roofprof_first):
        def rp():
            comp = roofprof_json(a.roofprof, ["--only", "compute", "--isa", "avx2,avx512",
                                              "--threads", str(t)])
            for test, isa in COMPUTE:
                e = next(x for x in comp["compute"] if x["isa"] == isa and x["precision"] == "dp"
                         and x["op"] == "fma" and x["threads"] == t)
                add(f"{test} L1", t, "roofprof", e["gflops"], "GFlop/s")

        def lk():
            for test, _ in COMPUTE:
                # likwid's peakflops kernels stream one array: give it an L1-resident one.
                add(f"{test} L1", t, "likwid", likwid(test, 24 * 1024 * t, t), "GFlop/s")
        for f in ((rp, lk) if roofprof_first else (lk, rp)):
            f()

    def stream_group(t, level, roofprof_first):
        sizes = {}

        def rp():
            bw = roofprof_json(a.roofprof, ["--only", "bandwidth", "--levels", level,
                                            "--threads", str(t)])
            for test, kind in STREAMS:
                e = next(x for x in bw["bandwidth"] if x["kind"] == kind
                         and x["level"] == level and x["threads"] == t)
                sizes[test] = e["working_set_bytes"]
                add(f"{test} {level}", t, "roofprof", e["gbytes_per_s"], "GB/s", e["working_set_bytes"])

        def lk():
            for test, _ in STREAMS:
                add(f"{test} {level}", t, "likwid", likwid(test, sizes[test], t), "GB/s", sizes[test])
        if not roofprof_first:  # learn roofprof's working sets first, untimed by the comparison
            bw = roofprof_json(a.roofprof, ["--only", "bandwidth", "--levels", level,
                                            "--threads", str(t), ])
            for test, kind in STREAMS:
                sizes[test] = next(x for x in bw["bandwidth"] if x["kind"] == kind
                                   and x["level"] == level)["working_set_bytes"]
            lk()
            rp()
        else:
            rp()
            lk()

    for rep in range(a.repeats):
        first = rep % 2 == 0  # alternate which tool runs first
        for t in thread_counts:
            print(f"repeat {rep + 1}/{a.repeats}, {t} thread(s), load {os.getloadavg()[0]:.1f}",
                  file=sys.stderr)
            if not a.no_compute:
                compute_group(t, first)
            for level in levels:
                stream_group(t, level, first)

    print("| line | threads | unit | median paired ratio | paired ratios (min-max) | roofprof | "
          "likwid-bench | ratio of medians | best roofprof | best likwid | ratio of bests |")
    print("|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|")
    worst = {"paired": 9e9, "medians": 9e9, "bests": 9e9}
    for (line, t), r in sorted(results.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        pairs = [x / y for x, y in zip(r["roofprof"], r["likwid"])]
        paired = statistics.median(pairs)
        rp, lk = statistics.median(r["roofprof"]), statistics.median(r["likwid"])
        brp, blk = max(r["roofprof"]), max(r["likwid"])
        for key, v in (("paired", paired), ("medians", rp / lk), ("bests", brp / blk)):
            worst[key] = min(worst[key], v)
        mark = "**" if paired < 0.97 else ""
        if r["sizes"]:  # the DRAM size follows the measured last level, which varies a little
            line = f"{line} ({', '.join(str(k) for k in sorted(r['sizes']))} KiB)"
        print(f"| {line} | {t} | {r['unit']} | {mark}{paired:.3f}{mark} | {min(pairs):.2f}-{max(pairs):.2f} "
              f"| {rp:.1f} | {lk:.1f} | {rp / lk:.3f} | {brp:.1f} | {blk:.1f} | {brp / blk:.3f} |")
    print(f"\nworst median paired ratio: {worst['paired']:.3f}, ratio of medians: {worst['medians']:.3f}, "
          f"of bests: {worst['bests']:.3f} (goal >= 0.97); {a.repeats} interleaved repeats, "
          f"load average at the end {os.getloadavg()[0]:.1f}, "
          f"both tools run {'with autogroup nice -20' if prio else 'at normal priority'}")


if __name__ == "__main__":
    main()
