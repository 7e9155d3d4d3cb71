#include "common/program.hpp"

#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

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

namespace {

// An ELF file for another class or machine than x86-64 (a 32-bit program, an ARM build) fails
// exec with ENOEXEC: said before anything starts. Other files (scripts) are left to exec.
void check_elf_machine(const std::string& prog, const std::string& path) {
  unsigned char h[EI_NIDENT + 4] = {};
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(h), sizeof h) || std::memcmp(h, ELFMAG, SELFMAG) != 0) return;
  const unsigned machine = h[18] | (h[19] << 8);  // e_machine, little-endian on x86-64 hosts
  if (h[EI_CLASS] == ELFCLASS64 && h[EI_DATA] == ELFDATA2LSB && machine == EM_X86_64) return;
  const std::string what = h[EI_CLASS] == ELFCLASS32 && machine == EM_386 ? "a 32-bit x86 program"
                                                                          : "an ELF file for another machine";
  throw CannotExecute("cannot run '" + prog + "': exec format error (" + what +
                      "; roofprof profiles x86-64 programs: rebuild it for x86-64)");
}

}  // namespace

std::string runnable_program(const std::string& prog) {
  std::string path = find_in_path(prog);
  struct stat st {};
  if (path.empty() || stat(path.c_str(), &st) != 0)
    throw UserError("cannot run '" + prog + "': no such file (check the path or PATH)");
  if (S_ISDIR(st.st_mode) || access(path.c_str(), X_OK) != 0)
    throw UserError("cannot run '" + prog + "': not an executable file");
  check_elf_machine(prog, path);
  return path;
}

}  // namespace roofprof
