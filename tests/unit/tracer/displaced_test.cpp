#include "tracer/displaced.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

#include "tracer/wait_status.hpp"

namespace roofprof::tracer {
namespace {

TEST(Displaced, TrivialInstructionsAreEmulated) {
  const uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
  auto d = prepare_displaced(endbr64, sizeof endbr64, TraceeAddr(0x1000), TraceeAddr(0x2000));
  EXPECT_EQ(d.mode, Displaced::Mode::Emulate);
  EXPECT_EQ(d.len, 4);
  const uint8_t push_rbp[] = {0x55};
  EXPECT_EQ(prepare_displaced(push_rbp, 1, TraceeAddr(0x1000), TraceeAddr(0x2000)).op, Displaced::Op::Push);
  const uint8_t ret[] = {0xc3};
  EXPECT_EQ(prepare_displaced(ret, 1, TraceeAddr(0x1000), TraceeAddr(0x2000)).op, Displaced::Op::Ret);
  const uint8_t mov_rbp_rsp[] = {0x48, 0x89, 0xe5};
  EXPECT_EQ(prepare_displaced(mov_rbp_rsp, 3, TraceeAddr(0x1000), TraceeAddr(0x2000)).op,
            Displaced::Op::MovRegReg);
}

TEST(Displaced, RipRelativeDisplacementIsRewrittenForTheSlot) {
  // mov rax, [rip + 0x100]  (48 8b 05 00 01 00 00), at 0x10000, slot at 0x20000
  const uint8_t insn[] = {0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00};
  auto d = prepare_displaced(insn, sizeof insn, TraceeAddr(0x10000), TraceeAddr(0x20000));
  ASSERT_EQ(d.mode, Displaced::Mode::Step);
  int32_t disp = 0;
  std::memcpy(&disp, d.copy.data() + 3, 4);
  // The same absolute target: 0x10000 + 7 + 0x100 == 0x20000 + 7 + disp
  EXPECT_EQ(0x20000 + 7 + int64_t(disp), 0x10000 + 7 + 0x100);
  EXPECT_FALSE(d.relative_branch);
}

// Capstone 4 reports a 2-byte displacement for SSE instructions with a 66 prefix; a
// rip-relative displacement is always 4 bytes (found in python3's code with --region '*').
TEST(Displaced, SseRipRelativeWithAnOperandSizePrefixIsRelocated) {
  // movdqa xmm0, [rip + 0x972e8]  (66 0f 6f 05 e8 72 09 00), at 0x10000, slot at 0x20000
  const uint8_t insn[] = {0x66, 0x0f, 0x6f, 0x05, 0xe8, 0x72, 0x09, 0x00};
  auto d = prepare_displaced(insn, sizeof insn, TraceeAddr(0x10000), TraceeAddr(0x20000));
  ASSERT_EQ(d.mode, Displaced::Mode::Step);
  int32_t disp = 0;
  std::memcpy(&disp, d.copy.data() + 4, 4);
  EXPECT_EQ(0x20000 + 8 + int64_t(disp), 0x10000 + 8 + 0x972e8);
}

TEST(Displaced, FixupMapsRipAndTheReturnAddressBack) {
  // call rel32 (+0x50) at 0x10000, stepped at slot 0x20000.
  const uint8_t call[] = {0xe8, 0x50, 0x00, 0x00, 0x00};
  auto d = prepare_displaced(call, sizeof call, TraceeAddr(0x10000), TraceeAddr(0x20000));
  ASSERT_EQ(d.mode, Displaced::Mode::Step);
  EXPECT_TRUE(d.relative_branch);
  EXPECT_TRUE(d.is_call);
  // Our own memory stands in for the tracee's: the "stack" is a local variable.
  uint64_t stack_slot = 0x20005;  // what the CPU pushed when running the copy
  TraceeMemory mem(getpid());
  user_regs_struct regs{};
  regs.rip = 0x20000 + 5 + 0x50;
  regs.rsp = reinterpret_cast<uint64_t>(&stack_slot);
  ASSERT_TRUE(fixup_after_step(d, regs, mem, TraceeAddr(0x10000), TraceeAddr(0x20000)));
  EXPECT_EQ(regs.rip, 0x10000u + 5 + 0x50);
  EXPECT_EQ(stack_slot, 0x10005u);
}

TEST(Displaced, FallThroughReturnsAfterTheOriginal) {
  const uint8_t add[] = {0x48, 0x01, 0xd8};  // add rax, rbx
  auto d = prepare_displaced(add, sizeof add, TraceeAddr(0x10000), TraceeAddr(0x20000));
  TraceeMemory mem(getpid());
  user_regs_struct regs{};
  regs.rip = 0x20003;
  ASSERT_TRUE(fixup_after_step(d, regs, mem, TraceeAddr(0x10000), TraceeAddr(0x20000)));
  EXPECT_EQ(regs.rip, 0x10003u);
}

TEST(Displaced, EmulatedPushAndRetMoveTheStack) {
  uint64_t stack[4] = {0, 0, 0, 0x4242};
  TraceeMemory mem(getpid());
  user_regs_struct regs{};
  regs.rsp = reinterpret_cast<uint64_t>(&stack[3]);
  regs.rbp = 0x1234;
  const uint8_t push_rbp[] = {0x55};
  auto push = prepare_displaced(push_rbp, 1, TraceeAddr(0x1000), TraceeAddr(0));
  ASSERT_TRUE(emulate(push, regs, mem, TraceeAddr(0x1000)));
  EXPECT_EQ(stack[2], 0x1234u);
  EXPECT_EQ(regs.rip, 0x1001u);
  const uint8_t ret_insn[] = {0xc3};
  regs.rsp = reinterpret_cast<uint64_t>(&stack[3]);
  auto ret = prepare_displaced(ret_insn, 1, TraceeAddr(0x1000), TraceeAddr(0));
  ASSERT_TRUE(emulate(ret, regs, mem, TraceeAddr(0x1000)));
  EXPECT_EQ(regs.rip, 0x4242u);
  EXPECT_EQ(regs.rsp, reinterpret_cast<uint64_t>(&stack[4]));
}

TEST(WaitStatus, NamesEveryKindOfStop) {
  EXPECT_EQ(WaitStatus(3 << 8).type(), WaitStatus::Type::Exited);
  EXPECT_EQ(WaitStatus(3 << 8).exit_code(), 3);
  EXPECT_EQ(WaitStatus(11).type(), WaitStatus::Type::FatalSignal);
  EXPECT_EQ(WaitStatus(11).fatal_sig(), 11);
  EXPECT_EQ(WaitStatus(0x057f).type(), WaitStatus::Type::SignalStop);
  EXPECT_EQ(WaitStatus(0x057f).stop_sig(), 5);
  EXPECT_EQ(WaitStatus(0x3057f).type(), WaitStatus::Type::PtraceEvent);  // PTRACE_EVENT_CLONE
  EXPECT_EQ(WaitStatus(0x3057f).ptrace_event(), 3);
  EXPECT_EQ(WaitStatus((128 << 16) | 0x137f).type(), WaitStatus::Type::GroupStop);
}

TEST(WaitStatus, AJobStopIsAGroupStopOfAStoppingSignal) {
  EXPECT_TRUE(WaitStatus((128 << 16) | 0x137f).is_job_stop());   // SIGSTOP
  EXPECT_TRUE(WaitStatus((128 << 16) | 0x147f).is_job_stop());   // SIGTSTP
  EXPECT_TRUE(WaitStatus((128 << 16) | 0x157f).is_job_stop());   // SIGTTIN
  EXPECT_TRUE(WaitStatus((128 << 16) | 0x167f).is_job_stop());   // SIGTTOU
  EXPECT_FALSE(WaitStatus((128 << 16) | 0x057f).is_job_stop());  // PTRACE_INTERRUPT's stop (SIGTRAP)
  EXPECT_FALSE(WaitStatus(0x137f).is_job_stop());                // SIGSTOP's signal-delivery stop
}

}  // namespace
}  // namespace roofprof::tracer
