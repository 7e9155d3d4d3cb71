#include "emul/probes.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "common/error.hpp"

namespace roofprof::emul {

const char* to_string(ProbeKind k) {
  switch (k) {
    case ProbeKind::Entry: return "entry";
    case ProbeKind::SpanStart: return "span_start";
    case ProbeKind::SpanStop: return "span_stop";
  }
  return "entry";
}

std::vector<Probe> probes_at(regions::RegionId region, ProbeKind kind,
                             const std::vector<symbolizer::Site>& sites) {
  std::vector<Probe> out;
  out.reserve(sites.size());
  for (const auto& s : sites) out.push_back(Probe{region, kind, s.module, s.address});
  return out;
}

void write_probe_file(const std::string& path, const std::vector<Probe>& probes) {
  std::ofstream out(path);
  if (!out) throw UserError(fmt::format("cannot write {}", path));
  out << "roofprof-probes 1\n";
  for (const auto& p : probes) {
    std::error_code ec;
    auto canon = std::filesystem::canonical(p.module, ec);
    if (ec) throw UserError(fmt::format("probe module {}: {}", p.module, ec.message()));
    std::string name = canon.string();
    if (name.find('\n') != std::string::npos) throw UserError(fmt::format("unsupported module path {}", name));
    out << to_string(p.kind) << '\t' << fmt::format("{:x}", p.address) << '\t' << name << '\n';
  }
  if (!out.flush()) throw UserError(fmt::format("cannot write {}", path));
}

}  // namespace roofprof::emul
