#include "run/emul_agent.hpp"

#include <fmt/format.h>

#include <memory>

#include "preload/region_names.hpp"

namespace roofprof::run {

emul::Options::Agent emulation_agent(probes::Planner& planner) {
  auto names = std::make_shared<preload::RegionNames>(planner);
  emul::Options::Agent a;
  // The agent's "SPEC:PATTERN" lines, as the native --no-ptrace run gives them (function specs).
  const auto& specs = planner.specs();
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].kind == regions::RegionKind::Function) a.regions += fmt::format("{}:{}\n", i, specs[i].start.symbol);
  a.region_ids = [names](uint32_t spec, const std::string& symbol) { return names->regions_for(spec, symbol); };
  return a;
}

}  // namespace roofprof::run
