#pragma once
// Counts per guest instruction from the tool's --annotate=yes files (DIR/<pid>.annot, format in
// emul/tool/rp_annot.c): for `roofprof run --annotate` and `roofprof annotate`.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace roofprof::emul {

struct InstructionCounts {
  std::string module;    // the object file
  uint64_t address = 0;  // link-time
  uint32_t length = 0;   // bytes
  uint64_t executions = 0;
  // Part of its counts depends on a guard (masked or conditional accesses, REP iterations):
  // the totals below leave that part out.
  bool partial = false;
  // counter name -> its total: executions x count per execution (instructions, flops, L1 bytes),
  // or the simulated traffic its accesses caused (bytes_read_L2 ... bytes_written_DRAM)
  std::map<std::string, double> totals;
};

// Every instruction executed in any process of the run, summed over the processes; files that
// cannot be read or lines that do not parse are skipped.
std::vector<InstructionCounts> read_annotation(const std::string& dir);

}  // namespace roofprof::emul
