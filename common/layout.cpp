#include "common/layout.hpp"

#include <unistd.h>

#include <filesystem>

namespace fs = std::filesystem;

namespace roofprof {

std::string companion_dir() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  return (self.parent_path().parent_path() / "lib" / "roofprof").string();
}

ValgrindEngine valgrind_engine_in(const std::string& dir, const std::string& built_launcher,
                                  const std::string& built_lib_dir) {
  if (!dir.empty()) {
    const fs::path carried = fs::path(dir) / "valgrind.bin";
    if (::access(carried.c_str(), X_OK) == 0) return {carried.string(), dir, true};
  }
  return {built_launcher, built_lib_dir, false};
}

ValgrindEngine valgrind_engine(const std::string& built_launcher, const std::string& built_lib_dir) {
  return valgrind_engine_in(companion_dir(), built_launcher, built_lib_dir);
}

}  // namespace roofprof
