#include "symbolizer/debug_file.hpp"

#include <gelf.h>

#include <cstring>
#include <vector>

#include "common/error.hpp"
#include "symbolizer/elf_handle.hpp"

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

namespace {

std::string debuglink(Elf* elf) {
  Elf_Scn* scn = find_section(elf, ".gnu_debuglink");
  if (!scn) return "";
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (!data || !data->d_buf || data->d_size == 0) return "";
  const char* name = static_cast<const char*>(data->d_buf);
  return std::string(name, strnlen(name, data->d_size));
}

bool usable(const std::string& candidate, const std::string& path, const std::string& id) {
  if (candidate == path) return false;
  try {
    ElfHandle h(candidate);
    return id.empty() || build_id(h.elf()) == id;
  } catch (const UserError&) {
    return false;
  }
}

}  // namespace

std::optional<std::string> find_debug_file(Elf* elf, const std::string& path, const std::string& debug_root) {
  std::string id = build_id(elf);
  std::vector<std::string> candidates;
  if (id.size() > 2) candidates.push_back(debug_root + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug");
  std::string link = debuglink(elf);
  if (!link.empty()) {
    size_t slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
    candidates.push_back(dir + "/" + link);
    candidates.push_back(dir + "/.debug/" + link);
    candidates.push_back(debug_root + dir + "/" + link);
  }
  for (const auto& c : candidates) {
    if (usable(c, path, id)) return c;
  }
  return std::nullopt;
}

}  // namespace roofprof::symbolizer
