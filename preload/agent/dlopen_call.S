/* dlopen and dlmopen interposers. glibc's dlopen looks at its caller's address (the return
 * address) to pick the calling object's RUNPATH, $ORIGIN and namespace. So the real dlopen
 * is entered with a return address inside the *caller's* module: the address of a 0xc3
 * byte (ret) in that module's code, found by rp_dlopen_prepare. The real dlopen returns to
 * that byte, whose ret pops our continuation; rp_dlopen_done then hooks what was loaded.
 *
 *   stack at the jump:  [rsp] = ret byte in the caller's module, [rsp+8] = label 1, [rsp+16] pad
 */
        .text

        .globl  dlopen
        .type   dlopen, @function
dlopen:
        .cfi_startproc
        pushq   %rbx
        .cfi_def_cfa_offset 16
        pushq   %r12
        .cfi_def_cfa_offset 24
        pushq   %r13
        .cfi_def_cfa_offset 32
        movq    %rdi, %rbx              /* file */
        movq    %rsi, %r12              /* mode */
        movq    24(%rsp), %rdi          /* the caller's return address */
        xorl    %esi, %esi              /* 0: dlopen */
        call    rp_dlopen_prepare       /* rax = real dlopen, rdx = ret byte in the caller */
        testq   %rax, %rax
        jz      2f
        movq    %rax, %r11              /* real dlopen */
        movq    %rdx, %r10              /* ret byte in the caller's module */
        movq    %rbx, %rdi
        movq    %r12, %rsi
        subq    $8, %rsp
        leaq    1f(%rip), %rax
        pushq   %rax
        pushq   %r10
        jmp     *%r11
1:      addq    $8, %rsp
        movq    %rax, %rbx
        movq    %rax, %rdi
        call    rp_dlopen_done
        movq    %rbx, %rax
        popq    %r13
        popq    %r12
        popq    %rbx
        ret
2:      xorl    %eax, %eax
        popq    %r13
        popq    %r12
        popq    %rbx
        ret
        .cfi_endproc
        .size   dlopen, .-dlopen

        .globl  dlmopen
        .type   dlmopen, @function
dlmopen:
        .cfi_startproc
        pushq   %rbx
        .cfi_def_cfa_offset 16
        pushq   %r12
        .cfi_def_cfa_offset 24
        pushq   %r13
        .cfi_def_cfa_offset 32
        movq    %rdi, %rbx              /* namespace */
        movq    %rsi, %r12              /* file */
        movq    %rdx, %r13              /* mode */
        movq    24(%rsp), %rdi
        movl    $1, %esi                /* 1: dlmopen */
        call    rp_dlopen_prepare
        testq   %rax, %rax
        jz      2f
        movq    %rax, %r11              /* real dlmopen */
        movq    %rdx, %r10              /* ret byte in the caller's module */
        movq    %rbx, %rdi
        movq    %r12, %rsi
        movq    %r13, %rdx
        subq    $8, %rsp
        leaq    1f(%rip), %rax
        pushq   %rax
        pushq   %r10
        jmp     *%r11
1:      addq    $8, %rsp
        movq    %rax, %rbx
        movq    %rax, %rdi
        call    rp_dlopen_done
        movq    %rbx, %rax
        popq    %r13
        popq    %r12
        popq    %rbx
        ret
2:      xorl    %eax, %eax
        popq    %r13
        popq    %r12
        popq    %rbx
        ret
        .cfi_endproc
        .size   dlmopen, .-dlmopen

/* dlsym: the same entry with the caller's return address (glibc resolves RTLD_NEXT and
 * RTLD_DEFAULT from the caller's object); rp_dlsym_done then hands out the trampoline of a
 * function the agent measures, so calls through the pointer are seen like calls through a
 * GOT slot. */
        .globl  dlsym
        .type   dlsym, @function
dlsym:
        .cfi_startproc
        pushq   %rbx
        .cfi_def_cfa_offset 16
        pushq   %r12
        .cfi_def_cfa_offset 24
        pushq   %r13
        .cfi_def_cfa_offset 32
        movq    %rdi, %rbx              /* handle */
        movq    %rsi, %r12              /* name */
        movq    24(%rsp), %r13          /* the caller's return address */
        movq    %r13, %rdi
        movl    $2, %esi                /* 2: dlsym */
        call    rp_dlopen_prepare
        testq   %rax, %rax
        jz      2f
        movq    %rax, %r11              /* real dlsym */
        movq    %rdx, %r10              /* ret byte in the caller's module */
        movq    %rbx, %rdi
        movq    %r12, %rsi
        subq    $8, %rsp
        leaq    1f(%rip), %rax
        pushq   %rax
        pushq   %r10
        jmp     *%r11
1:      addq    $8, %rsp
        movq    %rax, %rdi              /* what dlsym found */
        movq    %r12, %rsi              /* name */
        movq    %r13, %rdx              /* caller */
        call    rp_dlsym_done
        popq    %r13
        popq    %r12
        popq    %rbx
        ret
2:      xorl    %eax, %eax
        popq    %r13
        popq    %r12
        popq    %rbx
        ret
        .cfi_endproc
        .size   dlsym, .-dlsym

        .section .note.GNU-stack,"",@progbits
