#pragma once
// Inlined copies of functions: the DWARF DW_TAG_inlined_subroutine entries of a file (DWARF 5,
// section 3.3.8.2), each with the inlined function's names, its code's address ranges and the
// call site, and the edges by which control enters and leaves a copy's code. A function region
// covers its inlined copies as spans: opened where control enters the copy's code from outside,
// closed where it leaves (docs/methodology.md, "Inlined functions").
#include <libelf.h>

#include <cstdint>
#include <string>
#include <vector>

#include "symbolizer/elf_file.hpp"
#include "symbolizer/line_table.hpp"

namespace roofprof::symbolizer {

struct InlinedCopy {
  Symbol origin;                     // the inlined function's names (value and size 0)
  std::vector<AddressRange> ranges;  // link-time [begin, end) of the copy's code
  std::string call_site;             // "file.c:42", where it was inlined ("" when unknown)
};

// Every inlined copy described by the DWARF of `elf` (none without DWARF). Copies nested in
// other copies are listed too.
std::vector<InlinedCopy> read_inlined(Elf* elf);

struct CopyEdges {
  std::vector<uint64_t> entries;  // addresses outside code jumps or falls to, inside the copy
  std::vector<uint64_t> exits;    // addresses outside the copy that its code jumps or falls to
  std::string why_not;            // non-empty: the copy cannot be measured this way, and why
};

struct CodeBlock {  // the bytes of one function that holds part of a copy
  uint64_t begin = 0;  // link-time address of code[0]
  const uint8_t* code = nullptr;
  size_t size = 0;
};

// The edges of a copy with `ranges` within the functions that hold it (a function and its
// .cold fragment, say), decoded with Capstone. A copy that returns or jumps through a register
// from inside its code cannot be delimited (why_not says which); a call from inside does not
// leave it (the callee runs inside the copy's time).
CopyEdges copy_edges(const std::vector<AddressRange>& ranges, const std::vector<CodeBlock>& blocks);

}  // namespace roofprof::symbolizer
