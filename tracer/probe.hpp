#pragma once
// What a breakpoint means. One address can carry several probes (e.g. the entry of a
// function region and the STOP of a span, or the return sites of several threads).
#include <sys/types.h>

#include <cstdint>

#include "probes/plan.hpp"
#include "regions/tracker.hpp"

namespace roofprof::tracer {

// A planned site's role (probes::SiteRole, numbered in probes/site_role.h), then the probes the
// tracer places for itself.
enum class ProbeKind {
  RegionEntry = RP_SITE_ENTRY,     // entry of a function region
  SpanStart = RP_SITE_SPAN_START,  // START of a span region
  SpanStop = RP_SITE_SPAN_STOP,    // STOP of a span region
  SpanResume = RP_SITE_SPAN_RESUME,  // a re-entry into an inlined copy's code (no new call)
  Return = RP_SITE_ROLES,          // return site of an open function instance (one thread, one entry sp)
  DynamicLinker,                   // _dl_debug_state: the set of loaded modules changed
  EntryPoint,                      // the program's entry point: initial modules are loaded
  Longjmp,                         // longjmp family entry
  CatchBegin,                      // __cxa_begin_catch: an exception has been caught
  ProcessExiting,                  // exit/_exit: the process is ending, threads' exits are process exit
  NativeUncounted,                 // code native counting could not patch: did it run? (once)
};
static_assert(RP_SITE_ROLES == 4, "a new site role needs its ProbeKind above");

// The kind of a probe at a planned site: its role, by the same number.
constexpr ProbeKind kind_of(probes::SiteRole role) { return ProbeKind(int(role)); }
static_assert(kind_of(probes::SiteRole::Entry) == ProbeKind::RegionEntry);
static_assert(kind_of(probes::SiteRole::SpanStart) == ProbeKind::SpanStart);
static_assert(kind_of(probes::SiteRole::SpanStop) == ProbeKind::SpanStop);
static_assert(kind_of(probes::SiteRole::SpanResume) == ProbeKind::SpanResume);

// A planned site's probe (a region's boundary), not one the tracer places for itself.
constexpr bool is_site(ProbeKind k) { return int(k) < RP_SITE_ROLES; }
// A probe that can open an instance of its region.
constexpr bool opens(ProbeKind k) {
  return k == ProbeKind::RegionEntry || k == ProbeKind::SpanStart || k == ProbeKind::SpanResume;
}

struct Probe {
  ProbeKind kind = ProbeKind::RegionEntry;
  regions::RegionId region = 0;  // RegionEntry, SpanStart, SpanStop, SpanResume
  pid_t tid = 0;                 // Return
  uint64_t entry_sp = 0;         // Return
  uint64_t site = 0;             // NativeUncounted: (module << 32) | place, in RunOutcome::native
  bool operator==(const Probe&) const = default;
};

}  // namespace roofprof::tracer
