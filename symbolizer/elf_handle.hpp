#pragma once
// An open file descriptor plus its libelf descriptor, validated as an x86-64 ELF file.
#include <gelf.h>
#include <libelf.h>

#include <string>

namespace roofprof::symbolizer {

class ElfHandle {
 public:
  // Throws UserError naming `path` when it cannot be read or is not an x86-64 ELF file.
  explicit ElfHandle(const std::string& path);
  ~ElfHandle();
  ElfHandle(const ElfHandle&) = delete;
  ElfHandle& operator=(const ElfHandle&) = delete;

  Elf* elf() const { return elf_; }
  const GElf_Ehdr& header() const { return ehdr_; }

 private:
  int fd_ = -1;
  Elf* elf_ = nullptr;
  GElf_Ehdr ehdr_{};
};

// The section with this name, or nullptr.
Elf_Scn* find_section(Elf* elf, const char* name);

}  // namespace roofprof::symbolizer
