#pragma once
// What a breakpoint means. One address can carry several probes (e.g. the entry of a
// function region and the STOP of a span, or the return sites of several threads).
#include <sys/types.h>

#include <cstdint>

#include "regions/tracker.hpp"

namespace roofprof::tracer {

enum class ProbeKind {
  RegionEntry,     // entry of a function region
  SpanStart,       // START of a span region
  SpanStop,        // STOP of a span region
  Return,          // return site of an open function instance (one thread, one entry sp)
  DynamicLinker,   // _dl_debug_state: the set of loaded modules changed
  EntryPoint,      // the program's entry point: initial modules are loaded
  Longjmp,         // longjmp family entry
  CatchBegin,      // __cxa_begin_catch: an exception has been caught
  ProcessExiting,  // exit/_exit: the process is ending, threads' exits are process exit
};

struct Probe {
  ProbeKind kind = ProbeKind::RegionEntry;
  regions::RegionId region = 0;  // RegionEntry, SpanStart, SpanStop
  pid_t tid = 0;                 // Return
  uint64_t entry_sp = 0;         // Return
  bool operator==(const Probe&) const = default;
};

}  // namespace roofprof::tracer
