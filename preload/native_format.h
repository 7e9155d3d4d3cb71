/* Native counting (docs/native.md): the contract between the code that counts the work where it
 * runs (trampolines written by roofprof's tracer, native/ and tracer/session_native.cpp) and
 * its readers (the in-process agent, preload/agent/native.c; the tracer at breakpoint stops,
 * counters/native_counters.cpp).
 *
 * Each thread's counts live in its thread control block, which %fs points at on x86-64: glibc's
 * tcbhead_t keeps 512 bytes at offset 0x80 (`__glibc_unused2`, formerly the dynamic linker's
 * SSE save area, unused since glibc 2.26 and kept for the size of the structure). A counting
 * trampoline adds a block's static counts with one instruction per class it has, e.g.
 *
 *   add $8, %fs:RP_NATIVE_SLOT_OFFSET(RP_NATIVE_DP_256)      (48 83 04 25 disp32 imm8, fs prefix)
 *
 * with no register and no system call; the counts are cumulative per thread from the thread's
 * creation (a new thread's block starts at whatever its stack memory held: readers take deltas,
 * and the agent takes each thread's first reading as its zero).
 *
 * The classes are the emulation tool's (docs/emulation.md, "Flops: the rules"), in the order of
 * its counters, so that a region's W reads the same from either mechanism. */
#ifndef ROOFPROF_PRELOAD_NATIVE_FORMAT_H
#define ROOFPROF_PRELOAD_NATIVE_FORMAT_H

#define RP_NATIVE_TCB_OFFSET 0x80 /* offsetof(tcbhead_t, __glibc_unused2), glibc x86-64 */
#define RP_NATIVE_TCB_BYTES 512

enum rp_native_slot {
  RP_NATIVE_SP_SCALAR = 0,
  RP_NATIVE_SP_128 = 1,
  RP_NATIVE_SP_256 = 2,
  RP_NATIVE_SP_512 = 3,
  RP_NATIVE_DP_SCALAR = 4,
  RP_NATIVE_DP_128 = 5,
  RP_NATIVE_DP_256 = 6,
  RP_NATIVE_DP_512 = 7,
  RP_NATIVE_X87 = 8,
  RP_NATIVE_SLOTS = 9
};

/* %fs offset of a slot's 64-bit count */
#define RP_NATIVE_SLOT_OFFSET(slot) (RP_NATIVE_TCB_OFFSET + 8 * (slot))

/* How roofprof tells the agent to read the slots: a group of ROOFPROF_AGENT_EVENTS
 * (record_format.h) whose events have this perf_event_attr.type, which no PMU of the kernel has,
 * and the slot as their config. The agent reads them from the thread's own block (no system
 * call); its process-scope reading sums the blocks of the threads it started and those that
 * exited (preload/agent/native.c). */
#define RP_NATIVE_EVENT_TYPE 0x7e4e0000u

/* The counter names of the slots, as results and the emulation tool name them ("flops_dp_256"). */
#define RP_NATIVE_SLOT_NAMES                                                                       \
  {"flops_sp_scalar", "flops_sp_128", "flops_sp_256", "flops_sp_512", "flops_dp_scalar",           \
   "flops_dp_128",    "flops_dp_256", "flops_dp_512", "flops_x87"}

#endif
