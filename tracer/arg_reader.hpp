#pragma once
// The arguments of a call at a function's entry, read from a ptrace-stopped thread.
#include <sys/user.h>

#include "signatures/arg_reader.hpp"
#include "tracer/call_path.hpp"
#include "tracer/memory.hpp"

namespace roofprof::tracer {

class StoppedThreadArgs : public signatures::ArgReader {
 public:
  StoppedThreadArgs(const user_regs_struct& regs, const TraceeMemory& mem, Unwinder& unwinder, pid_t tid, pid_t tgid)
      : regs_(regs), mem_(mem), unwinder_(unwinder), tid_(tid), tgid_(tgid) {}
  uint64_t reg(int i) override;
  uint64_t stack_pointer() override { return regs_.rsp; }
  std::optional<uint64_t> read_u64(uint64_t addr) override { return mem_.read_u64(TraceeAddr(addr)); }
  std::optional<int32_t> read_i32(uint64_t addr) override;
  std::vector<uint64_t> return_addresses(int depth) override {
    return unwinder_.return_addresses(tid_, regs_, mem_, depth);
  }
  int process() override { return tgid_; }

 private:
  const user_regs_struct& regs_;
  const TraceeMemory& mem_;
  Unwinder& unwinder_;
  pid_t tid_, tgid_;
};

}  // namespace roofprof::tracer
