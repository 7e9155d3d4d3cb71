#pragma once
// roofprof's side of the reader's doorbell (preload/record_format.h, struct rp_doorbell): the
// reader sleeps on it instead of polling the rings; the agents ring it when a ring fills past
// its mark, when a thread waits for a slot, and when a thread or a process exits; SIGCHLD rings
// it too while a ChildSignal lives, so that a stop or an exit of the program cuts the sleep short
// (docs/preload.md, "Records and the C++ side").
#include <signal.h>

#include <cstdint>
#include <string>

#include "preload/record_format.h"

namespace roofprof::preload {

class Doorbell {
 public:
  // Creates DIR/doorbell (before the program starts: each agent maps it at its start).
  explicit Doorbell(const std::string& dir);
  ~Doorbell();
  Doorbell(const Doorbell&) = delete;
  Doorbell& operator=(const Doorbell&) = delete;

  struct Armed {
    uint32_t seq = 0;    // the futex value to sleep on
    uint32_t rings = 0;  // the agents' rings so far
  };
  // The reader is about to sleep: sets `waiting`, then a full fence. Returns what to sleep on. Whatever the caller then finds (a ring past its mark, a child's stop) it may act on
  // without sleeping; whatever happens after arm() rings the bell.
  Armed arm();
  // Sleeps until the bell rings after arm() returned `armed`, a signal arrives, or `timeout_ns`
  // passes; clears `waiting`. Returns true when an agent rang (not a signal, not the timeout).
  bool sleep(Armed armed, int64_t timeout_ns);
  // Leaves without sleeping.
  void disarm();
  // Times the agents rang.
  uint32_t rings() const;

  // While it lives, SIGCHLD rings this bell (the handler is async-signal-safe: an atomic add and
  // a FUTEX_WAKE), without SA_RESTART; the previous disposition comes back at its end.
  class ChildSignal {
   public:
    explicit ChildSignal(Doorbell& bell);
    ~ChildSignal();
    ChildSignal(const ChildSignal&) = delete;
    ChildSignal& operator=(const ChildSignal&) = delete;

   private:
    struct sigaction old_ {};
  };

 private:
  rp_doorbell* bell_ = nullptr;
};

}  // namespace roofprof::preload
