#pragma once
// The arguments of a call at a function's entry, read from a ptrace-stopped thread.
#include <sys/user.h>

#include "signatures/arg_reader.hpp"
#include "tracer/memory.hpp"

namespace roofprof::tracer {

class StoppedThreadArgs : public signatures::ArgReader {
 public:
  StoppedThreadArgs(const user_regs_struct& regs, const TraceeMemory& mem) : regs_(regs), mem_(mem) {}
  uint64_t reg(int i) override;
  uint64_t stack_pointer() override { return regs_.rsp; }
  std::optional<uint64_t> read_u64(uint64_t addr) override { return mem_.read_u64(TraceeAddr(addr)); }
  std::optional<int32_t> read_i32(uint64_t addr) override;

 private:
  const user_regs_struct& regs_;
  const TraceeMemory& mem_;
};

}  // namespace roofprof::tracer
