#pragma once
// Where roofprof finds its companions. The build tree mirrors an install (bin/roofprof next to
// lib/roofprof/), so both are found relative to the running executable: an installed tree can be
// moved (docs/install.md).
#include <string>

namespace roofprof {

// <dir of /proc/self/exe>/../lib/roofprof: the agent, the Valgrind tool, the selftest kernels and,
// in an install, the Valgrind engine's launcher. "" when /proc/self/exe cannot be read.
std::string companion_dir();

// The Valgrind engine the emulation tool runs under: the launcher an install carries next to the
// tool (lib/roofprof/valgrind.bin, VALGRIND_LIB = that directory), else the one the tool was built
// against (cmake/valgrind.cmake), given here as its launcher and its VALGRIND_LIB.
struct ValgrindEngine {
  std::string launcher;
  std::string lib_dir;
  bool carried = false;  // the install's copy
};
ValgrindEngine valgrind_engine(const std::string& built_launcher, const std::string& built_lib_dir);
// The same, looking for the carried launcher in `dir` instead of companion_dir().
ValgrindEngine valgrind_engine_in(const std::string& dir, const std::string& built_launcher,
                                  const std::string& built_lib_dir);

}  // namespace roofprof
