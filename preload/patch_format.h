/* Entry patches: the contract between roofprof's tracer, which writes them (probes/entry_patch,
 * tracer/session_patches.cpp), and the in-process agent, which runs them
 * (preload/agent/trampoline.S, thread.c). docs/preload.md, "Entry patches".
 *
 * The first bytes of a patched function are a 5-byte `jmp rel32` to its thunk, in a scratch
 * page the tracer maps near the function's module:
 *
 *   thunk + 0                      push %r11                         (the program's r11)
 *   thunk + 2                      lea desc(%rip), %r11
 *   thunk + 9                      jmp *RP_PATCH_ENTRY_SYMBOL        (ff 25, then the address)
 *   thunk + RP_PATCH_DESC_OFFSET   struct rp_patch_desc
 *   thunk + RP_PATCH_CODE_OFFSET   the displaced instructions, relocated (a relative jmp or
 *                                  jcc as an absolute jump), then jmp *(entry + their length)
 *
 * RP_PATCH_ENTRY_SYMBOL records the entry of `desc->region` (as for a GOT hook: shadow stack,
 * return address replaced by the exit stub), restores r11 and the flags and jumps to
 * `desc->continuation`, the relocated instructions, with every register as the function's
 * caller left it. A patch's region id has RP_PATCH_REGION_FLAG set; the tracer alone knows which
 * regions it stands for, so the agent writes no table line for it. */
#ifndef ROOFPROF_PRELOAD_PATCH_FORMAT_H
#define ROOFPROF_PRELOAD_PATCH_FORMAT_H

#include <stdint.h>

#define RP_PATCH_ENTRY_SYMBOL "roofprof_patch_entry"
#define RP_PATCH_REGION_FLAG 0x80000000u
/* The agent's own calibration calls at start (preload/agent/calibrate.c): never a region. */
#define RP_CALIBRATION_REGION 0xffffffffu
#define RP_CALIBRATION_CALLS 256u /* its loop's calls with the run's counters (then as many clock-only) */
#define RP_PATCH_JUMP_BYTES 5u     /* e9 rel32 at the function's entry */
#define RP_PATCH_DESC_OFFSET 24u /* after 2 + 7 + 14 bytes of code */
#define RP_PATCH_CODE_OFFSET 40u
#define RP_PATCH_THUNK_BYTES 160u  /* room for the longest relocated prologue (5 instructions of
                                      at most 16 bytes each) and the jump back */

/* Span patches: a boundary of an inlined copy of a region function (its entry point, an exit, a
 * re-entry; docs/methodology.md, "Inlined copies") in the middle of a function, which may keep
 * data in the red zone below its stack pointer. Its thunk steps over the red zone first:
 *
 *   thunk + 0                      lea -128(%rsp), %rsp
 *   thunk + 5                      push %r11
 *   thunk + 7                      lea desc(%rip), %r11
 *   thunk + 14                     jmp *RP_PATCH_SPAN_SYMBOL
 *   thunk + RP_SPAN_DESC_OFFSET    struct rp_patch_desc (role: RP_SITE_SPAN_*)
 *   thunk + RP_SPAN_CODE_OFFSET    lea 128(%rsp), %rsp, then the displaced instructions,
 *                                  relocated, then jmp *(site + their length)
 *
 * RP_PATCH_SPAN_SYMBOL records the boundary (a span record of `desc->role`), restores every
 * register and the flags and jumps to `desc->continuation` with the stack pointer 128 below the
 * program's. */
#define RP_PATCH_SPAN_SYMBOL "roofprof_patch_span"
#define RP_PATCH_RED_ZONE 128u
#define RP_SPAN_DESC_OFFSET 32u /* after 5 + 2 + 7 + 14 bytes of code */
#define RP_SPAN_CODE_OFFSET 48u

struct rp_patch_desc {
  uint32_t region;       /* RP_PATCH_REGION_FLAG | the tracer's patch id */
  uint32_t role;         /* a span patch's RP_SITE_SPAN_* (probes/site_role.h); 0 at an entry */
  uint64_t continuation; /* absolute address of the relocated instructions */
};

#endif
