#include "cli/cache_geometry_option.hpp"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "emul/cache_geometry.hpp"

namespace roofprof::cli {
namespace {

constexpr const char* kExample = "L1=48K/12,L2=1M/8,L3=32M/16";

// A file's text as one line: comments dropped, lines and spaces as commas.
std::string file_text(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw UserError(fmt::format("--cache {}: no such file; give the levels ({}) or a file that holds them", path,
                                kExample));
  std::string words, line;
  while (std::getline(in, line)) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    words += line + ',';
  }
  for (char& c : words)
    if (std::isspace(static_cast<unsigned char>(c))) c = ',';
  std::string out;
  std::istringstream items(words);
  for (std::string item; std::getline(items, item, ',');)
    if (!item.empty()) out += (out.empty() ? "" : ",") + item;
  if (out.empty())
    throw UserError(fmt::format("--cache {}: the file holds no levels; write them in it ({})", path, kExample));
  return out;
}

}  // namespace

CLI::Option* add_cache_geometry_option(CLI::App& sub, std::string& text, const std::string& extra) {
  return sub.add_option("--cache,--cache-geometry", text,
                        "emulation: simulate this hierarchy instead of the host's caches, L1 first, each level "
                        "SIZE/WAYS[/LINE] (line 64 when left out) or SIZE:WAYS:LINE, and optionally inclusive or "
                        "non-inclusive last, e.g. L1=48K/12,L2=1M/8,L3=32M/16,non-inclusive; or a file holding "
                        "that (docs/emulation.md)" +
                            extra);
}

CacheSpec cache_option(const std::string& text) {
  if (text.empty()) return {};
  try {
    CacheSpec spec = parse_cache_spec(text.find('=') == std::string::npos ? file_text(text) : text);
    emul::check_cache_geometry(spec.levels);
    return spec;
  } catch (const UserError& e) {
    if (std::string_view(e.what()).starts_with("--cache")) throw;
    throw UserError(std::string("--cache (--cache-geometry): ") + e.what());
  }
}

std::vector<CacheInfo> cache_geometry_option(const std::string& text) {
  CacheSpec spec = cache_option(text);
  if (spec.last_inclusive)
    throw UserError("--cache: this command simulates the last level as the host's is (roofprof run alone takes "
                    "inclusive or non-inclusive); leave that item out");
  return spec.levels;
}

std::optional<bool> last_level_inclusion(const CacheSpec& given, const std::string& flag) {
  const std::optional<bool> asked = flag == "host" ? std::nullopt : std::optional<bool>(flag == "inclusive");
  if (given.last_inclusive && asked && *asked != *given.last_inclusive)
    throw UserError(fmt::format("--cache says the last level is {} and --cache-last-level says {}: give one",
                                *given.last_inclusive ? "inclusive" : "non-inclusive", flag));
  return given.last_inclusive ? given.last_inclusive : asked;
}

}  // namespace roofprof::cli
