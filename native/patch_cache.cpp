#include "native/patch_cache.hpp"

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

#include "common/mapped_file.hpp"

namespace roofprof::native {
namespace {

constexpr char kMagic[8] = {'R', 'P', 'N', 'P', 'T', 'C', 'H', '1'};
constexpr uint64_t kMaxCacheBytes = 512ull << 20;  // OpenBLAS's entry is about 17 MiB

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
  template <class T>
  void array(const std::vector<T>& v) {
    u64(v.size());
    bytes_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
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
  template <class T>
  bool array(std::vector<T>& v, uint64_t max) {
    uint64_t n = 0;
    if (!u64(n) || n > max || (bytes_.size() - at_) / sizeof(T) < n) return false;
    v.resize(n);
    if (n) std::memcpy(v.data(), bytes_.data() + at_, n * sizeof(T));  // an empty vector's data() may be null
    at_ += n * sizeof(T);
    return true;
  }
  bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

std::string serialize(const ModulePatch& p, uint64_t bias) {
  Out o;
  o.u64(p.sites);
  o.u64(p.fp_insns);
  o.u64(p.uncounted_fp_insns);
  o.u64(p.uncounted.size());
  for (const Uncounted& u : p.uncounted) {
    o.u64(u.start - bias);
    o.str(u.function);
    o.str(u.why);
    o.u64(u.fp_insns);
  }
  const Emitted& e = p.emitted;
  o.u64(e.base - bias);
  o.array(e.trampolines);
  o.array(e.relocs);
  o.u64(e.jumps.size());
  std::vector<uint8_t> jumps;  // per jump: its offset from the bias (8 bytes), length (1), bytes
  for (const Emitted::Jump& j : e.jumps) {
    const uint64_t at = j.at - bias;
    jumps.insert(jumps.end(), reinterpret_cast<const uint8_t*>(&at), reinterpret_cast<const uint8_t*>(&at) + 8);
    jumps.push_back(uint8_t(j.bytes.size()));
    jumps.insert(jumps.end(), j.bytes.begin(), j.bytes.end());
  }
  o.array(jumps);
  return o.bytes();
}

bool read_jumps(const std::vector<uint8_t>& bytes, uint64_t n, uint64_t bias, std::vector<Emitted::Jump>& out) {
  out.resize(n);
  size_t at = 0;
  for (Emitted::Jump& j : out) {
    if (bytes.size() - at < 9) return false;
    std::memcpy(&j.at, &bytes[at], 8);
    j.at += bias;
    const size_t len = bytes[at + 8];
    at += 9;
    if (len < kJumpBytes || bytes.size() - at < len) return false;
    j.bytes.assign(bytes.begin() + long(at), bytes.begin() + long(at + len));
    at += len;
  }
  return at == bytes.size();
}

std::optional<ModulePatch> deserialize(In& in, uint64_t bias) {
  ModulePatch p;
  uint64_t n = 0, v = 0;
  if (!in.u64(p.sites) || !in.u64(p.fp_insns) || !in.u64(p.uncounted_fp_insns) || !in.u64(n) || n > (1u << 26))
    return std::nullopt;
  p.uncounted.resize(n);
  for (Uncounted& u : p.uncounted) {
    if (!in.u64(u.start) || !in.str(u.function) || !in.str(u.why) || !in.u64(v)) return std::nullopt;
    u.start += bias;
    u.fp_insns = uint32_t(v);
  }
  Emitted& e = p.emitted;
  std::vector<uint8_t> jumps;
  if (!in.u64(e.base) || !in.array(e.trampolines, 1ull << 32) || !in.array(e.relocs, 1ull << 30) || !in.u64(n) ||
      n > (1u << 26) || !in.array(jumps, 1ull << 32) || !in.done() || !read_jumps(jumps, n, bias, e.jumps))
    return std::nullopt;
  e.base += bias;
  return p;
}

// Entries beyond `max_bytes` in all go, the least recently written first.
void prune(const std::filesystem::path& dir, uint64_t max_bytes) {
  std::error_code ec;
  std::vector<std::tuple<std::filesystem::file_time_type, uint64_t, std::filesystem::path>> entries;
  uint64_t total = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec)) continue;  // every file counts: entries, and those of older roofprofs (.plan)
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

ModulePatch summary_of(ModulePlan plan) {
  ModulePatch p;
  p.sites = plan.sites.size();
  p.fp_insns = plan.fp_insns;
  p.uncounted_fp_insns = plan.uncounted_fp_insns;
  p.uncounted = std::move(plan.uncounted);
  return p;
}

std::optional<PatchKey> patch_key(const std::filesystem::path& dir, const std::string& module_path,
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
  std::snprintf(name, sizeof name, "%016zx.patch", std::hash<std::string>{}(text));
  return PatchKey{text, dir / "native" / name};
}

namespace {

// An entry is code roofprof writes into the programs it runs: only this user's, in a directory
// only this user writes (another user's file, or one others could have replaced, is ignored).
bool trusted(const std::filesystem::path& file) {
  struct stat st {};
  for (const std::filesystem::path& p : {file, file.parent_path()})
    if (::lstat(p.c_str(), &st) != 0 || st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 ||
        S_ISLNK(st.st_mode))
      return false;
  return true;
}

}  // namespace

std::optional<ModulePatch> load_patch(const PatchKey& key, uint64_t bias) {
  if (!trusted(key.file)) return std::nullopt;
  // Mapped, not read: FFTW's entry is 1.6 MB, and a copy of it cost 400 page faults a run.
  const MappedFile file(key.file, MappedFile::Pages::Populated);
  if (!file.ok()) return std::nullopt;
  const std::string_view bytes(reinterpret_cast<const char*>(file.bytes().data()), file.bytes().size());
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  In in(bytes.substr(sizeof kMagic));
  std::string text;
  if (!in.str(text) || text != key.text) return std::nullopt;
  return deserialize(in, bias);
}

void store_patch(const PatchKey& key, const ModulePatch& patch, uint64_t bias) {
  std::error_code ec;
  std::filesystem::create_directories(key.file.parent_path(), ec);
  if (ec) return;
  ::chmod(key.file.parent_path().c_str(), 0700);  // trusted() reads back only what this user could write
  Out header;
  header.str(key.text);
  const std::string tmp = key.file.string() + "." + std::to_string(::getpid()) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(kMagic, sizeof kMagic);
    out << header.bytes() << serialize(patch, bias);
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  ::chmod(tmp.c_str(), 0600);
  std::filesystem::rename(tmp, key.file, ec);
  if (ec) std::filesystem::remove(tmp, ec);
  prune(key.file.parent_path(), kMaxCacheBytes);
}

}  // namespace roofprof::native
