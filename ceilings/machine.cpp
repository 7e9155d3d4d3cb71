#include "ceilings/machine.hpp"

#include <cpuid.h>
#include <sched.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include "common/cache_info.hpp"
#include "common/error.hpp"

namespace roofprof::ceilings {
namespace {

std::string read_first_line(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  return line;
}

// Value of the first "key : value" line of /proc/cpuinfo with this key.
std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    while (!k.empty() && (k.back() == ' ' || k.back() == '\t')) k.pop_back();
    if (k != key) continue;
    std::string v = line.substr(colon + 1);
    if (!v.empty() && v.front() == ' ') v.erase(0, 1);
    return v;
  }
  return {};
}

std::string cpuid_brand() {
  unsigned regs[12] = {};
  for (unsigned i = 0; i < 3; ++i)
    if (!__get_cpuid(0x80000002 + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2],
                     &regs[4 * i + 3]))
      return {};
  char s[49] = {};
  std::memcpy(s, regs, 48);
  std::string b(s);
  while (!b.empty() && b.back() == ' ') b.pop_back();
  return b;
}

}  // namespace

MachineId current_machine() {
  MachineId m;
  m.cpu_model = cpuinfo_field("model name");
  if (m.cpu_model.empty()) m.cpu_model = cpuid_brand();
  m.cores = int(allowed_cpus().size());
  utsname u{};
  if (uname(&u) == 0) m.kernel = u.release;
  m.microcode = cpuinfo_field("microcode");
  return m;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return {0};
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

int physical_cores(const std::vector<int>& cpus) {
  std::set<std::pair<std::string, std::string>> cores;
  int unknown = 0;
  for (int c : cpus) {
    const std::filesystem::path t =
        "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology";
    std::string core = read_first_line(t / "core_id");
    std::string pkg = read_first_line(t / "physical_package_id");
    if (core.empty()) ++unknown;
    else cores.emplace(pkg, core);
  }
  return int(cores.size()) + unknown;
}

std::vector<CacheInfo> cache_geometry() {
  auto usable = [](std::vector<CacheInfo> caches) {
    std::vector<CacheInfo> out;
    for (CacheInfo& c : caches) {
      if (c.level < 1 || c.level > 3 || c.size == 0) continue;
      if (c.line == 0) c.line = 64;
      if (c.shared_by_cpus == 0) c.shared_by_cpus = 1;
      c.ways = 0;  // not recorded
      out.push_back(c);
    }
    return out;
  };
  const HostCaches host = host_caches();  // ROOFPROF_HOST_CACHES in a test build: another host's
  std::vector<CacheInfo> out = usable(host.sysfs);
  if (out.empty()) out = usable(host.cpuid);  // a kernel without cacheinfo (some VMs)
  if (out.empty())
    throw UserError(std::string("cannot read the cache geometry from ") + kSysfsCacheRoot +
                    " or CPUID (is /sys mounted?)");
  return out;
}

bool supports(Isa isa) {
  __builtin_cpu_init();
  switch (isa) {
    case Isa::scalar:
    case Isa::sse: return __builtin_cpu_supports("sse2");
    case Isa::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::avx512: return __builtin_cpu_supports("avx512f");
  }
  return false;
}

bool supports_fma(Isa isa) {
  __builtin_cpu_init();
  if (isa == Isa::scalar || isa == Isa::sse)
    return __builtin_cpu_supports("avx") && __builtin_cpu_supports("fma");
  return supports(isa);
}

std::vector<Isa> supported_isas() {
  std::vector<Isa> out;
  for (Isa i : {Isa::scalar, Isa::sse, Isa::avx2, Isa::avx512})
    if (supports(i)) out.push_back(i);
  return out;
}

CpuSignature cpu_signature() {
  CpuSignature s;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d)) {
    char v[13] = {};
    std::memcpy(v, &b, 4);
    std::memcpy(v + 4, &d, 4);
    std::memcpy(v + 8, &c, 4);
    s.vendor = v;
  }
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    unsigned fam = (a >> 8) & 0xF, mod = (a >> 4) & 0xF;
    unsigned ext_fam = (a >> 20) & 0xFF, ext_mod = (a >> 16) & 0xF;
    s.family = fam == 0xF ? fam + ext_fam : fam;
    s.model = (fam == 0xF || fam == 0x6) ? (ext_mod << 4) | mod : mod;
  }
  if (__get_cpuid(0x80000007, &a, &b, &c, &d)) s.invariant_tsc = (d >> 8) & 1;
  return s;
}

}  // namespace roofprof::ceilings
