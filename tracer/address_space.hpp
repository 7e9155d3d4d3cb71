#pragma once
// A tracee's address space: its memory, its breakpoints and the scratch slots where the
// instruction under each breakpoint is executed out of line. Breakpoints are refcounted by
// the probes attached to them and keep the original byte.
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "tracer/displaced.hpp"
#include "tracer/memory.hpp"
#include "tracer/probe.hpp"
#include "tracer/tracee_addr.hpp"

namespace roofprof::tracer {

struct Breakpoint {
  TraceeAddr addr;
  uint8_t original = 0;
  std::vector<Probe> probes;
  Displaced displaced;
  TraceeAddr slot;  // Mode::Step only
};

// Maps a scratch page near `hint` into the tracee (runs mmap inside it); returns its address.
using ScratchAllocator = std::function<TraceeAddr(TraceeAddr hint, size_t size)>;

class AddressSpace {
 public:
  explicit AddressSpace(pid_t pid) : pid_(pid), mem_(pid) {}
  pid_t pid() const { return pid_; }
  const TraceeMemory& mem() const { return mem_; }
  // After exec: new memory, no breakpoints, no scratch.
  void reset(pid_t pid);

  // Adds a probe; inserts the int3 and prepares the out-of-line copy on first use. False (and
  // nothing changed) when no scratch slot could be had: the caller leaves that probe out.
  // Throws UserError when the instruction cannot be decoded/relocated or memory is unwritable.
  bool add_probe(TraceeAddr at, const Probe& p, const ScratchAllocator& alloc);
  // Removes one probe equal to `p`; the int3 goes when the last probe goes.
  void remove_probe(TraceeAddr at, const Probe& p);
  // Removes every probe equal to `p`, wherever it is; returns how many went.
  size_t remove_probe_everywhere(const Probe& p);
  const Breakpoint* find(TraceeAddr at) const;
  // `bytes` of executable scratch within rip-relative reach of `near` (entry-patch thunks,
  // written by the caller); null when none could be mapped.
  TraceeAddr take_code(TraceeAddr near, size_t bytes, const ScratchAllocator& alloc);
  // Restores every original byte (before detaching).
  void remove_all();
  // Forgets breakpoints in [lo, hi) whose memory was unmapped (dlclose).
  void forget_range(TraceeAddr lo, TraceeAddr hi);
  // A forked child's copy: same breakpoints and scratch addresses (its memory is a copy).
  std::shared_ptr<AddressSpace> clone_for(pid_t child) const;
  size_t breakpoint_count() const { return bps_.size(); }

 private:
  TraceeAddr take(TraceeAddr near, size_t bytes, size_t page_bytes, const ScratchAllocator& alloc);
  TraceeAddr take_slot(TraceeAddr near, const ScratchAllocator& alloc);
  struct Scratch {
    TraceeAddr base;
    size_t size = 0, used = 0;
  };
  pid_t pid_;
  TraceeMemory mem_;
  std::map<TraceeAddr, Breakpoint> bps_;
  std::vector<Scratch> scratch_;
  // The slot each address had: a breakpoint placed again at the same address (the return
  // site of a function called by one thread after another) reuses it, with the same bytes.
  std::map<TraceeAddr, TraceeAddr> slot_of_;
};

}  // namespace roofprof::tracer
