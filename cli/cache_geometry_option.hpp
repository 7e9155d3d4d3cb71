#pragma once
// --cache (alias --cache-geometry; run, survey, selftest): the hierarchy the emulated run
// simulates, given explicitly instead of the host's (docs/emulation.md, "Cache simulation"):
// L1=48K/12,L2=1M/8,L3=32M/16[,inclusive|,non-inclusive] or L1=48K:12:64,..., or a file that
// holds that text.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/cache_info.hpp"

namespace roofprof::cli {

// Adds --cache (and its older name --cache-geometry) to `sub`, bound to `text`; `extra` ends its
// help line.
CLI::Option* add_cache_geometry_option(CLI::App& sub, std::string& text, const std::string& extra = "");

// What `text` gives: inline text (it has a '='), else the name of a file holding that text (lines
// and spaces count as commas, '#' starts a comment). Levels the simulator can model
// (emul::check_cache_geometry) and the last level's inclusion when the text says it; {} for "".
// Throws UserError naming the option.
CacheSpec cache_option(const std::string& text);

// cache_option's levels, for a command that has no use for the last level's inclusion: its
// UserError when the text gives one.
std::vector<CacheInfo> cache_geometry_option(const std::string& text);

// The last level's inclusion from --cache's item and --cache-last-level (`flag`: host, inclusive
// or non-inclusive): null for "as the host's"; UserError when the two disagree.
std::optional<bool> last_level_inclusion(const CacheSpec& given, const std::string& flag);

}  // namespace roofprof::cli
