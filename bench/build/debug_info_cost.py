#!/usr/bin/env python3
"""Issue 38: what debug information costs `make demo`'s compilation. Compiles a sample of the
translation units of `make demo`'s targets (roofprof_runtime, demo) twice each, with the build
type's flags (RelWithDebInfo: -O2 -g -DNDEBUG) and without -g, interleaved, no ccache, and
compares the CPU time (user + sys of the compilers: less sensitive to other load than wall time).

Usage: bench/build/debug_info_cost.py [--every N]   (every Nth unit, default 12)
Configures a scratch build tree (RelWithDebInfo, ROOFPROF_TESTS=OFF, compile commands exported).
"""
import argparse
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def compile_once(entry, drop_g):
    args = [a for a in shlex.split(entry["command"]) if a != "ccache"]
    i = args.index("-o")
    args[i + 1] = os.devnull
    if drop_g:
        args = [a for a in args if a != "-g"]
    before = cpu()
    subprocess.run(args, cwd=entry["directory"], check=True)
    return cpu() - before


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=int, default=12)
    opts = ap.parse_args()
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory(prefix="roofprof-g-cost.") as tree:
        subprocess.run(["cmake", "-S", src, "-B", tree, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                        "-DROOFPROF_TESTS=OFF", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
                       check=True, stdout=subprocess.DEVNULL)
        # The units of make demo's targets: every unit of this tree but the targets it would not build.
        dry = subprocess.run(["make", "-C", tree, "-n", "-B", "roofprof_runtime", "demo"],
                             capture_output=True, text=True).stdout
        built = set(re.findall(r'Building [A-Z]+ object ([^ "]+)', dry))

        def output(e):
            args = shlex.split(e["command"])
            return os.path.relpath(os.path.join(e["directory"], args[args.index("-o") + 1]), tree)
        entries = [e for e in json.load(open(os.path.join(tree, "compile_commands.json")))
                   if "-g" in shlex.split(e["command"]) and output(e) in built
                   and os.path.exists(e["file"])]  # not the generated ones
        entries.sort(key=lambda e: e["file"])
        sample = entries[::opts.every]
        with_g = without_g = 0.0
        for k, e in enumerate(sample):
            # Alternate which goes first, so that a change of load hits both alike.
            if k % 2 == 0:
                a = compile_once(e, False); b = compile_once(e, True)
            else:
                b = compile_once(e, True); a = compile_once(e, False)
            with_g += a
            without_g += b
            print(f"{os.path.relpath(e['file'], src)}: -g {a:.1f} s, without {b:.1f} s CPU", flush=True)
        with open("/proc/loadavg") as f:
            load = " ".join(f.read().split()[:3])
        print(f"{len(sample)} of make demo's {len(entries)} units: CPU {with_g:.1f} s with -g, "
              f"{without_g:.1f} s without; without/with = {without_g / with_g:.2f} (load average {load})")


if __name__ == "__main__":
    sys.exit(main())
