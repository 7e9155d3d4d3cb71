/* Trampolines of the in-process agent (x86-64 SysV).
 *
 * rp_stubs: RP_MAX_HOOKS stubs of 16 bytes, stub i = "r11d = i; jump to rp_entry_common".
 * A hooked GOT slot points to the stub of its (region, target) pair (hooks.c). They are
 * assembled here rather than generated at run time: no writable+executable page is needed.
 *
 * rp_entry_common: saves every register that can carry arguments (rdi, rsi, rdx, rcx, r8,
 * r9, rax = vector count of variadic calls, r10 = static chain, xmm0-7), calls
 * rp_on_enter(i, &return_address_slot), restores them and jumps to the real function with the
 * stack exactly as the caller left it: arguments passed on the stack stay in place, so any
 * signature works. rp_on_enter may have replaced the return address with rp_exit_stub.
 *
 * rp_exit_stub: where a recorded call returns. Saves the caller-saved registers (return values
 * included), calls rp_on_exit(stack pointer), restores them and returns to the original return
 * address, written back into the slot. The x87 registers (long double results in st0/st1) are untouched because the C
 * code runs with -mgeneral-regs-only and so never uses the x87 unit.
 *
 * roofprof_patch_entry: the same, for a function whose entry the tracer patched
 * (preload/patch_format.h): r11 points to the patch's descriptor, and the handler returns the
 * relocated first instructions of the function.
 *
 * roofprof_patch_span: a boundary of an inlined copy inside a function (a span patch,
 * preload/patch_format.h): saves the flags and every general register the C code may change,
 * calls rp_on_span_patch(descriptor, the program's stack pointer) and goes on at the relocated
 * instructions with every register as the program had it.
 *
 * r11 is the scratch register: the ABI reserves it for neither arguments nor results.
 */
#define RP_MAX_HOOKS 8192

        .text

/* ENTRY_PATH name, handler, patch: saves the argument registers, calls
 * handler(r11, &return slot), restores them and goes on where the handler said.
 * patch = 1 (roofprof_patch_entry): the thunk pushed the program's r11 before loading the
 * descriptor into it, and the flags are kept too; both are restored before the continuation
 * runs, which is entered through the stack's red zone so that no register is used. A patched
 * function may be a local one whose callers keep values in registers the ABI lets it clobber
 * (GCC's interprocedural register allocation, -fipa-ra), so nothing but what it would see
 * called directly may change. */
        .macro  ENTRY_PATH name, handler, patch
\name:
        .cfi_startproc
        .if \patch
        .cfi_adjust_cfa_offset 8        /* the program's r11, pushed by the thunk */
        .endif
        endbr64
        .if \patch
        pushfq                          /* the flags the function is entered with */
        .cfi_adjust_cfa_offset 8
        .endif
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %rbp, 0
        movq    %rsp, %rbp
        .cfi_def_cfa_register %rbp
        andq    $-16, %rsp
        subq    $192, %rsp
        movq    %rdi, 0(%rsp)
        movq    %rsi, 8(%rsp)
        movq    %rdx, 16(%rsp)
        movq    %rcx, 24(%rsp)
        movq    %r8, 32(%rsp)
        movq    %r9, 40(%rsp)
        movq    %rax, 48(%rsp)
        movq    %r10, 56(%rsp)
        movups  %xmm0, 64(%rsp)
        movups  %xmm1, 80(%rsp)
        movups  %xmm2, 96(%rsp)
        movups  %xmm3, 112(%rsp)
        movups  %xmm4, 128(%rsp)
        movups  %xmm5, 144(%rsp)
        movups  %xmm6, 160(%rsp)
        movups  %xmm7, 176(%rsp)
        movq    %r11, %rdi              /* stub index, or the patch's descriptor */
        leaq    8+16*\patch(%rbp), %rsi  /* the return-address slot */
        call    \handler
        movq    %rax, %r11              /* where the call goes on */
        movq    0(%rsp), %rdi
        movq    8(%rsp), %rsi
        movq    16(%rsp), %rdx
        movq    24(%rsp), %rcx
        movq    32(%rsp), %r8
        movq    40(%rsp), %r9
        movq    48(%rsp), %rax
        movq    56(%rsp), %r10
        movups  64(%rsp), %xmm0
        movups  80(%rsp), %xmm1
        movups  96(%rsp), %xmm2
        movups  112(%rsp), %xmm3
        movups  128(%rsp), %xmm4
        movups  144(%rsp), %xmm5
        movups  160(%rsp), %xmm6
        movups  176(%rsp), %xmm7
        movq    %rbp, %rsp
        popq    %rbp
        .if \patch
        popfq
        movq    %r11, -8(%rsp)          /* the continuation, below the saved r11 */
        popq    %r11                    /* the program's r11; rsp is the function's entry rsp */
        .cfi_def_cfa %rsp, 8
        jmp     *-16(%rsp)              /* the red zone: no signal frame is written there */
        .else
        .cfi_def_cfa %rsp, 8
        jmp     *%r11
        .endif
        .cfi_endproc
        .size   \name, .-\name
        .endm

        .globl  rp_entry_common
        .hidden rp_entry_common
        .type   rp_entry_common, @function
        ENTRY_PATH rp_entry_common, rp_on_enter, 0

/* The entry of a patched function (preload/patch_format.h): [rsp] = the program's r11,
 * r11 = the patch's struct rp_patch_desc. Exported: the tracer finds it by name when it writes
 * a patch. It also keeps the flags: the displaced instructions run after it, and hand-written
 * code may test flags its caller set (a call through the PLT makes no such promise). */
        .globl  roofprof_patch_entry
        .type   roofprof_patch_entry, @function
        .balign 16
        ENTRY_PATH roofprof_patch_entry, rp_on_enter_patch, 1

