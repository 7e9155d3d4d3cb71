#include "run/emulated_pass.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstring>

#include "common/error.hpp"
#include "run/assemble.hpp"
#include "run/emul_merge.hpp"
#include "supervisor/signals.hpp"

namespace roofprof::run {

namespace {

// The emulated run was the only one: the program's exit and the run's completeness are its own,
// and no clock timed the run.
void take_ending(const emul::Result& emulated, result::Run& res) {
  res.wall_time_s = std::nullopt;
  res.complete = !emulated.interrupted && emulated.signal == 0;
  if (emulated.signal) res.term_signal = emulated.signal;
  else if (emulated.exit_code >= 0) res.exit_status = emulated.exit_code;
}

// Why the emulated run, which ran, measured nothing that describes the program (null: it does).
std::optional<std::string> unmeasured_because(const PassPolicy& policy, const emul::Result& emulated,
                                              const result::Run& res) {
  // Part of the program ran emulated: its W and Q would pass for the whole run's.
  if (emulated.interrupted) return std::string("the emulated run was interrupted");
  if (policy.compare_native_ending) return emulated_pass_cut_short(emulated, res.exit_status, res.term_signal);
  return std::nullopt;
}

void failed(const PassPolicy& policy, const std::string& what, result::Run& res, PassOutcome& out) {
  if (policy.traffic_only) {
    // Native counting measured W: the run stands without the bytes below L1.
    res.warnings.push_back("bytes (Q) below L1 were not measured: the emulated run failed: " + what);
    return;
  }
  // What the other passes measured is kept; the caller fails as bad input does once it is written.
  res.warnings.push_back("emulated run failed: " + what);
  out.error = what;
}

}  // namespace

void not_measured(result::Run& res, bool traffic_only, bool each_region, const std::string& why) {
  res.complete = false;
  res.warnings.push_back(why + (traffic_only ? ": bytes (Q) below L1 were not measured (null)"
                                             : ": flops and bytes were not measured (null)"));
  if (!each_region) return;
  for (auto& w : unmeasured_region_warnings(res.regions, traffic_only, why)) res.warnings.push_back(std::move(w));
}

PassOutcome emulated_pass(const PassPolicy& policy, const probes::Planner& planner, const Emulator& emulate,
                          result::Run& res) {
  PassOutcome out;
  try {
    // A request before the pass (after the native run ended whole): it does not start.
    if (supervisor::interrupted()) throw Interrupted(supervisor::last_request_signal());
    emul::Result emulated = emulate();
    if (policy.untimed_calls_source)
      res.regions = untimed_regions(planner, emulated.aggregate, *policy.untimed_calls_source);
    if (policy.ending_from_emulation) take_ending(emulated, res);
    out.interrupted = emulated.interrupted;
    if (auto why = unmeasured_because(policy, emulated, res)) {
      not_measured(res, policy.traffic_only, policy.warn_each_region, *why);
      return out;
    }
    for (auto& w : merge_emulated(res.regions, emulated, policy.cache_sim, policy.traffic_only))
      res.warnings.push_back(std::move(w));
    out.emulated = std::move(emulated);
  } catch (const Interrupted& e) {
    // The emulated run never ran.
    out.interrupted = true;
    not_measured(res, policy.traffic_only, policy.warn_each_region,
                 fmt::format("roofprof was interrupted (SIG{}) before the emulated run", sigabbrev_np(e.signal())));
  } catch (const UserError& e) {
    failed(policy, e.what(), res, out);
  }
  return out;
}

emul::Options::ProgressOutput progress_output(bool quiet) {
  if (quiet) return emul::Options::ProgressOutput::None;
  return isatty(2) ? emul::Options::ProgressOutput::Terminal : emul::Options::ProgressOutput::Lines;
}

}  // namespace roofprof::run
