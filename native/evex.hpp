#pragma once
// EVEX (AVX-512) instructions decoded from their bytes: Capstone 4 does not decode all of them
// (masked scalar FMA, embedded rounding, VSCALEF, VRANGE, VGETEXP, ...), so every EVEX
// instruction takes this path (docs/native.md, "Decoding").
#include <cstddef>
#include <cstdint>
#include <optional>

#include "native/decode.hpp"

namespace roofprof::native {

// nullopt when code[0..avail) does not start with an EVEX instruction (after legacy prefixes)
// or is cut short.
std::optional<Insn> decode_evex(const uint8_t* code, size_t avail, uint64_t at);

}  // namespace roofprof::native
