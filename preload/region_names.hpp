#pragma once
// What the agent hooked (spec index, raw symbol) -> the planner's regions. Every module the
// agent reports goes through probes::Planner::probes_for, so a region is named and located
// exactly as with breakpoints; the agent's raw names are only matched against those.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "preload/agent_table.hpp"
#include "probes/plan.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::preload {

class RegionNames {
 public:
  explicit RegionNames(probes::Planner& planner) : planner_(planner) {}

  // Gives the planner the modules of `table` it has not seen. Throws UserError from the planner
  // (a plain name that is ambiguous in a module).
  void add_modules(const AgentTable& table);
  // The planner's regions of the agent's raw symbol name: every function region with a site
  // of that name (several specs may match one function, as with breakpoints), or, for a plain
  // name, the region of spec `spec`. Empty when the planner has none (the agent matched a
  // name the planner does not).
  std::vector<regions::RegionId> regions_for(uint32_t spec, const std::string& symbol) const;
  // Every module given to the planner so far.
  std::vector<const symbolizer::ElfFile*> modules() const;

 private:
  probes::Planner& planner_;
  symbolizer::ElfCache cache_;
  std::set<std::string> seen_;
  std::vector<std::shared_ptr<symbolizer::ElfFile>> files_;
};

}  // namespace roofprof::preload
