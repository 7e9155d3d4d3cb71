#pragma once
// Where a module's unwind table starts: the link-time address of its PT_GNU_EH_FRAME segment
// (.eh_frame_hdr), read from the file's program headers, for landing_pads() and
// unwind_ranges() (native/landing_pads.hpp), which read the table as mapped.
#include <cstdint>
#include <optional>
#include <span>

namespace roofprof::native {

// `file`: the module's file, whole; nullopt when it is not a 64-bit ELF file or has no
// PT_GNU_EH_FRAME.
std::optional<uint64_t> eh_frame_hdr_address(std::span<const uint8_t> file);

}  // namespace roofprof::native
