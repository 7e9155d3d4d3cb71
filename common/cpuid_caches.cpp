#include "common/cpuid_caches.hpp"

#include <cpuid.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

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
// partitions - 1, EBX[31:22] ways - 1; ECX sets - 1.
std::vector<CpuidCache> deterministic(unsigned leaf) {
  std::vector<CpuidCache> out;
  for (unsigned i = 0; i < 16; ++i) {
    Regs r = cpuid(leaf, i);
    const unsigned type = r.a & 0x1f;
    if (type == 0) break;
    if (type == 2) continue;
    CpuidCache c;
    c.level = int((r.a >> 5) & 7);
    c.line = (r.b & 0xfff) + 1;
    c.ways = ((r.b >> 22) & 0x3ff) + 1;
    const uint64_t partitions = ((r.b >> 12) & 0x3ff) + 1;
    c.size = c.ways * partitions * c.line * (uint64_t(r.c) + 1);
    c.shared_by_threads = int(((r.a >> 14) & 0xfff) + 1);
    out.push_back(c);
  }
  return out;
}

std::vector<CpuidCache> amd_legacy() {
  std::vector<CpuidCache> out;
  if (cpuid(0x80000000).a < 0x80000006) return out;
  Regs l1 = cpuid(0x80000005);
  if (l1.c >> 24) {
    // ECX: size in KiB [31:24], associativity [23:16] (0xff: full), line [7:0].
    const unsigned assoc = (l1.c >> 16) & 0xff;
    out.push_back({1, uint64_t(l1.c >> 24) << 10, assoc == 0xff ? std::numeric_limits<uint64_t>::max() : assoc,
                   l1.c & 0xff, 0});
  }
  Regs l23 = cpuid(0x80000006);
  if (l23.c >> 16) out.push_back({2, uint64_t(l23.c >> 16) << 10, amd_legacy_ways((l23.c >> 12) & 0xf), l23.c & 0xff, 0});
  // EDX: L3 size in 512 KiB units [31:18], associativity code [15:12], line [7:0].
  if (l23.d >> 18) out.push_back({3, uint64_t(l23.d >> 18) << 19, amd_legacy_ways((l23.d >> 12) & 0xf), l23.d & 0xff, 0});
  return out;
}

}  // namespace

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
    case 0xf: return std::numeric_limits<uint64_t>::max();
    default: return 0;  // 0: disabled; 9: see Fn8000_001D; 7: reserved
  }
}

std::vector<CpuidCache> cpuid_caches() {
  const std::string v = vendor();
  std::vector<CpuidCache> out;
  if (v == "GenuineIntel" && cpuid(0).a >= 4) out = deterministic(4);
  const bool amd = v == "AuthenticAMD" || v == "HygonGenuine";
  if (out.empty() && amd && cpuid(0x80000000).a >= 0x8000001D && ((cpuid(0x80000001).c >> 22) & 1))
    out = deterministic(0x8000001D);
  if (out.empty() && amd) out = amd_legacy();
  std::sort(out.begin(), out.end(), [](const CpuidCache& a, const CpuidCache& b) { return a.level < b.level; });
  return out;
}

}  // namespace roofprof
