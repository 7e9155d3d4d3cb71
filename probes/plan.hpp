#pragma once
// Region specs -> probe sites, module by module, as modules load. Shared by every probe
// mechanism (tracer breakpoints, preload hooks, the emulation tool), so a region means the
// same thing whichever one measures it.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "probes/site_role.h"
#include "regions/spec.hpp"
#include "regions/tracker.hpp"
#include "symbolizer/elf_file.hpp"

namespace roofprof::probes {

enum class SiteRole {
  Entry = RP_SITE_ENTRY,
  SpanStart = RP_SITE_SPAN_START,
  SpanStop = RP_SITE_SPAN_STOP,
  SpanResume = RP_SITE_SPAN_RESUME,
};
const char* to_string(SiteRole r);

struct PlannedProbe {
  regions::RegionId region = 0;
  SiteRole role = SiteRole::Entry;
  std::string module;    // path
  uint64_t address = 0;  // link-time address in `module`
  std::string symbol;    // symbol at the site ("" for lines/addresses)
  // An entry at an IFUNC's resolver (symbolizer::Symbol::ifunc): only the agent, which hooks
  // the implementation the dynamic linker chose, can measure it; breakpoints and the emulator
  // leave it out (ifunc_note() says so).
  bool ifunc = false;
  // An inlined copy's site that keeps a breakpoint, never a span patch: the copy's entry point
  // heads its own loop, so it is reached on every pass, and only a breakpoint can be lifted
  // while the copy runs (tracer/session_spans.cpp); a patch would record every pass.
  bool breakpoint_only = false;
};

// Why an IFUNC entry is not measured by `mechanism` ("breakpoints", "the emulator"): one line.
std::string ifunc_note(const PlannedProbe& p, std::string_view mechanism);

struct RegionInfo {
  std::string name;
  regions::RegionKind kind = regions::RegionKind::Function;
  std::string spec;                 // as written by the user
  std::vector<PlannedProbe> sites;  // every site placed so far
  // Functions of the name left out because the program's own modules have it: "step in libc.so.6".
  std::vector<std::string> left_out;
  // Inlined copies of the function that cannot be measured as spans (symbolizer/inlined.hpp),
  // with why: "kern inlined at main.c:42 in app: it returns from inside its code".
  std::vector<std::string> inlined_left_out;
  // Inlined copies whose calls are counted only approximately, with why: control comes back into
  // their code elsewhere than at their entry point, so their code is interleaved with their
  // caller's (loop fusion, vectorisation, code shared between copies) and the entry point may run
  // more or less often than the source calls the function. Empty: every call is counted exactly.
  std::vector<std::string> calls_approximate;
};

// Code that is entered without a return address at [rsp] (started by the kernel, jumped to by
// the PLT or a signal return, or the child side of clone): a function region there cannot be
// measured, and a return probe at the word on top of its stack would damage the program.
// The reason, or nullptr for an ordinary function.
const char* not_a_called_function(std::string_view name);

// A library installed by the system (under /lib, /usr/lib, ...), not one of the program's own.
bool is_system_library(std::string_view path);

class Planner {
 public:
  explicit Planner(std::vector<regions::RegionSpec> specs);

  // Probes to place in a module that just appeared (`is_main`: the executable, which is the
  // module bare addresses refer to). New regions may be created (glob matches). A plain name
  // is one region covering every function it names (symbolizer/linespec.hpp); in a system
  // library it is left out once the program's own modules have it (RegionInfo::left_out).
  std::vector<PlannedProbe> probes_for(const symbolizer::ElfFile& elf, bool is_main);

  // Records why each spec has no site so far (unresolved()), then throws UserError for the
  // first of them, listing the closest names in
  // `modules`. `more_may_load`: the program can still dlopen libraries; then unresolved specs
  // only produce warnings (returned) and stay pending.
  // `hint` ends every message (e.g. "; ... add --follow-fork").
  std::vector<std::string> check_resolved(const std::vector<const symbolizer::ElfFile*>& modules,
                                          bool more_may_load, std::string_view hint = {}) const;
  // The specs (as written) whose functions or START/STOP were never found in any module, with
  // why, as the last check_resolved() said it (closest names included); `why` is empty when no
  // check ran.
  struct Unresolved {
    std::string spec;
    std::string why;
  };
  std::vector<Unresolved> unresolved() const;

  const std::vector<RegionInfo>& regions() const { return regions_; }
  const std::vector<regions::RegionSpec>& specs() const { return specs_; }

 private:
  regions::RegionId region_for(size_t spec_index, const std::string& name);
  void add_site(regions::RegionId id, SiteRole role, const std::string& module, uint64_t addr,
                const std::string& symbol, std::vector<PlannedProbe>& out, bool ifunc = false);
  // Span sites for the inlined copies in `elf` of spec `i`'s function; false when it has none.
  bool place_inlined_copies(size_t i, const symbolizer::ElfFile& elf, std::vector<PlannedProbe>& out);
  void drop_stops_into_loops(regions::RegionId id, const symbolizer::ElfFile& elf,
                             const std::map<uint64_t, std::string>& looped_entries, size_t first_site,
                             std::vector<PlannedProbe>& out);

  std::vector<regions::RegionSpec> specs_;
  std::vector<RegionInfo> regions_;
  std::map<std::pair<size_t, std::string>, regions::RegionId> by_spec_and_name_;
  std::vector<bool> spec_start_found_, spec_stop_found_;
  mutable std::vector<std::string> spec_why_;  // per spec: why the last check found no site
  std::vector<bool> spec_own_found_;  // a function spec matched in the executable or a non-system library
};

}  // namespace roofprof::probes
