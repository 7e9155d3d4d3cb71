#pragma once
// What the code that orchestrates a run wants to hear from a probe mechanism while the program
// runs, and the few answers it gives back (the group of a call, an eviction before an
// outermost call). One interface for every mechanism (the tracer, the in-process agent's
// replay), implemented by the orchestration (run/observer.hpp); every method has a default
// that does nothing, so a mechanism calls it whether or not anyone listens.
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "regions/tracker.hpp"

namespace roofprof::signatures {
class ArgReader;
}

namespace roofprof::regions {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // The program's regions have resolved: nothing more can be bad input. A mechanism may say it
  // more than once (at each exec of the program, at each run of --repeat).
  virtual void ready() {}
  // The group key of a call of function region `id`, from its arguments at entry ("": none).
  virtual std::string key_at_entry(RegionId /*id*/, signatures::ArgReader& /*args*/) { return ""; }
  // Whether calls the in-process agent recorded are grouped by their return address (run
  // --group-by caller): the agent then records it, and key_of_return() gives the group.
  virtual bool keys_returns() const { return false; }
  virtual std::string key_of_return(RegionId /*id*/, int /*pid*/, uint64_t /*return_address*/) { return ""; }
  // A module the in-process agent saw mapped in process `pid` at `bias`.
  virtual void module_seen(int /*pid*/, const std::string& /*path*/, uint64_t /*bias*/) {}
  // Whether before_outermost_entry() does anything (the tracer then looks for outermost calls).
  virtual bool acts_before_outermost_entry() const { return false; }
  // At the entry of a function region that no open function region of the same thread
  // encloses, while the thread is stopped and before the entry's time and counts are read
  // (run --cache-state cold evicts the caches here).
  virtual void before_outermost_entry(pid_t /*tid*/) {}
};

// The observer of a run no one observes.
inline RunObserver& no_observer() {
  static RunObserver none;
  return none;
}

}  // namespace roofprof::regions
