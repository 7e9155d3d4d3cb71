#include "common/cache_info.hpp"

#include <cpuid.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "common/error.hpp"

namespace roofprof {
namespace {

struct Regs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};

Regs cpuid(unsigned leaf, unsigned sub = 0) {
  Regs r;
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
  return r;
}

std::string vendor() {
  Regs r = cpuid(0);
  char v[13] = {};
  std::memcpy(v, &r.b, 4);
  std::memcpy(v + 4, &r.d, 4);
  std::memcpy(v + 8, &r.c, 4);
  return v;
}

// Leaf 4 and leaf 0x8000001D share one layout: EAX[4:0] type (1 data, 2 instruction, 3
// unified), EAX[7:5] level, EAX[25:14] threads sharing - 1; EBX[11:0] line - 1, EBX[21:12]
// partitions - 1, EBX[31:22] ways - 1; ECX sets - 1; EDX[1] inclusive of lower levels.
std::vector<CacheInfo> deterministic(unsigned leaf) {
  std::vector<CacheInfo> out;
  for (unsigned i = 0; i < 16; ++i) {
    Regs r = cpuid(leaf, i);
    const unsigned type = r.a & 0x1f;
    if (type == 0) break;
    if (type == 2) continue;
    CacheInfo c;
    c.level = int((r.a >> 5) & 7);
    c.line = (r.b & 0xfff) + 1;
    c.ways = ((r.b >> 22) & 0x3ff) + 1;
    const uint64_t partitions = ((r.b >> 12) & 0x3ff) + 1;
    c.size = c.ways * partitions * c.line * (uint64_t(r.c) + 1);
    c.shared_by_cpus = int(((r.a >> 14) & 0xfff) + 1);
    c.inclusive = ((r.d >> 1) & 1) != 0;
    out.push_back(c);
  }
  return out;
}

std::vector<CacheInfo> amd_legacy() {
  std::vector<CacheInfo> out;
  if (cpuid(0x80000000).a < 0x80000006) return out;
  Regs l1 = cpuid(0x80000005);
  if (l1.c >> 24) {
    // ECX: size in KiB [31:24], associativity [23:16] (0xff: full), line [7:0].
    const unsigned assoc = (l1.c >> 16) & 0xff;
    out.push_back(
        {1, uint64_t(l1.c >> 24) << 10, assoc == 0xff ? kFullyAssociative : assoc, l1.c & 0xff, 0, std::nullopt});
  }
  Regs l23 = cpuid(0x80000006);
  if (l23.c >> 16)
    out.push_back(
        {2, uint64_t(l23.c >> 16) << 10, amd_legacy_ways((l23.c >> 12) & 0xf), l23.c & 0xff, 0, std::nullopt});
  // EDX: L3 size in 512 KiB units [31:18], associativity code [15:12], line [7:0].
  if (l23.d >> 18)
    out.push_back(
        {3, uint64_t(l23.d >> 18) << 19, amd_legacy_ways((l23.d >> 12) & 0xf), l23.d & 0xff, 0, std::nullopt});
  return out;
}

std::string read_line(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  return s;
}

// "12" -> 12; false when not a whole number.
bool to_int(std::string_view s, int& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

// "0-1,4,6-7" -> number of CPUs; 0 when malformed.
int count_cpu_list(std::string_view list) {
  int n = 0;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view part = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (part.empty()) continue;
    const size_t dash = part.find('-');
    int lo = 0;
    if (!to_int(part.substr(0, dash), lo)) return 0;
    int hi = lo;
    if (dash != std::string_view::npos && (!to_int(part.substr(dash + 1), hi) || hi < lo)) return 0;
    n += hi - lo + 1;
  }
  return n;
}

}  // namespace

uint64_t parse_cache_size(std::string_view s) {
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

std::vector<CacheInfo> sysfs_caches(const std::string& root) {
  namespace fs = std::filesystem;
  std::vector<std::pair<int, CacheInfo>> found;  // index number, cache
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    int index = 0;
    if (name.rfind("index", 0) != 0 || !to_int(std::string_view(name).substr(5), index)) continue;
    const std::string type = read_line(entry.path() / "type");
    if (type != "Data" && type != "Unified") continue;
    CacheInfo c;
    if (!to_int(read_line(entry.path() / "level"), c.level)) continue;
    c.size = parse_cache_size(read_line(entry.path() / "size"));
    c.line = parse_cache_size(read_line(entry.path() / "coherency_line_size"));
    c.ways = parse_cache_size(read_line(entry.path() / "ways_of_associativity"));
    const uint64_t sets = parse_cache_size(read_line(entry.path() / "number_of_sets"));
    if (c.ways == 0 && sets && c.line) c.ways = c.size / (sets * c.line);
    c.shared_by_cpus = count_cpu_list(read_line(entry.path() / "shared_cpu_list"));
    if (c.level >= 1 && c.size > 0) found.emplace_back(index, c);
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a.second.level, a.first) < std::make_pair(b.second.level, b.first);
  });
  std::vector<CacheInfo> out;
  for (const auto& [index, c] : found) out.push_back(c);
  return out;
}

