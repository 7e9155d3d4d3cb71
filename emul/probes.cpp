#include "emul/probes.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "common/error.hpp"

namespace roofprof::emul {

std::vector<probes::PlannedProbe> probes_at(regions::RegionId region, probes::SiteRole role,
                                            const std::vector<symbolizer::Site>& sites) {
  std::vector<probes::PlannedProbe> out;
  out.reserve(sites.size());
  for (const auto& s : sites) out.push_back(probes::PlannedProbe{region, role, s.module, s.address, s.symbol, s.ifunc});
  return out;
}

void write_probe_file(const std::string& path, const std::vector<probes::PlannedProbe>& probes) {
  std::ofstream out(path);
  if (!out) throw UserError(fmt::format("cannot write {}", path));
  out << RP_PROBE_FILE_MAGIC << '\n';
  for (const auto& p : probes) {
    std::error_code ec;
    auto canon = std::filesystem::canonical(p.module, ec);
    if (ec) throw UserError(fmt::format("probe module {}: {}", p.module, ec.message()));
    std::string name = canon.string();
    if (name.find('\n') != std::string::npos) throw UserError(fmt::format("unsupported module path {}", name));
    out << static_cast<int>(p.role) << '\t' << fmt::format("{:x}", p.address) << '\t' << name << '\n';
  }
  if (!out.flush()) throw UserError(fmt::format("cannot write {}", path));
}

}  // namespace roofprof::emul
