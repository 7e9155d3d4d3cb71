#pragma once
// The DWARF line tables of one ELF file, flattened for two questions: where do the statements
// of FILE:LINE begin, and which FILE:LINE holds an address.
#include <libelf.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofprof::symbolizer {

struct AddressRange {  // [begin, end): addresses where code may live (executable PT_LOADs)
  uint64_t begin = 0, end = 0;
};

class LineTable {
 public:
  // Reads the line program of every compilation unit in `elf`. Rows outside `code` (for
  // example sequences of discarded functions left at address 0) are ignored. An ELF file
  // without DWARF gives an empty table.
  static LineTable read(Elf* elf, const std::vector<AddressRange>& code);

  bool empty() const { return ranges_.empty(); }
  std::vector<uint64_t> addresses(std::string_view file, unsigned line, unsigned* used_line) const;
  std::optional<std::string> source_of(uint64_t addr) const;

 private:
  struct Range {  // [begin, end) belongs to files_[file]:line
    uint64_t begin, end;
    uint32_t file, line;
  };
  struct FileLines {
    std::string path;                                 // as DWARF names it, under DW_AT_comp_dir when relative
    std::vector<std::string> components;              // path_components(path)
    std::map<unsigned, std::vector<uint64_t>> runs;   // line -> start of each statement run
  };
  class Builder;

  std::vector<FileLines> files_;
  std::vector<Range> ranges_;  // sorted by begin
};

// Path components of `path` without empty and "." components, each ".." resolved lexically
// (symbolic links not followed): "/w/b/t/f/../../../src/x.c" is {"w", "src", "x.c"}. A
// compiler given a relative source path ("gcc -c ../../../src/x.c" in /w/b/t/f, or any compile
// through ccache's base_dir) records it relative to DW_AT_comp_dir, the directory it ran in: the
// line table joins the two, and resolved they end with the file's whole absolute path.
std::vector<std::string> path_components(std::string_view path);

}  // namespace roofprof::symbolizer
