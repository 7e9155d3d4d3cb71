#pragma once
// How the instruction under a breakpoint is executed without removing the breakpoint (which
// would let other threads run past it): either emulated in the tracer (trivial instructions
// such as endbr64, nop, push reg, ret, mov reg,reg: no extra stop at all), or copied to a
// scratch slot near the module (rip-relative displacements rewritten) and single-stepped
// there, after which rip and any pushed return address are mapped back.
#include <sys/user.h>

#include <array>
#include <cstdint>
#include <string>

#include "tracer/memory.hpp"
#include "tracer/tracee_addr.hpp"

namespace roofprof::tracer {

struct Displaced {
  enum class Mode { Emulate, Step };
  enum class Op { None, Nop, Push, Ret, MovRegReg };
  Mode mode = Mode::Step;
  Op op = Op::None;
  int src_reg = -1;  // user_regs_struct index (Push, MovRegReg)
  int dst_reg = -1;  // MovRegReg
  uint8_t len = 0;
  std::array<uint8_t, 16> copy{};  // Step: the relocated instruction for the slot
  bool relative_branch = false;    // jmp/jcc/call/loop with a relative target
  bool is_call = false;            // pushes a return address
  std::string text;                // disassembly, for diagnostics
};

// Decodes the instruction at `at` (its original bytes in `code`, up to 16) and prepares it to
// run from `slot`. Throws UserError if it cannot be decoded or relocated.
Displaced prepare_displaced(const uint8_t* code, size_t avail, TraceeAddr at, TraceeAddr slot);

// Mode::Emulate: applies the instruction's effect to regs (and memory for push/ret).
// Returns false if memory could not be accessed.
bool emulate(const Displaced& d, user_regs_struct& regs, const TraceeMemory& mem, TraceeAddr at);

// Mode::Step, after one single-step from `slot`: map rip and the pushed return address back.
bool fixup_after_step(const Displaced& d, user_regs_struct& regs, const TraceeMemory& mem, TraceeAddr at,
                      TraceeAddr slot);

}  // namespace roofprof::tracer
