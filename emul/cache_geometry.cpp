#include "emul/cache_geometry.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace roofprof::emul {
namespace {

std::string size_text(uint64_t b) {
  if (b % (1ull << 30) == 0) return fmt::format("{}G", b >> 30);
  if (b % (1ull << 20) == 0) return fmt::format("{}M", b >> 20);
  if (b % (1ull << 10) == 0) return fmt::format("{}K", b >> 10);
  return fmt::format("{}", b);
}

}  // namespace

void check_cache_geometry(const std::vector<CacheInfo>& levels) {
  if (levels.empty() || levels.size() > 4) throw UserError("cache geometry: give 1 to 4 levels, L1 first");
  for (size_t i = 0; i < levels.size(); ++i) {
    const auto& l = levels[i];
    if (l.line == 0 || (l.line & (l.line - 1)) != 0)
      throw UserError(fmt::format("cache geometry: L{} line size {} is not a power of two", i + 1, l.line));
    if (l.line != levels[0].line) throw UserError("cache geometry: all levels need the same line size");
    if (l.ways == 0 || l.size == 0 || l.size % (l.ways * l.line) != 0)
      throw UserError(fmt::format("cache geometry: L{} size {} is not a multiple of ways * line ({} * {})", i + 1,
                                  l.size, l.ways, l.line));
  }
}

std::vector<CacheInfo> simulated_hierarchy(std::vector<CacheInfo> levels, std::optional<bool> asked, bool host,
                                           const std::vector<CacheInfo>& described) {
  if (levels.empty()) return levels;
  bool inclusive = true;
  if (asked) {
    inclusive = *asked;
  } else if (host) {
    for (const CacheInfo& c : described)
      if (c.level == levels.back().level && c.inclusive) inclusive = *c.inclusive;
  }
  if (!inclusive && levels.size() < 2)
    throw UserError("a non-inclusive last cache level needs a level above it: simulate two levels or more");
  for (size_t i = 0; i < levels.size(); ++i) levels[i].inclusive = i == 0 ? std::nullopt : std::optional<bool>(true);
  levels.back().inclusive = levels.size() > 1 ? std::optional<bool>(inclusive) : std::nullopt;
  return levels;
}

std::vector<CacheInfo> parse_cache_geometry(std::string_view text) {
  std::vector<CacheInfo> levels = parse_cache_levels(text);
  check_cache_geometry(levels);
  return levels;
}

std::vector<CacheInfo> cpuid_cache_geometry(const std::vector<CacheInfo>& described) {
  std::vector<CacheInfo> levels;
  for (CacheInfo c : described) {
    if (c.level != int(levels.size()) + 1 || !c.size || !c.line) break;
    if (c.ways == kFullyAssociative) c.ways = c.size / c.line;
    if (c.ways == 0) c.ways = kAssumedWays;
    levels.push_back(c);
  }
  return levels;
}

std::vector<CacheInfo> host_cache_geometry(const std::string& root) {
  const bool host = root == kSysfsCacheRoot;
  const HostCaches h = host ? host_caches() : HostCaches{sysfs_caches(root), {}, false};
  std::vector<CacheInfo> levels;
  for (const CacheInfo& c : h.sysfs)  // by level: the first one described fully
    if (c.level == int(levels.size()) + 1 && c.line && c.ways) levels.push_back(c);
  if (levels.empty() && host) levels = cpuid_cache_geometry(h.cpuid);
  if (levels.empty())
    throw UserError(fmt::format("cannot read the cache geometry from {}; give it explicitly (--cache-geometry), "
                                "e.g. L1=32K:8:64,L2=1M:16:64,L3=32M:16:64", root));
  try {
    check_cache_geometry(levels);
  } catch (const UserError& e) {
    if (!h.replaced) throw;
    throw UserError(fmt::format("{}: {}", kHostCachesVariable, e.what()));  // what to fix is the variable
  }
  return levels;
}

std::optional<std::string> implausible_last_level(const std::vector<CacheInfo>& reported) {
  if (reported.empty() || reported.back().size <= kPlausibleLastLevel) return std::nullopt;
  return fmt::format("the host reports a {} L{}, more than the {} one core can fill on AMD (its CCD's L3), and a VM "
                     "may report its host's whole socket: data between the real last level and that size is simulated as hits, "
                     "not DRAM traffic; give the geometry (run --cache L1=48K/12,L2=1M/8,L3=32M/16) or measure it "
                     "(roofprof ceilings: run then simulates the measured hierarchy)",
                     size_text(reported.back().size), reported.back().level, size_text(kPlausibleLastLevel));
}

std::string to_string(const std::vector<CacheInfo>& levels) {
  std::string s;
  for (size_t i = 0; i < levels.size(); ++i) {
    if (i) s += ',';
    s += fmt::format("L{}={}:{}:{}", i + 1, size_text(levels[i].size), levels[i].ways, size_text(levels[i].line));
  }
  return s;
}

}  // namespace roofprof::emul
