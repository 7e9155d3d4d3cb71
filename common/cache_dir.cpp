#include "common/cache_dir.hpp"

#include <cstdlib>

namespace roofprof {

std::filesystem::path default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "roofprof";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache" / "roofprof";
  return {};
}

}  // namespace roofprof
