#pragma once
// A module's bytes by runtime address, and addresses in messages: shared by plan_module, emit
// and landing_pads.
#include <cstdint>
#include <span>
#include <string>

#include "native/counting.hpp"

namespace roofprof::native {

// The `size` bytes at `at` when one range holds them all, else nullptr.
const uint8_t* find_bytes(std::span<const CodeRange> ranges, uint64_t at, uint64_t size);
std::string hex(uint64_t v);  // "0x1a2b"

}  // namespace roofprof::native
