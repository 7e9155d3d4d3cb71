#include "tracer/arg_reader.hpp"

namespace roofprof::tracer {

uint64_t StoppedThreadArgs::reg(int i) {
  switch (i) {  // System V x86-64 integer argument registers
    case 0: return regs_.rdi;
    case 1: return regs_.rsi;
    case 2: return regs_.rdx;
    case 3: return regs_.rcx;
    case 4: return regs_.r8;
    case 5: return regs_.r9;
    default: return 0;
  }
}

std::optional<int32_t> StoppedThreadArgs::read_i32(uint64_t addr) {
  int32_t v = 0;
  if (!mem_.read(TraceeAddr(addr), &v, sizeof v)) return std::nullopt;
  return v;
}

}  // namespace roofprof::tracer
