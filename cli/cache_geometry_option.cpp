#include "cli/cache_geometry_option.hpp"

#include "common/error.hpp"
#include "emul/cache_geometry.hpp"

namespace roofprof::cli {

CLI::Option* add_cache_geometry_option(CLI::App& sub, std::string& text, const std::string& extra) {
  return sub.add_option("--cache-geometry", text,
                        "emulation: simulate this hierarchy instead of the host's caches, L1 first, each level "
                        "SIZE:WAYS:LINE, e.g. L1=48K:12:64,L2=1M:16:64,L3=32M:16:64 (docs/emulation.md)" +
                            extra);
}

std::vector<CacheInfo> cache_geometry_option(const std::string& text) {
  if (text.empty()) return {};
  try {
    return emul::parse_cache_geometry(text);
  } catch (const UserError& e) {
    throw UserError(std::string("--cache-geometry: ") + e.what());
  }
}

}  // namespace roofprof::cli
