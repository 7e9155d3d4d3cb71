#include "symbolizer/elf_handle.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace roofprof::symbolizer {

namespace {

[[noreturn]] void fail(const std::string& msg) { throw UserError(msg); }

void init_libelf() {
  static const bool ok = elf_version(EV_CURRENT) != EV_NONE;
  if (!ok) fail("libelf is unusable (elf_version failed); reinstall libelf1");
}

}  // namespace

ElfHandle::ElfHandle(const std::string& path) {
  init_libelf();
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    fail("cannot read " + path + ": " + std::strerror(errno) + "; check the path and permissions");
  }
  struct stat st {};
  if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fail("cannot read " + path + ": not a regular file; give the path of an executable or library");
  }
  elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
  if (elf_ == nullptr || elf_kind(elf_) != ELF_K_ELF || gelf_getehdr(elf_, &ehdr_) == nullptr) {
    if (elf_) elf_end(elf_);
    ::close(fd_);
    fail(path + " is not an ELF file; give the path of an executable or shared library");
  }
  if (gelf_getclass(elf_) != ELFCLASS64 || ehdr_.e_machine != EM_X86_64) {
    elf_end(elf_);
    ::close(fd_);
    fail(path + " is not an x86-64 ELF file; roofprof only profiles x86-64 Linux programs");
  }
}

ElfHandle::~ElfHandle() {
  if (elf_) elf_end(elf_);
  if (fd_ >= 0) ::close(fd_);
}

Elf_Scn* find_section(Elf* elf, const char* name) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return nullptr;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* n = elf_strptr(elf, shstrndx, sh.sh_name);
    if (n && std::strcmp(n, name) == 0) return scn;
  }
  return nullptr;
}

}  // namespace roofprof::symbolizer
