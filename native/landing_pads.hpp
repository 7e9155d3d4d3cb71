#pragma once
// C++ exception landing pads of a module (docs/native.md, "Sites"): the unwinder jumps to them
// from no branch the analysis sees, so they must start blocks. Read from the module's
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

}  // namespace roofprof::native
