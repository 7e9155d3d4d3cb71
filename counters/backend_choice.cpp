#include "counters/backend_choice.hpp"

#include "common/error.hpp"
#include "common/run_words.hpp"
#include "counters/event_set.hpp"

namespace roofprof::counters {
namespace {

std::string set_name(const Capabilities& c) {
  return c.selection.set ? c.selection.set->model : std::string("none");
}

// The event set can give W: a set exists and it has FP counters.
bool hardware_gives_w(const Capabilities& c) {
  return c.selection.set && !c.selection.set->fp_missing;
}

std::string why_no_w(const Capabilities& c) {
  if (!c.selection.set) return c.selection.how;
  return "event set " + c.selection.set->model + ": " + *c.selection.set->fp_missing;
}

void add_emul_warnings(const Capabilities& c, BackendChoice& out) {
  if (!c.cpu.has("avx512f") || !c.valgrind_version) return;
  if (valgrind_supports_avx512(*c.valgrind_version) == std::optional<bool>(false))
    out.warnings.push_back("valgrind " + *c.valgrind_version +
                           " cannot run AVX-512 code: programs built for it without a runtime "
                           "check (-march=native, -mavx512f) die with SIGILL under emulation; "
                           "dispatching libraries take their AVX2 paths");
}

BackendChoice choose_perf(const Capabilities& c, bool explicit_request) {
  if (!c.hardware_counters) {
    if (explicit_request)
      throw UserError("--backend perf: hardware counters are not usable here (" +
                      c.hardware_problem + "); run `roofprof doctor`, or use --backend emul or time");
    return {};
  }
  BackendChoice out{BackendKind::perf, "hardware counters usable (event set " + set_name(c) + ", " +
                                           c.selection.how + ")", {}};
  if (!hardware_gives_w(c)) out.warnings.push_back("W is not measured: " + why_no_w(c));
  return out;
}

BackendChoice choose_emul(const Capabilities& c, const std::string& why) {
  BackendChoice out{BackendKind::emul, (why.empty() ? "" : why + "; ") + "valgrind " + *c.valgrind_version +
                                           " found: exact counts by emulation (much slower)", {}};
  add_emul_warnings(c, out);
  return out;
}

BackendChoice choose_native(const Capabilities& c, const std::string& why) {
  BackendChoice out{BackendKind::native, why + ": flops counted where they run, by patched code (native counting)", {}};
  if (c.valgrind_version) {
    out.traffic_by_emulation = true;
    out.reason += "; bytes below L1 by an emulated run (valgrind " + *c.valgrind_version + ") with --emul-budget";
  } else {
    out.warnings.push_back("bytes (Q) are not measured: no hardware counters and no valgrind for an emulated run "
                           "(sudo apt-get install valgrind)");
  }
  return out;
}

}  // namespace

std::string to_string(BackendKind kind) {
  switch (kind) {
    case BackendKind::perf: return run_words::kPerf;
    case BackendKind::emul: return run_words::kEmul;
    case BackendKind::time: return run_words::kTime;
    case BackendKind::native: return run_words::kNative;
  }
  return run_words::kTime;
}

std::string to_string(BackendRequest request) {
  switch (request) {
    case BackendRequest::automatic: return run_words::kAuto;
    case BackendRequest::perf: return to_string(BackendKind::perf);
    case BackendRequest::native: return to_string(BackendKind::native);
    case BackendRequest::emul: return to_string(BackendKind::emul);
    case BackendRequest::time: return to_string(BackendKind::time);
  }
  return run_words::kAuto;
}

BackendChoice choose_backend(BackendRequest requested, const Capabilities& c) {
  switch (requested) {
    case BackendRequest::perf: return choose_perf(c, true);
    case BackendRequest::emul:
      if (!c.valgrind_version)
        throw UserError("--backend emul needs valgrind, which is not installed: "
                        "sudo apt-get install valgrind");
      return choose_emul(c, "requested");
    case BackendRequest::time: return {BackendKind::time, "requested: wall time and software counters only", {}};
    case BackendRequest::native: return choose_native(c, "requested");
    case BackendRequest::automatic: break;
  }
  if (c.hardware_counters && hardware_gives_w(c)) return choose_perf(c, false);
  const std::string why = c.hardware_counters ? "hardware counters cannot give W (" + why_no_w(c) + ")"
                                              : "no usable hardware counters (" + c.hardware_problem + ")";
  return choose_native(c, why);
}

BackendChoice choose_without_native(const Capabilities& c, const std::string& why) {
  if (c.valgrind_version) return choose_emul(c, why);
  if (c.hardware_counters) return choose_perf(c, false);
  return {BackendKind::time, (why.empty() ? "" : why + ", and ") + "no valgrind: wall time and software counters only",
          {"install valgrind (sudo apt-get install valgrind) for flops and bytes by emulation"}};
}

}  // namespace roofprof::counters