/* A span patch's boundary (preload/patch_format.h, "Span patches"): [rsp] = the program's r11,
 * r11 = the patch's struct rp_patch_desc, and the program's stack pointer is rsp + 8 + 128 (the
 * thunk stepped over its red zone). The code around the site may hold values in any register
 * and in the flags; the C code changes only general registers (-mgeneral-regs-only). The
 * continuation is entered as roofprof_patch_entry's is, and steps back over the red zone. No
 * CFI: the frame of the code around the site is not known here. */
        .globl  roofprof_patch_span
        .type   roofprof_patch_span, @function
        .balign 16
roofprof_patch_span:
        endbr64
        pushfq
        cld                             /* the C code's string instructions count up */
        pushq   %rax
        pushq   %rcx
        pushq   %rdx
        pushq   %rsi
        pushq   %rdi
        pushq   %r8
        pushq   %r9
        pushq   %r10
        pushq   %rbp
        movq    %rsp, %rbp
        andq    $-16, %rsp
        movq    %r11, %rdi              /* the descriptor */
        leaq    216(%rbp), %rsi         /* 10 pushes, the program's r11, the red zone */
        call    rp_on_span_patch
        movq    %rax, %r11              /* the continuation */
        movq    %rbp, %rsp
        popq    %rbp
        popq    %r10
        popq    %r9
        popq    %r8
        popq    %rdi
        popq    %rsi
        popq    %rdx
        popq    %rcx
        popq    %rax
        popfq
        movq    %r11, -8(%rsp)          /* the continuation, below the saved r11 */
        popq    %r11                    /* the program's r11; rsp is 128 below the program's */
        jmp     *-16(%rsp)              /* the red zone of this rsp: no signal frame is written there */
        .size   roofprof_patch_span, .-roofprof_patch_span

/* Where a recorded call returns (reached by its ret: rsp = slot + 8). Every register but the
 * return values is as the function left it when the original return address is reached: a
 * caller of a local function may keep values in any caller-saved register the function does
 * not touch (-fipa-ra). The C code uses no vector or x87 register (-mgeneral-regs-only). */
        .globl  rp_exit_stub
        .hidden rp_exit_stub
        .type   rp_exit_stub, @function
        .balign 16
rp_exit_stub:
        leaq    -8(%rsp), %rsp          /* back onto the return-address slot (flags untouched) */
        pushq   %rbp
        movq    %rsp, %rbp
        andq    $-16, %rsp
        subq    $112, %rsp
        movq    %rax, 0(%rsp)
        movq    %rdx, 8(%rsp)
        movq    %rcx, 16(%rsp)
        movq    %rsi, 24(%rsp)
        movq    %rdi, 32(%rsp)
        movq    %r8, 40(%rsp)
        movq    %r9, 48(%rsp)
        movq    %r10, 56(%rsp)
        movq    %r11, 64(%rsp)
        movups  %xmm0, 80(%rsp)
        movups  %xmm1, 96(%rsp)
        leaq    16(%rbp), %rdi          /* the stack pointer after the function's ret */
        call    rp_on_exit
        movq    %rax, 8(%rbp)           /* the original return address, into its slot */
        movq    0(%rsp), %rax
        movq    8(%rsp), %rdx
        movq    16(%rsp), %rcx
        movq    24(%rsp), %rsi
        movq    32(%rsp), %rdi
        movq    40(%rsp), %r8
        movq    48(%rsp), %r9
        movq    56(%rsp), %r10
        movq    64(%rsp), %r11
        movups  80(%rsp), %xmm0
        movups  96(%rsp), %xmm1
        movq    %rbp, %rsp
        popq    %rbp
        ret
        .size   rp_exit_stub, .-rp_exit_stub

/* rp_calibrate_call: a call of an empty function through the whole path of a patched one
 * (calibrate.c): what a thunk does, then roofprof_patch_entry, the continuation (a bare ret)
 * and the exit stub. Its records carry RP_CALIBRATION_REGION. */
        .globl  rp_calibrate_call
        .hidden rp_calibrate_call
        .type   rp_calibrate_call, @function
        .balign 16
rp_calibrate_call:
        pushq   %r11
        leaq    rp_calibration_desc(%rip), %r11
        jmp     *rp_patch_entry_address(%rip)
        .size   rp_calibrate_call, .-rp_calibrate_call

        .type   rp_calibration_target, @function
rp_calibration_target:
        ret
        .size   rp_calibration_target, .-rp_calibration_target

        .section .data.rel.ro.local, "aw"
        .balign 8
rp_calibration_desc:                    /* struct rp_patch_desc */
        .long   0xffffffff              /* RP_CALIBRATION_REGION */
        .long   0
        .quad   rp_calibration_target
rp_patch_entry_address:
        .quad   roofprof_patch_entry
        .text

        .globl  rp_stubs
        .hidden rp_stubs
        .globl  rp_stubs_end
        .hidden rp_stubs_end
        .balign 16
rp_stubs:
        .set    rp_i, 0
        .rept   RP_MAX_HOOKS
        .balign 16
        endbr64
        movl    $rp_i, %r11d
        jmp     rp_entry_common
        .set    rp_i, rp_i + 1
        .endr
        .balign 16
rp_stubs_end:

        .section .note.GNU-stack,"",@progbits
