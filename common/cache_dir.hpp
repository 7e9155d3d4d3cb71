#pragma once
// roofprof's per-user cache directory: $XDG_CACHE_HOME/roofprof, else $HOME/.cache/roofprof;
// empty when neither variable is set (nothing is cached then). The ceilings cache and native
// counting's module plans live there.
#include <filesystem>

namespace roofprof {

std::filesystem::path default_cache_dir();

}  // namespace roofprof
