#pragma once
// The functions a module's unwind table (.eh_frame, through the .eh_frame_hdr search table that
// PT_GNU_EH_FRAME points at) describes: every function the compiler emitted call-frame
// information for, static ones included, with their exact extent, whether or not a symbol names
// them (a library stripped to its dynamic symbols keeps its unwind table: exceptions and
// backtraces need it). Native counting decodes these as functions (docs/native.md).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace roofprof::native {

struct CodeExtent {
  uint64_t start = 0, size = 0;  // link-time addresses
};

// `file`: the module's file, whole. Empty when it has no PT_GNU_EH_FRAME or its table is not one
// this reads (a table whose entries are not 4-byte offsets from the header: gcc and clang write
// those); never throws.
std::vector<CodeExtent> unwind_ranges(std::span<const uint8_t> file);

// The link-time address of the file's PT_GNU_EH_FRAME segment (.eh_frame_hdr), for
// landing_pads(); nullopt when it has none.
std::optional<uint64_t> eh_frame_hdr_address(std::span<const uint8_t> file);

}  // namespace roofprof::native
