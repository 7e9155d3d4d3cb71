#pragma once
// Names of the call sites on a running process's stack: "solve (solver.c:120)" for a return
// address into solve, at the line of the call before it. For call paths (--group-by caller).
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "symbolizer/modules.hpp"

namespace roofprof::symbolizer {

class CallSiteNamer {
 public:
  explicit CallSiteNamer(ElfCache& cache) : cache_(cache) {}
  // The function holding `return_address` in process `pid` (its name without parameters) and,
  // with DWARF, the file:line of the call just before it: "solve (solver.c:120)", "solve"
  // without line information, "libfoo.so+0x1a2b" in a module without a symbol there, "0x..."
  // outside every module. The process's modules are read again when an address is in none.
  std::string name(pid_t pid, uint64_t return_address);
  // A module `pid` has loaded at `bias`, as someone else saw it (the in-process agent): its
  // addresses can be named after the process is gone. A path already known is ignored.
  void add_module(pid_t pid, const std::string& path, uint64_t bias);

 private:
  const LoadedModule* module_of(pid_t pid, uint64_t addr);

  ElfCache& cache_;
  std::map<pid_t, std::vector<LoadedModule>> modules_;
  std::map<std::pair<pid_t, uint64_t>, std::string> names_;
};

}  // namespace roofprof::symbolizer
