#pragma once
// Paths of the symbolizer fixtures (tests/fixtures/symbolizer, built into FIXTURES_DIR).
#include <string>

#include "symbolizer/elf_file.hpp"

namespace roofprof::symbolizer::test {

inline std::string fixture(const std::string& name) { return std::string(FIXTURES_DIR) + "/" + name; }

// All function symbols of `elf` with this (mangled) name.
inline std::vector<const Symbol*> symbols_named(const ElfFile& elf, const std::string& name) {
  std::vector<const Symbol*> out;
  for (const auto& s : elf.functions()) {
    if (s.name == name) out.push_back(&s);
  }
  return out;
}

}  // namespace roofprof::symbolizer::test
