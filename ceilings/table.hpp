#pragma once
// The human-readable table of `roofprof ceilings`.
#include <string>

#include "ceilings/types.hpp"

namespace roofprof::ceilings {

std::string format_table(const Ceilings& c);

// "24 KiB", "1 MiB", "256 MiB".
std::string format_bytes(uint64_t bytes);

}  // namespace roofprof::ceilings
