#include "native/eh_frame_hdr.hpp"

#include <elf.h>

#include <cstring>

namespace roofprof::native {

std::optional<uint64_t> eh_frame_hdr_address(std::span<const uint8_t> file) {
  Elf64_Ehdr eh;
  if (file.size() < sizeof eh) return std::nullopt;
  std::memcpy(&eh, file.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return std::nullopt;
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    const uint64_t at = eh.e_phoff + uint64_t(i) * eh.e_phentsize;
    Elf64_Phdr ph;
    if (at > file.size() || file.size() - at < sizeof ph) return std::nullopt;
    std::memcpy(&ph, file.data() + at, sizeof ph);
    if (ph.p_type == PT_GNU_EH_FRAME) return ph.p_vaddr;
  }
  return std::nullopt;
}

}  // namespace roofprof::native
