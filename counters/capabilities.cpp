#include "counters/capabilities.hpp"

#include <linux/perf_event.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "common/error.hpp"
#include "common/layout.hpp"
#include "common/program.hpp"
#include "counters/event_catalog.hpp"
#include "counters/perf_event_open.hpp"
#include "counters/pfm_library.hpp"
#include "counters/sysfs_pmu.hpp"
#include "counters/uncore_counters.hpp"

namespace roofprof::counters {
namespace {

std::optional<int> read_int_file(const std::string& path) {
  std::ifstream in(path);
  int v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

// Effective capability bits from /proc/self/status (CapEff, hex).
uint64_t effective_caps() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("CapEff:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 16);
  return 0;
}

struct OpenResult {
  int err = 0;          // 0 when the event opened
  std::string problem;  // errno advice otherwise
};

// Opens (and closes) one user-level counting event on the calling thread.
OpenResult try_open(uint32_t type, uint64_t config, const char* what) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const int fd = perf_event_open_fd(attr, 0, -1, -1);
  if (fd >= 0) {
    PerfFd close_it(fd);
    return {};
  }
  const int err = errno;
  return {err, advice_for_errno(err, what)};
}

// The launcher prints the version of the tool it runs, found in VALGRIND_LIB: the engine's own
// tools for the engine roofprof was built against (its private prefix has a launcher whose
// default is the system's tools), roofprof's tool for the engine an install carries (no other).
std::optional<std::string> valgrind_version_of(const ValgrindEngine& engine) {
  const std::string& lib = engine.lib_dir;
  const std::string cmd = (lib.empty() ? "" : "VALGRIND_LIB='" + lib + "' ") + "'" + engine.launcher + "'" +
                          (engine.carried ? " --tool=roofprof" : "") + " --version 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return std::nullopt;
  char buf[128] = {0};
  bool got = false;
  // A signal to roofprof (its handlers do not restart reads) must not read as "no valgrind".
  for (int tries = 0; !got && tries < 100; ++tries) {
    errno = 0;
    got = std::fgets(buf, sizeof buf, p) != nullptr;
    if (got || errno != EINTR) break;
    std::clearerr(p);
  }
  ::pclose(p);
  if (!got) return std::nullopt;
  std::string v(buf);
  while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.pop_back();
  if (v.rfind("valgrind-", 0) == 0) v = v.substr(9);
  return v.empty() ? std::nullopt : std::optional<std::string>(v);
}

// The selected set's uncore PMUs, and whether their events open (opened, then closed).
void probe_uncore(Capabilities& c) {
  if (!c.selection.set) return;
  try {
    const UncoreEvents u = encode_uncore_events(*c.selection.set);
    c.uncore_pmus = u.pmus;
    if (u.events.empty()) {
      if (!u.notes.empty()) c.uncore_problem = u.notes.front();
      return;
    }
    if (!uncore_allowed(c)) return;
    UncoreCounters opened(u.events);
    c.uncore_counters = true;
  } catch (const std::exception& e) {
    c.uncore_problem = e.what();
  }
}

}  // namespace

std::optional<bool> valgrind_supports_avx512(const std::string& version) {
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2) return std::nullopt;
  // 3.24.0 (Debian 13's, the engine install-deps.sh sets up) was seen to stop at an AVX-512
  // vaddpd with "Illegal opcode" on an AVX-512 Xeon; newer releases are not known here.
  if (major < 3 || (major == 3 && minor <= 24)) return false;
  return std::nullopt;
}

bool uncore_allowed(const Capabilities& c) {
  return c.root || c.cap_perfmon || c.cap_sys_admin ||
         (c.perf_event_paranoid && *c.perf_event_paranoid <= 0);
}

bool kernel_counting_allowed(const Capabilities& c) {
  return c.root || c.cap_perfmon || c.cap_sys_admin || (c.perf_event_paranoid && *c.perf_event_paranoid <= 1);
}

Capabilities probe_capabilities() { return probe_capabilities(shipped_catalog()); }

Capabilities probe_capabilities(Catalog catalog) {
  Capabilities c;
  c.catalog = std::move(catalog);
  PerfSystem& sys = perf_system();
  c.cpu = sys.cpu_info();
  try {
    PfmLibrary pfm(false);
    c.libpfm_version = pfm.version();
    c.pfm_core_pmus = pfm.present_core_pmus();
  } catch (const std::exception&) {
    // libpfm4 unusable: selection falls back to /proc/cpuinfo
  }
  c.selection = select_event_set(*c.catalog, c.pfm_core_pmus, c.cpu);

  const OpenResult hw = try_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
                                 "perf_event_open(cycles)");
  c.hardware_counters = hw.err == 0;
  c.hardware_problem = hw.problem;
  c.hardware_errno = hw.err;
  const OpenResult sw = try_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
                                 "perf_event_open(task-clock)");
  c.software_counters = sw.err == 0;
  c.software_problem = sw.problem;
  c.software_errno = sw.err;

  c.perf_event_paranoid = sys.kernel_setting("perf_event_paranoid");
  c.nmi_watchdog = sys.kernel_setting("nmi_watchdog").value_or(0) != 0;
  c.ptrace_scope = read_int_file("/proc/sys/kernel/yama/ptrace_scope");
  c.root = ::geteuid() == 0;
  const uint64_t caps = effective_caps();
  c.cap_sys_ptrace = caps & (1ull << 19);
  c.cap_sys_admin = caps & (1ull << 21);
  c.cap_perfmon = caps & (1ull << 38);

  probe_uncore(c);

  // The engine the emulation tool was built against (cmake/valgrind.cmake): the tool runs only
  // under it; an install carries a copy (common/layout.hpp). A build without one looks on PATH.
  ValgrindEngine engine = valgrind_engine(ROOFPROF_VALGRIND_EXECUTABLE, ROOFPROF_VALGRIND_LIB_DIR);
  if (::access(engine.launcher.c_str(), X_OK) != 0) engine = {find_in_path("valgrind"), "", false};
  c.valgrind_path = engine.launcher;
  // The engine roofprof was built against, or the install's copy of it: its version is known
  // (a launch of valgrind costs every run a few milliseconds); another one on PATH is asked.
  const bool known = engine.carried || engine.launcher == ROOFPROF_VALGRIND_EXECUTABLE;
  if (known && std::string_view(ROOFPROF_VALGRIND_VERSION).size() > 0)
    c.valgrind_version = ROOFPROF_VALGRIND_VERSION;
  else if (!c.valgrind_path.empty())
    c.valgrind_version = valgrind_version_of(engine);
  return c;
}

}  // namespace roofprof::counters
