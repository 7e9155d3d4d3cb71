#include "counters/user_event_sets.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>

#include "common/error.hpp"
#include "counters/event_catalog.hpp"

namespace roofprof::counters {
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw UserError(fmt::format("{}: cannot be read; fix its permissions or remove it", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `later` replaces the set of the same model in `sets`, else is added.
void put(std::vector<EventSet>& sets, EventSet later) {
  for (EventSet& s : sets)
    if (s.model == later.model) {
      s = std::move(later);
      return;
    }
  sets.push_back(std::move(later));
}

}  // namespace

Catalog shipped_catalog() {
  return Catalog(std::shared_ptr<void>(), &event_catalog());  // aliasing: the static outlives every user
}

std::string default_event_dir(const char* xdg_config_home, const char* home) {
  if (xdg_config_home && *xdg_config_home) return (fs::path(xdg_config_home) / "roofprof" / "events").string();
  if (home && *home) return (fs::path(home) / ".config" / "roofprof" / "events").string();
  return "";
}

std::vector<EventSet> load_event_dir(const std::string& dir) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return {};
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".txt") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<EventSet> sets;
  std::map<std::string, std::string> where;  // model -> file
  for (const fs::path& f : files) {
    EventSet s = parse_event_set(read_all(f), f.string());
    s.user = true;
    if (auto [it, fresh] = where.emplace(s.model, f.string()); !fresh)
      throw UserError(fmt::format("{}:1: model '{}' is also defined by {}; keep one of the two files", f.string(),
                                  s.model, it->second));
    sets.push_back(std::move(s));
  }
  return sets;
}

std::vector<EventSet> merge_user_sets(const std::vector<EventSet>& shipped, std::vector<EventSet> user) {
  std::vector<EventSet> out = std::move(user);
  for (const EventSet& s : shipped)
    if (std::none_of(out.begin(), out.end(), [&](const EventSet& u) { return u.model == s.model; })) out.push_back(s);
  return out;
}

Catalog catalog_with_user_sets(const std::string& option_dir) {
  std::error_code ec;
  if (!option_dir.empty() && !fs::is_directory(option_dir, ec))
    throw UserError(fmt::format("--event-dir {}: no such directory (give a directory of event-set files, "
                                "docs/counters.md section 3)", option_dir));
  std::vector<EventSet> user = load_event_dir(default_event_dir(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME")));
  for (EventSet& s : load_event_dir(option_dir)) put(user, std::move(s));
  if (user.empty()) return shipped_catalog();
  return std::make_shared<const std::vector<EventSet>>(merge_user_sets(event_catalog(), std::move(user)));
}

}  // namespace roofprof::counters
