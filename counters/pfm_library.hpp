#pragma once
// libpfm4, initialised for the lifetime of one object (pfm_initialize .. pfm_terminate).
// libpfm4 is global state: only one PfmLibrary may exist at a time. LIBPFM_FORCE_PMU in the
// environment (tests) is honoured as libpfm4 documents it.
#include <cstdint>
#include <string>
#include <vector>

namespace roofprof::counters {

struct PerfEncoding {
  uint32_t type = 0;  // perf_event_attr.type (PERF_TYPE_RAW for core events)
  uint64_t config = 0, config1 = 0;
};

class PfmLibrary {
 public:
  // encode_inactive: also encode events of PMUs this machine does not have (needs fully
  // qualified "pmu::EVENT" names), through LIBPFM_ENCODE_INACTIVE=1 set only during
  // initialisation (the traced program never sees it).
  explicit PfmLibrary(bool encode_inactive = true);
  ~PfmLibrary();
  PfmLibrary(const PfmLibrary&) = delete;
  PfmLibrary& operator=(const PfmLibrary&) = delete;

  std::string version() const;  // "4.13"
  // libpfm4 core PMUs detected on this machine (or forced), e.g. {"skx"}; empty without a PMU.
  std::vector<std::string> present_core_pmus() const;
  // perf_event encoding of a fully qualified event, counting at user level only.
  // Throws UserError naming the event and libpfm4's reason.
  PerfEncoding encode_perf(const std::string& event) const;
  // The PMU's raw event code (PFM_OS_NONE), used for uncore events whose PMU is absent.
  uint64_t encode_code(const std::string& event) const;
};

}  // namespace roofprof::counters
