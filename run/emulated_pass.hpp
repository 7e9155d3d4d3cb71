#pragma once
// The emulated pass, one for `roofprof run` (the two-run method's second run, native counting's
// pass for the bytes below L1, an MPI rank's only run) and `roofprof survey --backend emul`: the
// program once more under valgrind, and what the way it ended means for the result. Nothing
// measured is lost: an interrupted or failed pass leaves W and Q null (never partial) and says
// why, and the caller writes the result before it fails. The callers prepare the run (probes,
// emul::Options: `emulate`) and add what only they add (run: annotation, call groups, the
// simulated caches; survey: self counts); `PassPolicy` is everything else they differ in.
#include <functional>
#include <optional>
#include <string>

#include "emul/emul.hpp"
#include "probes/plan.hpp"
#include "result/result.hpp"

namespace roofprof::run {

struct PassPolicy {
  // null: the regions are a native run's (`res.regions`, timed by a clock), the emulated W and Q
  // are merged into them; else the emulated run's own regions (untimed_regions), their calls'
  // source this ("agent (emulated run)": an MPI rank's only run; "emulated run": the survey).
  std::optional<std::string> untimed_calls_source;
  // The program's exit, the run's completeness and its wall time (null) are the emulated run's:
  // it is the only run (an MPI rank's).
  bool ending_from_emulation = false;
  // A native run ended as `res` says (exit_status, term_signal); an emulated run that ended
  // otherwise does not describe it: W and Q stay null (emulated_pass_cut_short).
  bool compare_native_ending = false;
  // Native counting's pass: the bytes below L1 only (W is native counting's); a failure is a
  // warning (the run stands without those bytes), not an error.
  bool traffic_only = false;
  bool cache_sim = true;
  // W and Q not measured: a warning for each region called, besides the run's one.
  bool warn_each_region = true;
};

struct PassOutcome {
  // The emulated run, when it ran to its end and its counts were merged into `res`.
  std::optional<emul::Result> emulated;
  // A signal to roofprof ended the emulated run or came before it started: `res` is incomplete.
  bool interrupted = false;
  // Why the emulated run failed ("" when it did not, or when the failure is only a warning):
  // the caller writes the result, then fails with it (exit status 2).
  std::string error;
};

// Runs the program under valgrind; throws UserError when it cannot, Interrupted when a signal
// came before valgrind started (emul::run, and whatever the caller prepares first).
using Emulator = std::function<emul::Result()>;

// The pass: `emulate`, then its counts into `res` per `policy`. `planner`: the regions, for the
// untimed ones.
PassOutcome emulated_pass(const PassPolicy& policy, const probes::Planner& planner, const Emulator& emulate,
                          result::Run& res);

// The emulated pass did not run to the program's end (or did not describe it): the result is
// incomplete, W and Q (with `traffic_only`, the bytes below L1) stay null, with `why` on the run
// and, with `each_region`, on each region called.
void not_measured(result::Run& res, bool traffic_only, bool each_region, const std::string& why);

// Progress of the emulated run on stderr: none (-q), a redrawn bar on a terminal, lines otherwise.
emul::Options::ProgressOutput progress_output(bool quiet);

}  // namespace roofprof::run
