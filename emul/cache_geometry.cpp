#include "emul/cache_geometry.hpp"

#include <algorithm>
#include <charconv>

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
  std::vector<CacheInfo> levels;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    auto bad = [&] {
      return UserError(fmt::format("cache geometry '{}': expected L<n>=SIZE:WAYS:LINE, e.g. L1=32K:8:64", item));
    };
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) throw bad();
    std::string_view name = item.substr(0, eq);
    if (name != fmt::format("L{}", levels.size() + 1)) throw bad();
    std::string_view spec = item.substr(eq + 1);
    size_t c1 = spec.find(':'), c2 = c1 == std::string_view::npos ? c1 : spec.find(':', c1 + 1);
    if (c2 == std::string_view::npos) throw bad();
    CacheInfo l;
    l.level = int(levels.size()) + 1;
    l.size = parse_cache_size(spec.substr(0, c1));
    l.ways = parse_cache_size(spec.substr(c1 + 1, c2 - c1 - 1));
    l.line = parse_cache_size(spec.substr(c2 + 1));
    if (l.size == 0 || l.ways == 0 || l.line == 0) throw bad();
    levels.push_back(l);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  check_cache_geometry(levels);
  return levels;
}

std::vector<CacheInfo> cpuid_cache_geometry() {
  std::vector<CacheInfo> levels;
  for (CacheInfo c : cpuid_caches()) {
    if (c.level != int(levels.size()) + 1 || !c.size || !c.line) break;
    if (c.ways == kFullyAssociative) c.ways = c.size / c.line;
    if (c.ways == 0) c.ways = kAssumedWays;
    levels.push_back(c);
  }
  return levels;
}

std::vector<CacheInfo> host_cache_geometry(const std::string& root) {
  std::vector<CacheInfo> levels;
  for (const CacheInfo& c : sysfs_caches(root))  // by level: the first one described fully
    if (c.level == int(levels.size()) + 1 && c.line && c.ways) levels.push_back(c);
  if (levels.empty() && root == kSysfsCacheRoot) levels = cpuid_cache_geometry();
  if (levels.empty())
    throw UserError(fmt::format("cannot read the cache geometry from {}; give it explicitly, e.g. "
                                "L1=32K:8:64,L2=1M:16:64,L3=32M:16:64", root));
  check_cache_geometry(levels);
  return levels;
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
