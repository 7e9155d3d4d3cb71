#!/usr/bin/env python3
"""Writes a SYNTHETIC result file with CALLS region calls spread over REGIONS regions of GROUPS
groups each (dgemm_-like keys m=n=k), as `roofprof run` writes it after aggregating the calls.

    make_result.py OUT CALLS REGIONS GROUPS
"""
import json
import sys


def stats(median):
    return {"min": median * 0.9, "q1": median * 0.97, "median": median, "q3": median * 1.04,
            "max": median * 1.5}


def main():
    out, calls, nregions, ngroups = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    per_group = calls // (nregions * ngroups)
    assert per_group >= 1, "fewer calls than groups"
    regions = []
    for r in range(nregions):
        groups = []
        for g in range(ngroups):
            n = 10 * (g + 1)
            w = 2.0 * n ** 3
            t = w / 20e9 + 1e-6 * (1 + r % 7)
            q = 24.0 * n * n
            groups.append({"key": f"m={n},n={n},k={n}", "params": {"m": n, "n": n, "k": n},
                           "calls": per_group, "time_s": t * per_group,
                           "time_per_call_s": stats(t),
                           "counters": {"task-clock": t * per_group * 1e9},
                           "flops": w * per_group,
                           "bytes": {lv: {"read": q * per_group * f * 0.8, "write": q * per_group * f * 0.2}
                                     for lv, f in (("L1", 8), ("L2", 4), ("L3", 2), ("DRAM", 1))},
                           "expected_work": w * per_group})
        sum_ = lambda key: sum(g[key] for g in groups)
        regions.append({"name": f"kernel_{r}", "kind": "function", "spec": f"kernel_{r}",
                        "locations": [{"module": "/bench/app", "offset": 4096 + 64 * r,
                                       "symbol": f"kernel_{r}", "role": "entry"}],
                        "calls": sum_("calls"), "time_s": sum_("time_s"),
                        "time_per_call_s": stats(groups[ngroups // 2]["time_per_call_s"]["median"]),
                        "counters": {"task-clock": sum_("time_s") * 1e9},
                        "counters_multiplexed": False, "threads": 1,
                        "closed_by": {"return": sum_("calls")}, "flops": sum_("flops"),
                        "flops_by_class": {"dp_256": sum_("flops")},
                        "bytes": {lv: {"read": sum(g["bytes"][lv]["read"] for g in groups),
                                       "write": sum(g["bytes"][lv]["write"] for g in groups)}
                                  for lv in ("L1", "L2", "L3", "DRAM")},
                        "instructions": None,
                        "sources": {"time": "clock", "flops": "emul", "bytes": "emul"},
                        "groups": groups})
    doc = {"schema": 1, "tool": {"name": "roofprof", "version": "0.1.0"}, "command": ["./bench"],
           "pid": None, "exit_status": 0, "term_signal": None, "complete": True,
           "backend": "emul", "scope": "process", "repeat": 1,
           "wall_time_s": sum(r["time_s"] for r in regions),
           "host": {"hostname": "bench", "kernel": "Linux", "cpu_model": "bench", "cpu_vendor": "",
                    "logical_cpus": 2, "pmu": ""},
           "events": ["task-clock"], "regions": regions,
           "warnings": ["SYNTHETIC result written by bench/report/make_result.py"]}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
