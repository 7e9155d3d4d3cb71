#include "run/measured_geometry.hpp"

#include <filesystem>
#include <optional>

#include "ceilings/ceilings.hpp"
#include "ceilings/knees.hpp"
#include "ceilings/machine.hpp"
#include "common/error.hpp"

namespace roofprof::run {
namespace {

struct Found {
  ceilings::Ceilings c;
  std::string path;
};

std::optional<Found> find(const std::string& file) {
  if (!file.empty()) return Found{ceilings::load(file), file};
  // This machine's measurement describes its own caches, not those ROOFPROF_HOST_CACHES gives.
  if (host_caches().replaced) return std::nullopt;
  const auto dir = ceilings::default_cache_dir();
  if (dir.empty()) return std::nullopt;
  const auto path = ceilings::cache_file(dir, ceilings::current_machine());
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  try {
    return Found{ceilings::load(path), path.string()};
  } catch (const UserError&) {
    return std::nullopt;  // unreadable cache: as if absent (roofprof ceilings measures again)
  }
}

}  // namespace

HostGeometry host_geometry(const std::string& ceilings_file, const std::vector<CacheInfo>& reported) {
  HostGeometry out{{}, "reported", "", false};
  const auto found = find(ceilings_file);
  if (!found || found->c.measured_caches.empty() || reported.empty()) return out;
  out.measured_in = found->path;
  for (const auto& m : found->c.measured_caches)
    if (m.level == reported.back().level && m.effective_bytes) out.last_level_measured = true;
  auto levels = ceilings::simulated_levels(reported, found->c.measured_caches);
  if (levels != reported) {
    out.levels = std::move(levels);
    out.source = "measured";
  }
  return out;
}

}  // namespace roofprof::run
