#include "symbolizer/debug_file.hpp"

#include <gelf.h>

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "common/error.hpp"
#include "common/program.hpp"
#include "common/strings.hpp"
#include "symbolizer/elf_handle.hpp"
#include "symbolizer/tool_output.hpp"

namespace roofprof::symbolizer {

std::string build_id(Elf* elf) {
  static const char hex[] = "0123456789abcdef";
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) continue;
    GElf_Nhdr nh;
    size_t off = 0, name_off = 0, desc_off = 0;
    while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
      const char* name = static_cast<const char*>(data->d_buf) + name_off;
      if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || std::memcmp(name, "GNU", 4) != 0) continue;
      const auto* desc = static_cast<const unsigned char*>(data->d_buf) + desc_off;
      std::string out;
      for (size_t i = 0; i < nh.n_descsz; ++i) {
        out += hex[desc[i] >> 4];
        out += hex[desc[i] & 15];
      }
      return out;
    }
  }
  return "";
}

bool in_system_library_dir(std::string_view path) {
  for (std::string_view dir : {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/lib32/", "/usr/lib32/"})
    if (path.starts_with(dir)) return true;
  return false;
}

std::vector<std::string> debug_roots() {
  const char* env = std::getenv("ROOFPROF_DEBUG_DIRS");
  std::vector<std::string> out;
  std::string list = env ? env : "";
  for (size_t start = 0; start < list.size();) {
    size_t end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  if (out.empty()) out.push_back("/usr/lib/debug");
  return out;
}

std::optional<uint32_t> file_crc32(const std::string& path) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  uint32_t crc = 0xFFFFFFFFu;
  std::vector<char> buf(1 << 16);
  while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) crc = table[(crc ^ uint8_t(buf[size_t(i)])) & 0xFF] ^ (crc >> 8);
    if (!in) break;
  }
  return crc ^ 0xFFFFFFFFu;
}

namespace {

struct Debuglink {
  std::string name;
  std::optional<uint32_t> crc;  // after the name, padded to 4 bytes
};

Debuglink debuglink(Elf* elf) {
  Elf_Scn* scn = find_section(elf, ".gnu_debuglink");
  if (!scn) return {};
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (!data || !data->d_buf || data->d_size == 0) return {};
  const char* name = static_cast<const char*>(data->d_buf);
  Debuglink out{std::string(name, strnlen(name, data->d_size)), std::nullopt};
  size_t crc_at = (out.name.size() + 1 + 3) & ~size_t(3);
  if (crc_at + 4 <= data->d_size) {
    uint32_t crc;
    std::memcpy(&crc, name + crc_at, 4);  // the file's byte order: little-endian x86-64, as the host
    out.crc = crc;
  }
  return out;
}

// A candidate is the debug file of `path` when its build-id is the file's (when the file has
// one) and, found by debuglink, its CRC32 is the one the link records.
bool usable(const std::string& candidate, const std::string& path, const std::string& id,
            std::optional<uint32_t> crc = std::nullopt) {
  if (candidate == path || ::access(candidate.c_str(), R_OK) != 0) return false;
  try {
    ElfHandle h(candidate);
    if (!id.empty() && build_id(h.elf()) != id) return false;
  } catch (const UserError&) {
    return false;
  }
  return !crc || file_crc32(candidate) == crc;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "" : path.substr(0, slash);
}

// debuginfod-find's answer when DEBUGINFOD_URLS is set; else why it was not asked.
std::optional<std::string> ask_debuginfod(const std::string& path, const std::string& id, std::string& why) {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  if (!urls || !*urls) return std::nullopt;
  if (id.empty()) {
    why = "debuginfod cannot be asked: the file has no build-id";
    return std::nullopt;
  }
  if (find_in_path("debuginfod-find").empty()) {
    why = "DEBUGINFOD_URLS is set but debuginfod-find is not installed (Debian: apt install debuginfod)";
    return std::nullopt;
  }
  auto out = tool_output({"debuginfod-find", "debuginfo", id});
  std::string file = out ? std::string(out->substr(0, out->find('\n'))) : std::string();
  if (!file.empty() && usable(file, path, id)) return file;
  why = fmt::format("debuginfod ({}) has no debug file for build-id {}", urls, id);
  return std::nullopt;
}

}  // namespace

