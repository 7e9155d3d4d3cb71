#pragma once
// C++ exception landing pads of a module (docs/native.md, "Sites"), and the extents of its
// functions, from its unwind table. The unwinder jumps to landing pads from no branch the
// analysis sees, so they must start blocks. Read from the module's
// .eh_frame_hdr (PT_GNU_EH_FRAME), its FDEs' LSDA pointers and the call-site tables of
// .gcc_except_table; the tracer passes them to plan_module with the `busy` addresses.
#include <cstdint>
#include <span>
#include <vector>

#include "native/counting.hpp"

namespace roofprof::native {

// `mapped`: the module's loaded ranges (code and data, runtime addresses); `eh_frame_hdr`: the
// runtime address of its PT_GNU_EH_FRAME segment. Sorted, unique; empty when the header is not
// in `mapped` or uses an encoding this reader does not know (it then reads nothing rather than
// guessing).
std::vector<uint64_t> landing_pads(std::span<const CodeRange> mapped, uint64_t eh_frame_hdr);

// The functions the same unwind table describes (every FDE's extent, runtime addresses),
// whether or not a symbol names them: a library stripped to its dynamic symbols keeps its
// static functions there (docs/native.md, "In a run"). Same arguments and failure rule.
struct CodeExtent {
  uint64_t start = 0, size = 0;
};
std::vector<CodeExtent> unwind_ranges(std::span<const CodeRange> mapped, uint64_t eh_frame_hdr);

}  // namespace roofprof::native
