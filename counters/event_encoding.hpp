#pragma once
// Event-set lines -> perf_event encodings, through libpfm4 or the file's raw configs.
#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

#include "counters/event_set.hpp"
#include "counters/pfm_library.hpp"

namespace roofprof::counters {

struct EncodedEvent {
  EventLine line;
  std::string qualified;  // what libpfm4 encoded ("skx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE"); "" for raw
  // PERF_TYPE_RAW for core-PMU events; 0 for events on a named sysfs PMU (line.perf_pmu),
  // whose type is read from /sys/bus/event_source/devices/<pmu>/type when opened.
  uint32_t type = 0;
  uint64_t config = 0, config1 = 0;
};

// The set's `match pfm` PMU that libpfm4 activated (is in `present`), or "": an inactive PMU
// cannot encode on this machine (lines then use their raw fallbacks).
std::string active_pmu(const EventSet& set, const std::vector<std::string>& present);
// The libpfm4 core PMU that qualifies the set's unqualified event strings: one of the set's
// `match pfm` names that is present in `present` (detected PMUs), else the first one listed.
// "" when the set has no `match pfm` line (raw-only sets).
std::string qualifying_pmu(const EventSet& set, const std::vector<std::string>& present);

// One line: libpfm4's encoding of the (qualified) name, else the line's raw fallback.
// Throws UserError naming the line when neither works.
EncodedEvent encode_line(const EventSet& set, const EventLine& line, const PfmLibrary& pfm,
                         const std::string& core_pmu);

// Encodes every line of `set`. Thread events: libpfm4 perf encoding (user level) or raw;
// uncore events: the PMU's raw code (PFM_OS_NONE) or raw. Throws UserError on failure.
std::vector<EncodedEvent> encode_event_set(const EventSet& set, const PfmLibrary& pfm,
                                           const std::string& core_pmu);

}  // namespace roofprof::counters
