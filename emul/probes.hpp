#pragma once
// Probe addresses handed to the valgrind tool (--probes=FILE): where regions start and stop,
// as (module file, link-time address) pairs. The tool maps them to run-time addresses as
// objects load, so libraries opened later by dlopen are covered.
#include <cstdint>
#include <string>
#include <vector>

#include "regions/tracker.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::emul {

enum class ProbeKind { Entry, SpanStart, SpanStop };
const char* to_string(ProbeKind k);

struct Probe {
  regions::RegionId region = 0;
  ProbeKind kind = ProbeKind::Entry;
  std::string module;    // path of the ELF file as mapped (any spelling; canonicalised)
  uint64_t address = 0;  // link-time address in that module (as objdump shows it)
};

// Probes of one kind at every site (the symbolizer's resolution of a region).
std::vector<Probe> probes_at(regions::RegionId region, ProbeKind kind,
                             const std::vector<symbolizer::Site>& sites);

// Writes the tool's probe file: "roofprof-probes 1", then one "<kind>\t<hex>\t<path>" line
// per probe in order (the tool reports probes by their index). Module paths are
// canonicalised because valgrind names objects by their resolved path. Throws UserError when
// a module does not exist or the file cannot be written.
void write_probe_file(const std::string& path, const std::vector<Probe>& probes);

}  // namespace roofprof::emul
