#pragma once
// Runs with known content for the report tests.
#include "result/result.hpp"

namespace roofprof::report::samples {

inline result::Region region(std::string name, std::string kind, uint64_t calls, double time_s) {
  result::Region r;
  r.name = std::move(name);
  r.kind = std::move(kind);
  r.spec = r.name;
  r.calls = calls;
  r.time_s = time_s;
  r.threads = calls ? 1 : 0;
  r.sources = {{"time", "clock"}};
  if (calls) r.closed_by = {{r.kind == "span" ? "span_stop" : "return", calls}};
  return r;
}

// Three regions: one with flops and bytes from emulation, multiplexed counters and abnormal
// closes; one with counters only; one span that was never entered.
inline result::Run typical() {
  result::Run run;
  run.tool_version = "0.1.0";
  run.command = {"./app", "1000", "it's"};
  run.exit_status = 0;
  run.backend = "perf";
  run.scope = "process";
  run.wall_time_s = 2.5;
  run.events = {"task-clock", "page-faults", "context-switches"};

  result::Region daxpy = region("daxpy", "function", 20000, 0.0123);
  daxpy.time_per_call_s = result::Stats{4.1e-7, 5.5e-7, 6.02e-7, 6.4e-7, 2.3e-5};
  daxpy.counters = {{"task-clock", 12345678.0}, {"page-faults", 3}, {"context-switches", 0}};
  daxpy.sources["counters"] = "perf";

  result::Region dgemm = region("dgemm_", "function", 100, 1.5);
  dgemm.threads = 8;
  dgemm.time_per_call_s = result::Stats{0.0131, 0.0148, 0.015, 0.0152, 0.0213};
  dgemm.counters = {
      {"task-clock", 11987654321.5}, {"page-faults", 1234567}, {"context-switches", std::nullopt}};
  dgemm.counters_multiplexed = true;
  dgemm.closed_by = {{"return", 97}, {"longjmp", 2}, {"exception", 1}};
  dgemm.flops = 2.0e11;
  dgemm.flops_by_class = {{"dp_256", 2.0e11}};
  dgemm.bytes = {{"DRAM", result::Bytes{1.6e10, 4.0e9}},
                 {"L2", result::Bytes{}},  // not measured: no line in the summary
                 {"L1", result::Bytes{8.0e11, std::nullopt}}};
  dgemm.sources = {{"time", "clock"}, {"counters", "perf"}, {"flops", "emul"}, {"bytes", "emul"}};

  result::Region solve = region("solve", "span", 0, 0);
  solve.counters = {{"task-clock", 0.0}};  // never entered: not shown

  run.regions = {daxpy, dgemm, solve};
  return run;
}

// The program died of SIGSEGV inside a region; roofprof warned about something.
inline result::Run crashed() {
  result::Run run;
  run.command = {"/opt/bin/solver", "--in", "mesh 1.dat"};
  run.term_signal = 11;
  run.backend = "time";
  run.scope = "thread";
  run.repeat = 3;
  run.wall_time_s = 0.000734;
  result::Region r = region("ns::Solver::step(int)", "function", 3, 0.00062);
  r.time_per_call_s = result::Stats{0.0002, 0.0002, 0.00021, 0.000215, 0.00022};
  r.closed_by = {{"return", 2}, {"crash", 1}};
  result::Region init = region("init", "function", 1, 0.0000312);
  init.time_per_call_s = result::Stats{0.0000312, 0.0000312, 0.0000312, 0.0000312, 0.0000312};
  run.regions = {r, init};
  run.warnings = {"no perf_event counters: --backend time measures wall time only"};
  return run;
}

// Attached with --pid, no regions ever entered, detached on Ctrl-C.
inline result::Run detached() {
  result::Run run;
  run.pid = 4242;
  run.complete = false;
  run.backend = "perf";
  run.scope = "process";
  run.wall_time_s = 12.0;
  return run;
}

}  // namespace roofprof::report::samples
