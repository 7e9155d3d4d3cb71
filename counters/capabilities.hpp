#pragma once
// What this machine lets roofprof measure: probed once, then used by choose_backend() and
// `roofprof doctor`. Probing opens one counter on the calling thread and the selected set's
// memory-controller events system-wide (then closes them), reads /proc and sysfs and runs
// `valgrind --version`; it never throws.
#include <optional>
#include <string>
#include <vector>

#include "common/cpu_info.hpp"
#include "counters/event_set_selection.hpp"
#include "counters/user_event_sets.hpp"

namespace roofprof::counters {

struct Capabilities {
  CpuInfo cpu;
  std::string libpfm_version;             // "4.13"; "" when libpfm4 failed to initialise
  std::vector<std::string> pfm_core_pmus; // libpfm4-detected core PMUs
  Catalog catalog;                        // the sets selection chose from (it points into them)
  EventSetSelection selection;

  bool hardware_counters = false;  // a user-level cycles counter opens on this thread
  std::string hardware_problem;    // errno + advice when it does not
  int hardware_errno = 0;
  bool software_counters = false;  // task-clock opens on this thread
  std::string software_problem;
  int software_errno = 0;

  std::optional<int> perf_event_paranoid;  // /proc/sys/kernel/perf_event_paranoid
  // /proc/sys/kernel/nmi_watchdog = 1: the hard-lockup detector holds one hardware counter of
  // every CPU for good; group plans leave it free (docs/counters.md, section 4).
  bool nmi_watchdog = false;
  std::optional<int> ptrace_scope;         // /proc/sys/kernel/yama/ptrace_scope (no Yama: nullopt)
  bool root = false;
  bool cap_perfmon = false, cap_sys_admin = false, cap_sys_ptrace = false;  // effective set

  // The selected set's memory-controller (uncore) PMUs that sysfs lists, and whether their
  // events opened system-wide (tried once and closed, when uncore_allowed()); why not if not.
  std::vector<std::string> uncore_pmus;
  bool uncore_counters = false;
  std::string uncore_problem;

  std::optional<std::string> valgrind_version;  // "3.19.0"
  std::string valgrind_path;
};

// Selects from `catalog` (shipped plus user sets: catalog_with_user_sets); the shipped sets alone
// without one.
Capabilities probe_capabilities(Catalog catalog);
Capabilities probe_capabilities();

// Valgrind decodes no AVX-512 (EVEX) instructions up to at least 3.22: false there; nullopt for
// later versions (not known here); nullopt for an unparsable version.
std::optional<bool> valgrind_supports_avx512(const std::string& version);

// Uncore counting is allowed by policy: root, CAP_PERFMON/CAP_SYS_ADMIN, or paranoid <= 0.
bool uncore_allowed(const Capabilities& c);

// The kernel side of per-thread counts is allowed: root, CAP_PERFMON/CAP_SYS_ADMIN, or
// paranoid <= 1. Otherwise counters open with exclude_kernel (user level only).
bool kernel_counting_allowed(const Capabilities& c);

}  // namespace roofprof::counters
