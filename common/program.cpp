#include "common/program.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "common/error.hpp"

namespace roofprof {

std::string find_in_path(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return prog;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (size_t start = 0; start <= p.size();) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    std::string cand = (dir.empty() ? "." : dir) + "/" + prog;
    if (access(cand.c_str(), X_OK) == 0) return cand;
    start = end + 1;
  }
  return "";
}

std::string runnable_program(const std::string& prog) {
  std::string path = find_in_path(prog);
  struct stat st {};
  if (path.empty() || stat(path.c_str(), &st) != 0)
    throw UserError("cannot run '" + prog + "': no such file (check the path or PATH)");
  if (S_ISDIR(st.st_mode) || access(path.c_str(), X_OK) != 0)
    throw UserError("cannot run '" + prog + "': not an executable file");
  return path;
}

}  // namespace roofprof
