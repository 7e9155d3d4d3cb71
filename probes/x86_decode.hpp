#pragma once
// One x86-64 instruction at a time, with Capstone's details: the one decoder of the probes
// (entry patches, probes/entry_patch.cpp) and of the tracer's out-of-line steps
// (tracer/displaced.cpp).
#include <capstone/capstone.h>

#include <cstddef>
#include <cstdint>

namespace roofprof::probes {

// The instruction at code[0..avail) (at address `at`), or nullptr when it does not decode.
// The result lives in a per-thread buffer until this thread's next call. Throws UserError
// when Capstone cannot be opened.
const cs_insn* decode_x86(const uint8_t* code, size_t avail, uint64_t at);
// Whether `insn` is in Capstone group `group` (CS_GRP_JUMP, CS_GRP_BRANCH_RELATIVE, ...).
bool in_group(const cs_insn* insn, uint8_t group);
// endbr64 (f3 0f 1e fa), which not every Capstone 4 build decodes.
bool is_endbr64(const uint8_t* code, size_t avail);

}  // namespace roofprof::probes
