#pragma once
// --cache-geometry (run, survey, selftest): the hierarchy the emulated run simulates, given
// explicitly instead of the host's (docs/emulation.md, "Cache simulation").
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/cache_info.hpp"

namespace roofprof::cli {

// Adds --cache-geometry to `sub`, bound to `text`; `extra` ends its help line.
CLI::Option* add_cache_geometry_option(CLI::App& sub, std::string& text, const std::string& extra = "");

// The levels `text` gives (emul::parse_cache_geometry: what the simulator can model); {} for "".
// Throws UserError naming the option.
std::vector<CacheInfo> cache_geometry_option(const std::string& text);

}  // namespace roofprof::cli
