#include "native/plan_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string_view>
#include <functional>
#include <tuple>
#include <vector>

namespace roofprof::native {
namespace {

constexpr char kMagic[8] = {'R', 'P', 'N', 'P', 'L', 'A', 'N', '1'};
constexpr uint64_t kMaxCacheBytes = 512ull << 20;  // OpenBLAS's plan is about 5 MiB

std::optional<std::string> identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

class Out {
 public:
  void u64(uint64_t v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void str(const std::string& s) {
    u64(s.size());
    bytes_ += s;
  }
  void counts(const std::array<uint64_t, RP_NATIVE_SLOTS>& c) {
    for (uint64_t v : c) u64(v);
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class In {
 public:
  explicit In(std::string_view bytes) : bytes_(bytes) {}
  bool u64(uint64_t& v) {
    if (bytes_.size() - at_ < sizeof v) return false;
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return true;
  }
  bool str(std::string& s) {
    uint64_t n = 0;
    if (!u64(n) || bytes_.size() - at_ < n) return false;
    s.assign(bytes_.substr(at_, n));
    at_ += n;
    return true;
  }
  bool counts(std::array<uint64_t, RP_NATIVE_SLOTS>& c) {
    for (uint64_t& v : c)
      if (!u64(v)) return false;
    return true;
  }
  bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

std::string serialize(const ModulePlan& plan, uint64_t bias) {
  Out o;
  o.u64(plan.sites.size());
  for (const Site& s : plan.sites) {
    o.u64(s.start - bias);
    o.u64(s.end - bias);
    o.counts(s.counts);
    o.u64(s.fp_insns);
    o.u64(s.masked);
    o.u64(uint64_t(s.flags_saved) | uint64_t(s.probed) << 1);
    o.u64(s.trampoline_at);
    o.u64(s.trampoline_size);
    o.u64(s.segments.size());
    for (const Segment& g : s.segments) {
      o.u64(g.start - bias);
      o.counts(g.counts);
      o.u64(g.flags_saved);
    }
  }
  o.u64(plan.uncounted.size());
  for (const Uncounted& u : plan.uncounted) {
    o.u64(u.start - bias);
    o.str(u.function);
    o.str(u.why);
    o.u64(u.fp_insns);
  }
  o.u64(plan.fp_insns);
  o.u64(plan.uncounted_fp_insns);
  o.u64(plan.trampoline_bytes);
  return o.bytes();
}

std::optional<ModulePlan> deserialize(In& in, uint64_t bias) {
  ModulePlan plan;
  uint64_t n = 0, v = 0;
  if (!in.u64(n) || n > (1u << 26)) return std::nullopt;
  plan.sites.resize(n);
  for (Site& s : plan.sites) {
    uint64_t fp = 0, masked = 0, flags = 0, segments = 0;
    if (!in.u64(s.start) || !in.u64(s.end) || !in.counts(s.counts) || !in.u64(fp) || !in.u64(masked) ||
        !in.u64(flags) || !in.u64(s.trampoline_at) || !in.u64(s.trampoline_size) || !in.u64(segments) ||
        segments > 4096)
      return std::nullopt;
    s.start += bias, s.end += bias;
    s.fp_insns = uint32_t(fp), s.masked = uint32_t(masked);
    s.flags_saved = flags & 1, s.probed = flags & 2;
    s.segments.resize(segments);
    for (Segment& g : s.segments) {
      if (!in.u64(g.start) || !in.counts(g.counts) || !in.u64(v)) return std::nullopt;
      g.start += bias;
      g.flags_saved = v != 0;
    }
  }
  if (!in.u64(n) || n > (1u << 26)) return std::nullopt;
  plan.uncounted.resize(n);
  for (Uncounted& u : plan.uncounted) {
    if (!in.u64(u.start) || !in.str(u.function) || !in.str(u.why) || !in.u64(v)) return std::nullopt;
    u.start += bias;
    u.fp_insns = uint32_t(v);
  }
  if (!in.u64(plan.fp_insns) || !in.u64(plan.uncounted_fp_insns) || !in.u64(plan.trampoline_bytes) || !in.done())
    return std::nullopt;
  return plan;
}

// Entries beyond `max_bytes` in all go, the least recently written first.
void prune(const std::filesystem::path& dir, uint64_t max_bytes) {
  std::error_code ec;
  std::vector<std::tuple<std::filesystem::file_time_type, uint64_t, std::filesystem::path>> entries;
  uint64_t total = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".plan") continue;
    const uint64_t size = e.file_size(ec);
    if (ec) continue;
    entries.emplace_back(e.last_write_time(ec), size, e.path());
    total += size;
  }
  std::sort(entries.begin(), entries.end());
  for (const auto& [when, size, path] : entries) {
    if (total <= max_bytes) break;
    if (std::filesystem::remove(path, ec)) total -= size;
  }
}

}  // namespace

std::optional<PlanKey> plan_key(const std::filesystem::path& dir, const std::string& module_path,
                                std::span<const uint64_t> busy, uint64_t bias) {
  if (dir.empty()) return std::nullopt;
  auto file = identity(module_path);
  auto self = identity("/proc/self/exe");  // a rebuilt roofprof may plan differently
  if (!file || !self) return std::nullopt;
  std::vector<uint64_t> offsets;
  for (uint64_t b : busy) offsets.push_back(b - bias);
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  std::string text = module_path + "\n" + *file + "\n" + *self + "\n";
  for (uint64_t o : offsets) text += std::to_string(o) + ",";
  char name[40];
  std::snprintf(name, sizeof name, "%016zx.plan", std::hash<std::string>{}(text));
  return PlanKey{text, dir / "native" / name};
}

std::optional<ModulePlan> load_plan(const PlanKey& key, uint64_t bias) {
  std::ifstream f(key.file, std::ios::binary);
  if (!f) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(f)), {});
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  In in(std::string_view(bytes).substr(sizeof kMagic));
  std::string text;
  if (!in.str(text) || text != key.text) return std::nullopt;
  return deserialize(in, bias);
}

void store_plan(const PlanKey& key, const ModulePlan& plan, uint64_t bias) {
  std::error_code ec;
  std::filesystem::create_directories(key.file.parent_path(), ec);
  if (ec) return;
  Out header;
  header.str(key.text);
  const std::string tmp = key.file.string() + "." + std::to_string(::getpid()) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(kMagic, sizeof kMagic);
    out << header.bytes() << serialize(plan, bias);
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, key.file, ec);
  if (ec) std::filesystem::remove(tmp, ec);
  prune(key.file.parent_path(), kMaxCacheBytes);
}

}  // namespace roofprof::native
