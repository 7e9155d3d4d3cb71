#include "emul/cache_geometry.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "common/cpuid_caches.hpp"
#include "common/error.hpp"

namespace roofprof::emul {
namespace {

// "48K", "1M", "32768K", "64": bytes; 0 when malformed.
uint64_t parse_size(std::string_view s) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data()) return 0;
  std::string_view rest(p, size_t(s.data() + s.size() - p));
  if (rest.empty() || rest == "B") return v;
  if (rest == "K" || rest == "k" || rest == "KB" || rest == "KiB") return v << 10;
  if (rest == "M" || rest == "MB" || rest == "MiB") return v << 20;
  if (rest == "G" || rest == "GB" || rest == "GiB") return v << 30;
  return 0;
}

std::string read_line(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  return s;
}

std::string size_text(uint64_t b) {
  if (b % (1ull << 30) == 0) return fmt::format("{}G", b >> 30);
  if (b % (1ull << 20) == 0) return fmt::format("{}M", b >> 20);
  if (b % (1ull << 10) == 0) return fmt::format("{}K", b >> 10);
  return fmt::format("{}", b);
}

}  // namespace

void check_cache_geometry(const std::vector<CacheLevel>& levels) {
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

std::vector<CacheLevel> parse_cache_geometry(std::string_view text) {
  std::vector<CacheLevel> levels;
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
    CacheLevel l{parse_size(spec.substr(0, c1)), parse_size(spec.substr(c1 + 1, c2 - c1 - 1)),
                 parse_size(spec.substr(c2 + 1))};
    if (l.size == 0 || l.ways == 0 || l.line == 0) throw bad();
    levels.push_back(l);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  check_cache_geometry(levels);
  return levels;
}

std::vector<CacheLevel> cpuid_cache_geometry() {
  std::vector<CacheLevel> levels;
  for (const CpuidCache& c : cpuid_caches()) {
    if (c.level != int(levels.size()) + 1 || !c.size || !c.line) break;
    CacheLevel l{c.size, c.ways, c.line};
    if (c.ways == std::numeric_limits<uint64_t>::max()) l.ways = c.size / c.line;  // fully associative
    if (c.ways == 0) l.ways = kAssumedWays;
    levels.push_back(l);
  }
  return levels;
}

std::vector<CacheLevel> host_cache_geometry(const std::string& root) {
  namespace fs = std::filesystem;
  std::map<int, CacheLevel> by_level;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    std::string type = read_line(entry.path() / "type");
    if (type != "Data" && type != "Unified") continue;
    int level = std::atoi(read_line(entry.path() / "level").c_str());
    CacheLevel l;
    l.size = parse_size(read_line(entry.path() / "size"));
    l.line = parse_size(read_line(entry.path() / "coherency_line_size"));
    l.ways = parse_size(read_line(entry.path() / "ways_of_associativity"));
    uint64_t sets = parse_size(read_line(entry.path() / "number_of_sets"));
    if (l.ways == 0 && sets && l.line) l.ways = l.size / (sets * l.line);
    if (level >= 1 && l.size && l.line && l.ways) by_level[level] = l;
  }
  std::vector<CacheLevel> levels;
  for (int k = 1; by_level.count(k); ++k) levels.push_back(by_level[k]);
  if (levels.empty() && root == kSysfsCacheRoot) levels = cpuid_cache_geometry();
  if (levels.empty())
    throw UserError(fmt::format("cannot read the cache geometry from {}; give it explicitly, e.g. "
                                "L1=32K:8:64,L2=1M:16:64,L3=32M:16:64", root));
  check_cache_geometry(levels);
  return levels;
}

std::string to_string(const std::vector<CacheLevel>& levels) {
  std::string s;
  for (size_t i = 0; i < levels.size(); ++i) {
    if (i) s += ',';
    s += fmt::format("L{}={}:{}:{}", i + 1, size_text(levels[i].size), levels[i].ways, size_text(levels[i].line));
  }
  return s;
}

}  // namespace roofprof::emul