uint64_t amd_legacy_ways(unsigned code) {
  switch (code) {
    case 0x1: return 1;
    case 0x2: return 2;
    case 0x3: return 3;
    case 0x4: return 4;
    case 0x5: return 6;
    case 0x6: return 8;
    case 0x8: return 16;
    case 0xa: return 32;
    case 0xb: return 48;
    case 0xc: return 64;
    case 0xd: return 96;
    case 0xe: return 128;
    case 0xf: return kFullyAssociative;
    default: return 0;  // 0: disabled; 9: see Fn8000_001D; 7: reserved
  }
}

std::vector<CacheInfo> parse_cache_levels(std::string_view text) {
  std::vector<CacheInfo> levels;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    auto bad = [&] {
      return UserError(fmt::format(
          "cache geometry '{}': expected L<n>=SIZE:WAYS:LINE or L<n>=SIZE/WAYS[/LINE], e.g. L1=32K:8:64 or L1=32K/8",
          item));
    };
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) throw bad();
    if (item.substr(0, eq) != fmt::format("L{}", levels.size() + 1)) throw bad();
    std::string_view spec = item.substr(eq + 1);
    const char sep = spec.find('/') != std::string_view::npos ? '/' : ':';
    if (sep == '/' && spec.find(':') != std::string_view::npos) throw bad();  // one separator per level
    const size_t c1 = spec.find(sep), c2 = c1 == std::string_view::npos ? c1 : spec.find(sep, c1 + 1);
    if (c1 == std::string_view::npos || (c2 == std::string_view::npos && sep == ':')) throw bad();
    if (c2 != std::string_view::npos && spec.find(sep, c2 + 1) != std::string_view::npos) throw bad();
    CacheInfo l;
    l.level = int(levels.size()) + 1;
    l.size = parse_cache_size(spec.substr(0, c1));
    l.ways = parse_cache_size(spec.substr(c1 + 1, c2 == std::string_view::npos ? c2 : c2 - c1 - 1));
    l.line = c2 == std::string_view::npos ? kDefaultCacheLine : parse_cache_size(spec.substr(c2 + 1));
    if (l.size == 0 || l.ways == 0 || l.line == 0) throw bad();
    levels.push_back(l);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return levels;
}

CacheSpec parse_cache_spec(std::string_view text) {
  CacheSpec spec;
  const size_t comma = text.rfind(',');
  const std::string_view last = comma == std::string_view::npos ? text : text.substr(comma + 1);
  if (last == "inclusive" || last == "non-inclusive") {
    spec.last_inclusive = last == "inclusive";
    text = comma == std::string_view::npos ? std::string_view() : text.substr(0, comma);
  }
  spec.levels = parse_cache_levels(text);
  return spec;
}

HostCaches host_caches_from_text(std::string_view text) {
  CacheSpec spec = parse_cache_spec(text);
  HostCaches h;
  h.sysfs = std::move(spec.levels);
  h.sysfs.back().inclusive = spec.last_inclusive;
  h.cpuid = h.sysfs;
  h.replaced = true;
  return h;
}

bool host_caches_honoured() {
#ifdef ROOFPROF_TEST_SEAMS
  return true;
#else
  return false;
#endif
}

HostCaches host_caches() {
  const char* text = std::getenv(kHostCachesVariable);
  if (text && *text) {
    if (host_caches_honoured()) {
      try {
        return host_caches_from_text(text);
      } catch (const UserError& e) {
        throw UserError(fmt::format("{}: {}", kHostCachesVariable, e.what()));
      }
    }
    static std::atomic<bool> noted{false};
    if (!noted.exchange(true))
      std::fprintf(stderr, "roofprof: %s ignored: this build has no test seams\n", kHostCachesVariable);
  }
  return HostCaches{sysfs_caches(), cpuid_caches(), false};
}

std::vector<CacheInfo> cpuid_caches() {
  const std::string v = vendor();
  std::vector<CacheInfo> out;
  if (v == "GenuineIntel" && cpuid(0).a >= 4) out = deterministic(4);
  const bool amd = v == "AuthenticAMD" || v == "HygonGenuine";
  if (out.empty() && amd && cpuid(0x80000000).a >= 0x8000001D && ((cpuid(0x80000001).c >> 22) & 1))
    out = deterministic(0x8000001D);
  if (out.empty() && amd) out = amd_legacy();
  std::sort(out.begin(), out.end(), [](const CacheInfo& a, const CacheInfo& b) { return a.level < b.level; });
  return out;
}

}  // namespace roofprof
