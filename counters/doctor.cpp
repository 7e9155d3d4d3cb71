#include "counters/doctor.hpp"

#include <cerrno>
#include <fmt/format.h>

#include "counters/backend_choice.hpp"
#include "counters/event_set.hpp"
#include "counters/memory_source.hpp"

namespace roofprof::counters {
namespace {

const char* kVpmuFix =
    "enable the virtual PMU: QEMU/KVM `-cpu host,pmu=on`, libvirt `<cpu mode='host-passthrough'>` "
    "with `<pmu state='on'/>`, VMware \"Virtualize CPU performance counters\"; in a cloud, use a "
    "bare-metal or PMU-enabled instance type";

bool permission_problem(int err) { return err == EACCES || err == EPERM; }

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

DoctorItem cpu_item(const Capabilities& c) {
  return {"CPU", true,
          fmt::format("{} ({} family {:#x} model {:#x}), {} logical CPUs{}",
                      c.cpu.model_name.empty() ? "unknown" : c.cpu.model_name, c.cpu.vendor,
                      c.cpu.family, c.cpu.model, c.cpu.logical_cpus,
                      c.cpu.has("hypervisor") ? ", under a hypervisor" : ""),
          ""};
}

DoctorItem pmu_item(const Capabilities& c) {
  const std::string lib = c.libpfm_version.empty() ? "libpfm4 (failed to initialise)"
                                                   : "libpfm4 " + c.libpfm_version;
  if (!c.pfm_core_pmus.empty()) return {"PMU model", true, join(c.pfm_core_pmus) + " (" + lib + ")", ""};
  DoctorItem item{"PMU model", false, "none detected by " + lib, ""};
  if (c.hardware_counters || (c.selection.set && !c.cpu.has("hypervisor"))) {
    // The counters open: the library simply has no table for this CPU (Zen 5, GNR, ADL in 4.13).
    item.ok = c.selection.set != nullptr;
    item.text += ": the library has no table for this CPU" +
                 std::string(c.selection.set ? "; roofprof's event set uses its own raw encodings" : "");
  } else if (c.cpu.has("hypervisor") && c.hardware_errno == ENOENT) {
    item.text += ": this VM does not expose the CPU's performance counters";
    item.fix = kVpmuFix;
  } else {
    item.text += ": the library does not know this CPU";
  }
  return item;
}

DoctorItem event_set_item(const Capabilities& c) {
  if (!c.selection.set) return {"event set", false, c.selection.how, ""};
  return {"event set", true,
          fmt::format("{} ({}), chosen by {}; see `roofprof events`", c.selection.set->model,
                      c.selection.set->title, c.selection.how),
          ""};
}

DoctorItem fp_item(const Capabilities& c) {
  DoctorItem item{"FP counters", false, "", ""};
  if (!c.hardware_counters) {
    item.text = "not usable: " + c.hardware_problem;
    if (permission_problem(c.hardware_errno))
      item.fix = "sudo sysctl -w kernel.perf_event_paranoid=2";
    else if (c.cpu.has("hypervisor"))
      item.fix = kVpmuFix;
  } else if (!c.selection.set) {
    item.text = "counters work, but " + c.selection.how;
    item.fix = "give raw libpfm4 events with weights: roofprof run --events ...";
  } else if (c.selection.set->fp_missing) {
    item.text = "not available: " + *c.selection.set->fp_missing;
    item.fix = "roofprof run --backend native ... (flops counted by patched code, the default here)";
  } else {
    item.ok = true;
    item.text = "usable (" + c.selection.set->model + ")";
  }
  return item;
}

// Which Q a `--backend perf` run gets, by the decision the run itself takes (memory_source).
DoctorItem memory_item(const Capabilities& c) {
  DoctorItem item{"memory traffic (Q)", false, "", ""};
  if (!c.hardware_counters || !c.selection.set) {
    item.text = std::string(c.hardware_counters ? "no event set for this CPU" : "no hardware counters") +
                ": runs measure Q only by emulation (--backend emul)";
    if (c.cpu.has("hypervisor") && !c.hardware_counters)
      item.fix = "none inside a VM (memory controllers are not virtualised): run on bare metal";
    return item;
  }
  const MemorySource process = memory_source(c, true);
  if (process.memory_controller) {
    item.ok = true;
    item.text = fmt::format("perf runs count DRAM bytes at the memory controllers ({}), system-wide per socket: "
                            "other processes' traffic is included; --scope thread gets {}",
                            join(c.uncore_pmus), per_core_q(*c.selection.set));
    return item;
  }
  item.text = "perf runs get " + per_core_q(*c.selection.set) + ": " + process.why_not;
  if (!c.uncore_pmus.empty() && !uncore_allowed(c))
    item.fix = "sudo sysctl -w kernel.perf_event_paranoid=0   (or: sudo setcap cap_perfmon+ep "
               "$(command -v roofprof))";
  else if (c.uncore_pmus.empty() && c.cpu.has("hypervisor"))
    item.fix = "none inside a VM (memory controllers are not virtualised): run on bare metal";
  return item;
}

DoctorItem watchdog_item(const Capabilities& c) {
  if (!c.nmi_watchdog) return {"NMI watchdog", true, "off: every hardware counter is available", ""};
  return {"NMI watchdog", false,
          "on (kernel.nmi_watchdog = 1): it holds one hardware counter of every CPU; roofprof's "
          "groups leave it free, so they multiplex more and W and Q are scaled estimates",
          "sudo sysctl -w kernel.nmi_watchdog=0   (perf gives the same advice)"};
}

DoctorItem paranoid_item(const Capabilities& c) {
  if (!c.perf_event_paranoid)
    return {"perf_event_paranoid", false, "unreadable (/proc/sys/kernel/perf_event_paranoid)", ""};
  const int p = *c.perf_event_paranoid;
  const char* meaning = p <= -1  ? "no restrictions"
                        : p == 0 ? "per-process and system-wide (uncore) counting allowed"
                        : p == 1 ? "per-process counting incl. kernel; no system-wide counting"
                        : p == 2 ? "per-process user-level counting only; no uncore"
                                 : "unprivileged perf disabled (Debian default)";
  const bool privileged = c.root || c.cap_perfmon || c.cap_sys_admin;
  DoctorItem item{"perf_event_paranoid", p <= 2 || privileged,
                  fmt::format("{}: {}{}", p, meaning,
                              privileged ? " (roofprof is privileged: not a limit)" : ""),
                  ""};
  if (!item.ok) item.fix = "sudo sysctl -w kernel.perf_event_paranoid=2";
  return item;
}

DoctorItem software_item(const Capabilities& c) {
  if (c.software_counters && !kernel_counting_allowed(c))
    return {"software counters", true,
            "usable at user level only (not root, no CAP_PERFMON, perf_event_paranoid >= 2): task-clock, "
            "page-faults:u (faults inside system calls left out); context-switches not countable",
            "sudo sysctl -w kernel.perf_event_paranoid=1 (or CAP_PERFMON) to count the kernel side too"};
  if (c.software_counters) return {"software counters", true, "usable (task-clock, page-faults, ...)", ""};
  return {"software counters", false, "not usable: " + c.software_problem,
          permission_problem(c.software_errno) ? "sudo sysctl -w kernel.perf_event_paranoid=2" : ""};
}

DoctorItem ptrace_item(const Capabilities& c) {
  const std::string scope =
      c.ptrace_scope ? fmt::format("yama ptrace_scope {}", *c.ptrace_scope) : "no Yama LSM";
  if (c.root || c.cap_sys_ptrace)
    return {"ptrace", true, "allowed: launch and --pid attach (CAP_SYS_PTRACE; " + scope + ")", ""};
  const int s = c.ptrace_scope.value_or(0);
  if (s == 0) return {"ptrace", true, "allowed for your own processes (" + scope + ")", ""};
  if (s == 1)
    return {"ptrace", false, "launching works; --pid attach only to your descendants (" + scope + ")",
            "sudo sysctl -w kernel.yama.ptrace_scope=0   (or run roofprof with CAP_SYS_PTRACE)"};
  if (s == 2)
    return {"ptrace", false, "only with CAP_SYS_PTRACE (" + scope + ")",
            "sudo setcap cap_sys_ptrace+ep $(command -v roofprof), or run as root"};
  return {"ptrace", false, "disabled until reboot (" + scope + ")",
          "set kernel.yama.ptrace_scope=1 in /etc/sysctl.d/ and reboot"};
}

DoctorItem valgrind_item(const Capabilities& c) {
  if (!c.valgrind_version)
    return {"valgrind", false, "not installed: --backend emul is unavailable",
            "sudo apt-get install valgrind"};
  std::string text = "valgrind " + *c.valgrind_version + " (" + c.valgrind_path + ")";
  const auto avx512 = valgrind_supports_avx512(*c.valgrind_version);
  const bool cpu512 = c.cpu.has("avx512f");
  if (avx512 == std::optional<bool>(false))
    text += cpu512 ? "; no AVX-512 support and this CPU has AVX-512: code built for it without a "
                     "runtime check (-march=native, -mavx512f) fails with SIGILL under emulation"
                   : "; no AVX-512 support (this CPU has none either: no effect)";
  else
    text += "; AVX-512 support not known for this version: check valgrind's NEWS";
  return {"valgrind", true, text, ""};
}

DoctorItem auto_item(const Capabilities& c) {
  const BackendChoice b = choose_backend(BackendRequest::automatic, c);
  std::string text = to_string(b.kind) + ": " + b.reason;
  for (const std::string& w : b.warnings) text += "; note: " + w;
  return {"auto backend", true, text, ""};
}

}  // namespace

std::vector<DoctorItem> doctor_items(const Capabilities& c) {
  return {cpu_item(c),      pmu_item(c),      event_set_item(c), fp_item(c),
          memory_item(c),   watchdog_item(c), paranoid_item(c), software_item(c),  ptrace_item(c),
          valgrind_item(c), auto_item(c)};
}

}  // namespace roofprof::counters
