#pragma once
// Sampling a started program: one perf_event per CPU (cpu-clock, a software event that
// needs no PMU; inherited by its threads and children), its ring buffer read while it runs.
// Each sample is the interrupted instruction and its user call chain: unwound with DWARF CFI from
// the sample's registers and copy of the user stack (survey/stack_unwind.hpp), else the chain the
// kernel walked by frame pointers; each mmap of an executable file is kept to symbolize them
// (docs/survey.md).
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace roofprof::survey {

struct Sample {
  uint32_t pid = 0, tid = 0;
  uint64_t ip = 0;                  // where the program was interrupted (a kernel address in a system call)
  std::vector<uint64_t> callers;    // user return addresses, innermost first
  bool unwound = false;             // callers unwound with CFI (else the kernel's frame-pointer walk)
};

// The top of the user stack each sample copies (PERF_SAMPLE_STACK_USER) for CFI unwinding.
inline constexpr size_t kStackCopyBytes = 16 * 1024;

class StackUnwinder;

struct Mapping {  // a PERF_RECORD_MMAP2 of an executable file
  uint32_t pid = 0;
  uint64_t start = 0, len = 0, pgoff = 0;
  std::string path;
};

struct Samples {
  std::vector<Sample> samples;
  std::vector<Mapping> mappings;  // in the order the program mapped them
  uint64_t lost = 0;              // samples the kernel dropped (ring buffer full)
  double period_s = 0;            // CPU time each sample stands for
  // The kernel's part was not sampled: an ordinary user where perf_event_paranoid is 2 may
  // sample user space only. Time in system calls is then in no sample.
  bool user_only = false;
  bool stacks_copied = false;  // samples carried their stacks for CFI unwinding (--unwind cfi)
};

class Sampler {
 public:
  // Opens the event on `pid` (stopped before its exec: counting starts at the exec) at
  // `rate_hz` samples per second of CPU time. `copy_stacks`: each sample also copies the user
  // registers and kStackCopyBytes of user stack, and its callers are unwound with CFI; else
  // they are the kernel's frame-pointer walk only. Throws UserError with advice when it cannot.
  Sampler(pid_t pid, unsigned rate_hz, bool copy_stacks);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;
  // Reads what the ring buffers hold into `out` (call it often enough not to lose samples).
  // Samples with stack copies are unwound for at most a few milliseconds per call, the rest kept
  // for later calls; `all`: every one (the program has ended).
  void drain(Samples& out, bool all = false);
  struct Pending;
  bool user_only() const { return user_only_; }

 private:
  bool user_only_ = false;
  struct Ring;
  std::vector<std::unique_ptr<Ring>> rings_;  // one per CPU
  std::unique_ptr<StackUnwinder> unwinder_;
  std::vector<Pending> pending_;  // samples read, not yet unwound, oldest first
  size_t backlog_bytes_ = 0;      // their stack copies
};

}  // namespace roofprof::survey
