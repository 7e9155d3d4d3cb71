#!/usr/bin/env python3
"""roofprof ceilings against likwid-bench, in one run, same kernels, sizes and threads.

Lines: peakflops_avx512_fma and peakflops_avx_fma (L1-resident), load_avx512, copy_avx512 and
triad_avx512 with an L1-resident and a DRAM-sized working set, each on 1 and on all threads.
roofprof and likwid-bench runs are interleaved and repeated; each side's value for a line is
the median over the repeats, and the ratio is roofprof / likwid. Prints a Markdown table.
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


def roofprof_json(exe, args):
    out = subprocess.run([exe, "ceilings", "-o", "-"] + args, check=True, capture_output=True,
                         text=True).stdout
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
    a = ap.parse_args()
    cpus = len(os.sched_getaffinity(0))
    thread_counts = sorted({1, cpus})
    results = {}  # (line, threads) -> {"roofprof": [...], "likwid": [...], "unit": ...}

    def add(line, threads, side, value, unit):
        r = results.setdefault((line, threads), {"roofprof": [], "likwid": [], "unit": unit})
        r[side].append(value)

    for rep in range(a.repeats):
        for t in thread_counts:
            print(f"repeat {rep + 1}/{a.repeats}, {t} thread(s)", file=sys.stderr)
            comp = roofprof_json(a.roofprof, ["--only", "compute", "--isa", "avx2,avx512",
                                              "--threads", str(t)])
            for test, isa in COMPUTE:
                e = next(x for x in comp["compute"] if x["isa"] == isa and x["precision"] == "dp"
                         and x["op"] == "fma" and x["threads"] == t)
                line = f"{test} L1"
                add(line, t, "roofprof", e["gflops"], "GFlop/s")
                # likwid's peakflops kernels stream one array; give it the L1 working set.
                add(line, t, "likwid", likwid(test, 24 * 1024 * t, t), "GFlop/s")
            bw = roofprof_json(a.roofprof, ["--only", "bandwidth", "--levels", ",".join(LEVELS),
                                            "--threads", str(t)])
            for test, kind in STREAMS:
                for level in LEVELS:
                    e = next(x for x in bw["bandwidth"] if x["kind"] == kind
                             and x["level"] == level and x["threads"] == t)
                    line = f"{test} {level} ({e['working_set_bytes'] // 1024} KiB)"
                    add(line, t, "roofprof", e["gbytes_per_s"], "GB/s")
                    add(line, t, "likwid", likwid(test, e["working_set_bytes"], t), "GB/s")

    print("| line | threads | unit | roofprof | likwid-bench | ratio |")
    print("|---|---:|---|---:|---:|---:|")
    worst = None
    for (line, t), r in results.items():
        rp = statistics.median(r["roofprof"])
        lk = statistics.median(r["likwid"])
        ratio = rp / lk
        worst = ratio if worst is None else min(worst, ratio)
        print(f"| {line} | {t} | {r['unit']} | {rp:.1f} | {lk:.1f} | {ratio:.3f} |")
    print(f"\nworst ratio: {worst:.3f} (goal >= 0.97); medians of {a.repeats} interleaved repeats")


if __name__ == "__main__":
    main()
