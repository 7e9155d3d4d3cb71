#pragma once
// The call path of a call stopped at its function's first instruction: the return address on
// the stack, then the callers' return addresses unwound by libunwind through ptrace (DWARF CFI,
// frame pointers where the CFI has none). `roofprof run --group-by caller[:DEPTH]`.
#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <map>
#include <vector>

#include "tracer/memory.hpp"

namespace roofprof::tracer {

class Unwinder {
 public:
  Unwinder();
  ~Unwinder();
  Unwinder(const Unwinder&) = delete;
  Unwinder& operator=(const Unwinder&) = delete;

  // Return addresses, innermost first, at most `depth`: [rsp] of the stopped entry, then the
  // callers'. Fewer when the stack ends or cannot be unwound further; empty when [rsp] cannot be
  // read. `tid` is stopped under ptrace with `regs` at the entry of a function.
  std::vector<uint64_t> return_addresses(pid_t tid, const user_regs_struct& regs, const TraceeMemory& mem,
                                         int depth);
  // A thread is gone: its unwinding state goes too.
  void forget(pid_t tid);

 private:
  void* space_ = nullptr;            // unw_addr_space_t
  std::map<pid_t, void*> threads_;   // _UPT_create per thread, kept for libunwind's caches
};

}  // namespace roofprof::tracer
