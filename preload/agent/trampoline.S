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
 * rp_exit_stub: where a recorded call returns. Saves the return registers (rax, rdx, xmm0,
 * xmm1), calls rp_on_exit(stack pointer), restores them and jumps to the original return
 * address. The x87 registers (long double results in st0/st1) are untouched because the C
 * code runs with -mgeneral-regs-only and so never uses the x87 unit.
 *
 * r11 is the scratch register: the ABI reserves it for neither arguments nor results.
 */
#define RP_MAX_HOOKS 8192

        .text

        .globl  rp_entry_common
        .hidden rp_entry_common
        .type   rp_entry_common, @function
rp_entry_common:
        .cfi_startproc
        pushq   %rbp
        .cfi_def_cfa_offset 16
        .cfi_offset %rbp, -16
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
        movl    %r11d, %edi
        leaq    8(%rbp), %rsi           /* the return-address slot */
        call    rp_on_enter
        movq    %rax, %r11              /* the real function */
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
        .cfi_def_cfa %rsp, 8
        jmp     *%r11
        .cfi_endproc
        .size   rp_entry_common, .-rp_entry_common

        .globl  rp_exit_stub
        .hidden rp_exit_stub
        .type   rp_exit_stub, @function
        .balign 16
rp_exit_stub:
        movq    %rsp, %r11              /* stack pointer after the hooked function's ret */
        pushq   %rbp
        movq    %rsp, %rbp
        andq    $-16, %rsp
        subq    $48, %rsp
        movq    %rax, 0(%rsp)
        movq    %rdx, 8(%rsp)
        movups  %xmm0, 16(%rsp)
        movups  %xmm1, 32(%rsp)
        movq    %r11, %rdi
        call    rp_on_exit
        movq    %rax, %r11              /* the original return address */
        movq    0(%rsp), %rax
        movq    8(%rsp), %rdx
        movups  16(%rsp), %xmm0
        movups  32(%rsp), %xmm1
        movq    %rbp, %rsp
        popq    %rbp
        jmp     *%r11
        .size   rp_exit_stub, .-rp_exit_stub

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
