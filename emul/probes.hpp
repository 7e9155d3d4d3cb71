#pragma once
// The probe file handed to the valgrind tool (--probes=FILE): the planned probes (probes/plan.hpp)
// where regions start and stop, as (module file, link-time address) pairs. The tool maps them to
// run-time addresses as objects load, so libraries opened later by dlopen are covered.
#include <string>
#include <vector>

#include "probes/plan.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::emul {

// Probes in `role` at every site (the symbolizer's resolution of a region).
std::vector<probes::PlannedProbe> probes_at(regions::RegionId region, probes::SiteRole role,
                                            const std::vector<symbolizer::Site>& sites);

// Writes the tool's probe file: "roofprof-probes 2", then one "<role>\t<hex>\t<path>" line per
// probe in order (the role's number, probes/site_role.h; the tool reports probes by their
// index). Module paths are canonicalised because valgrind names objects by their resolved path.
// Throws UserError when a module does not exist or the file cannot be written.
void write_probe_file(const std::string& path, const std::vector<probes::PlannedProbe>& probes);

}  // namespace roofprof::emul
