#include "symbolizer/elf_file.hpp"

#include "symbolizer/elf_image.hpp"

namespace roofprof::symbolizer {

std::shared_ptr<ElfFile> ElfFile::open(const std::string& path) {
  return std::make_shared<ElfImage>(path);
}

}  // namespace roofprof::symbolizer
