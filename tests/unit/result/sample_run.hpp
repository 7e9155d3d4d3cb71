#pragma once
// A Run with every field set to something distinctive (nulls included), for round-trip tests.
#include "result/result.hpp"

namespace roofprof::result::samples {

inline Run sample_run() {
  Run run;
  run.tool_version = "0.1.0";
  run.command = {"./app", "arg with space", "\"quoted\"", "ünïcode"};
  run.pid = std::nullopt;
  run.exit_status = std::nullopt;
  run.term_signal = 11;
  run.complete = false;
  run.backend = "perf";
  run.scope = "process";
  run.repeat = 3;
  run.wall_time_s = 0.1 + 0.2;  // not exactly representable in short decimal
  run.host = Host{
      "node1", "Linux 6.1.0-18-amd64 x86_64", "Intel(R) Xeon(R) Gold 6130", "GenuineIntel", 2, ""};
  run.events = {"task-clock", "page-faults", "context-switches"};

  Region dgemm;
  dgemm.name = "dgemm_";
  dgemm.kind = "function";
  dgemm.spec = "dgemm_";
  dgemm.locations = {{"/usr/lib/x86_64-linux-gnu/libblas.so.3", 0x1f2e30, "dgemm_", "entry"}};
  dgemm.calls = 18446744073709551615ull;  // largest uint64
  dgemm.time_s = 1.0 / 3.0;
  dgemm.time_per_call_s = Stats{1e-9, 2.5e-6, 3.14159e-3, 0.5, 12345.678};
  dgemm.counters = {{"task-clock", 123456789.0},
                    {"page-faults", 0.0},
                    {"context-switches", 7},
                    {"cpu-migrations", std::nullopt}};
  dgemm.counters_multiplexed = true;
  dgemm.threads = 8;
  dgemm.closed_by = {{"return", 90}, {"longjmp", 3}, {"crash", 1}};
  dgemm.flops = 2.0e9;
  dgemm.flops_by_class = {{"dp_256", 1.5e9}, {"dp_scalar", 5e8}};
  dgemm.bytes = {{"DRAM", Bytes{1.25e8, std::nullopt}}, {"L1", Bytes{std::nullopt, std::nullopt}}};
  dgemm.instructions = std::nullopt;
  dgemm.sources = {{"time", "clock"}, {"counters", "perf"}, {"flops", "emul"}};

  Region span;
  span.name = "solve";
  span.kind = "span";
  span.spec = "solve=solver.c:120..solver.c:180";
  span.locations = {{"/tmp/app", 0x1139, "", "start"}, {"/tmp/app", 0x11a0, "main", "stop"}};
  span.calls = 0;
  span.time_s = 0;
  span.time_per_call_s = std::nullopt;
  span.threads = 0;
  span.flops = std::nullopt;
  span.instructions = 0.0;  // measured zero is not unknown

  run.regions = {dgemm, span};
  run.warnings = {"counters were multiplexed", "line two"};
  return run;
}

}  // namespace roofprof::result::samples
