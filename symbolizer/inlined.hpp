#pragma once
// Inlined copies of functions: the DWARF DW_TAG_inlined_subroutine entries of a file (DWARF 5,
// section 3.3.8.2), each with the inlined function's names, its code's address ranges and the
// call site, and the edges by which control enters and leaves a copy's code. A function region
// covers its inlined copies: a call of a copy is control reaching its entry point from outside
// its code; the instance closes where control leaves the code, and control coming back into the
// code elsewhere (a re-entry) continues the last call without being a new one
// (docs/methodology.md, "Inlined copies").
#include <libelf.h>

#include <cstdint>
#include <string>
#include <vector>

#include "symbolizer/elf_file.hpp"
#include "symbolizer/line_table.hpp"

namespace roofprof::symbolizer {

struct InlinedCopy {
  Symbol origin;                     // the inlined function's names (value and size 0)
  std::vector<AddressRange> ranges;  // link-time [begin, end) of the copy's code, sorted
  // Its entry point (DWARF 5 section 2.18): DW_AT_entry_pc, else DW_AT_low_pc, else the lowest
  // address of the first range DW_AT_ranges lists. gcc may put it just before the code (an empty
  // range there): the bytes from it to the next range lead into the copy.
  uint64_t entry = 0;
  std::string call_site;             // "file.c:42", where it was inlined ("" when unknown)
};

// Every inlined copy described by the DWARF of `elf` (none without DWARF). Copies nested in
// other copies are listed too.
std::vector<InlinedCopy> read_inlined(Elf* elf);

struct CopyEdges {
  uint64_t entry = 0;               // the copy's entry point: reaching it from outside is a call
  std::vector<uint64_t> reentries;  // other addresses in the copy that code outside jumps or falls to
  std::vector<uint64_t> exits;      // addresses outside the copy that its code jumps or falls to
  bool entry_looped = false;        // its own code jumps back to its entry point (a loop's head)
  std::string why_not;            // non-empty: the copy cannot be measured this way, and why
};

struct CodeBlock {  // the bytes of one function that holds part of a copy
  uint64_t begin = 0;  // link-time address of code[0]
  const uint8_t* code = nullptr;
  size_t size = 0;
};

// The edges of a copy with `ranges` and entry point `entry` within the functions that hold it (a
// function and its .cold fragment, say), decoded with Capstone. A copy that returns or jumps
// through a register from inside its code cannot be delimited (why_not says which); a call from
// inside does not leave it (the callee runs inside the copy's time). When `entry` lies before
// the copy's code (outside its ranges), the instructions from it up to the next range belong to
// the way in: falling from them into the copy is no re-entry.
CopyEdges copy_edges(const std::vector<AddressRange>& ranges, uint64_t entry, const std::vector<CodeBlock>& blocks);

}  // namespace roofprof::symbolizer