DebugSearch search_debug_file(Elf* elf, const std::string& path, const std::vector<std::string>& roots,
                              bool use_debuginfod) {
  DebugSearch s;
  s.build_id = build_id(elf);
  Debuglink link = debuglink(elf);
  s.debuglink = link.name;
  std::vector<std::pair<std::string, std::optional<uint32_t>>> candidates;
  if (s.build_id.size() > 2) {
    for (const auto& root : roots)
      candidates.emplace_back(root + "/.build-id/" + s.build_id.substr(0, 2) + "/" + s.build_id.substr(2) + ".debug",
                              std::nullopt);
    s.build_id_path = candidates.front().first;
  }
  if (!link.name.empty()) {
    const std::string dir = dir_of(path);
    candidates.emplace_back((dir.empty() ? "" : dir) + "/" + link.name, link.crc);
    candidates.emplace_back(dir + "/.debug/" + link.name, link.crc);
    for (const auto& root : roots) candidates.emplace_back(root + dir + "/" + link.name, link.crc);
  }
  for (const auto& [c, crc] : candidates)
    if (usable(c, path, s.build_id, crc)) {
      s.found = c;
      return s;
    }
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  s.debuginfod_configured = urls && *urls;
  if (use_debuginfod) s.found = ask_debuginfod(path, s.build_id, s.debuginfod);
  return s;
}

std::optional<std::string> find_debug_file(Elf* elf, const std::string& path, const std::string& debug_root) {
  return search_debug_file(elf, path, {debug_root}, false).found;
}

std::string stripped_message(const std::string& path, size_t exported, const DebugSearch& search,
                             const std::string& package) {
  const std::string name(path_basename(path));
  std::vector<std::string> looked;
  if (!search.build_id_path.empty()) looked.push_back(search.build_id_path);
  if (!search.debuglink.empty()) looked.push_back(search.debuglink + " (its .gnu_debuglink)");
  std::string msg = exported == 0 ? name + " has no symbol table (stripped: none of its functions has a name)"
                   : exported == 1 ? name + " has no symbol table (stripped: only its one exported function has a name)"
                                   : fmt::format("{} has no symbol table (stripped: only its {} exported functions "
                                                 "have names)", name, exported);
  msg += looked.empty() ? " and names no debug file (no build-id, no .gnu_debuglink)"
                        : fmt::format(" and its debug file was not found (looked for {})", fmt::join(looked, " and "));
  msg += package.empty() ? "; install the -dbgsym package of the package that installed it"
                         : fmt::format("; install {}-dbgsym", package);
  msg += " (Debian: the debian-debug archive), or point ROOFPROF_DEBUG_DIRS at a folder holding its debug file";
  if (!search.debuginfod.empty()) msg += "; " + search.debuginfod;
  else if (!search.debuginfod_configured) msg += ", or set DEBUGINFOD_URLS to ask a debuginfod server";
  return msg;
}

std::string owning_package(const std::string& path) {
  if (find_in_path("dpkg").empty()) return "";
  auto out = tool_output({"dpkg", "-S", path});
  if (!out) return "";
  // "quantum-espresso: /usr/bin/pw.x" or "libfoo1:amd64: /usr/lib/...": the name before the first ':'.
  std::string first = out->substr(0, out->find('\n'));
  size_t colon = first.find(':');
  if (colon == std::string::npos || colon == 0 || first.find(',') < colon) return "";
  return first.substr(0, colon);
}

}  // namespace roofprof::symbolizer
