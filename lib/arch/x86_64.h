/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * x86-64's part of the fork trap (lib/fork.c, NOTES 1.1): the SIGSYS
 * handler's signal restorer and where a system call's number, arguments
 * and return value sit in the signal context.
 */

#ifndef _PROCDESC_ARCH_X86_64_H_
#define	_PROCDESC_ARCH_X86_64_H_

#include <ucontext.h>

#define	PROCDESC_ARCH_TRAP	1

/*
 * rt_sigreturn(2) as glibc's __restore_rt.  The kernel sees the system
 * call at the address after its instruction, which the region that the
 * dispatch allows must cover: hence the label after the ud2.
 */
#define	PA_RESTORER_ASM							\
	"	movq	$15, %rax\n"					\
	"	syscall\n"						\
	"	ud2\n"

/* The registers of the interrupted thread, as the handler may change them. */
typedef greg_t pa_reg_t;
#define	PA_REGS(uc)	(((ucontext_t *)(uc))->uc_mcontext.gregs)

/* The system call's arguments, and where its return value goes. */
#define	PA_A0		REG_RDI
#define	PA_A1		REG_RSI
#define	PA_A2		REG_RDX
#define	PA_A3		REG_R10
#define	PA_A4		REG_R8
#define	PA_A5		REG_R9
#define	PA_RET		REG_RAX

/* clone(2): flags, stack, parent_tid, child_tid, tls. */
#define	PA_CLONE_PTID	PA_A2
#define	PA_CLONE_CTID	PA_A3
#define	PA_CLONE_TLS	PA_A4

/*
 * pdrfork(RFSPAWN)'s entry (lib/fork.c, NOTES 2.8): clone3 with CLONE_VM
 * and CLONE_VFORK, the child returning to our caller on our caller's
 * stack as after vfork(2).  Only registers live across the clone (the
 * kernel keeps all but rax, rcx and r11): r12 holds the request, whose
 * first words keep our return address and the caller's r12; the stack is
 * written again only once the child has exec'd or exited.
 */
#define	PROCDESC_ARCH_VFORK	1
#define	PA_FUNCTION		"@function"
#define	PA_VFORK_ASM							\
	"	endbr64\n"						\
	"	cmpl	$0x80000000, %edx\n"	/* RFSPAWN */		\
	"	jne	procdesc_pdrfork_c\n"				\
	"	subq	$8, %rsp\n"					\
	"	call	procdesc_rfspawn_begin\n"			\
	"	addq	$8, %rsp\n"					\
	"	testq	%rax, %rax\n"					\
	"	jz	3f\n"						\
	"	movq	%r12, 8(%rax)\n"				\
	"	popq	0(%rax)\n"					\
	"	movq	%rax, %r12\n"					\
	"	leaq	24(%r12), %rdi\n"				\
	"	movl	$64, %esi\n"					\
	"	movl	$435, %eax\n"		/* clone3 */		\
	"	syscall\n"						\
	"	testq	%rax, %rax\n"					\
	"	jz	2f\n"						\
	/* The parent: the stack below the caller's is ours again. */	\
	"	movq	%rsp, 88(%r12)\n"				\
	"	movq	%r12, %rdi\n"					\
	"	movq	%rax, %rsi\n"					\
	"	call	procdesc_rfspawn_end\n"			\
	"	pushq	0(%r12)\n"					\
	"	pushq	8(%r12)\n"					\
	"	pushq	%rax\n"					\
	"	movq	%r12, %rdi\n"					\
	"	subq	$8, %rsp\n"					\
	"	call	procdesc_rfspawn_done\n"			\
	"	addq	$8, %rsp\n"					\
	"	popq	%rax\n"					\
	"	popq	%r12\n"					\
	"	ret\n"							\
	/* The child: its hook, then back to the caller with 0. */	\
	"2:	movq	%r12, %rdi\n"					\
	"	call	*16(%r12)\n"					\
	"	movq	0(%r12), %rcx\n"				\
	"	movq	8(%r12), %r12\n"				\
	"	xorl	%eax, %eax\n"					\
	"	jmp	*%rcx\n"					\
	"3:	movl	$-1, %eax\n"					\
	"	ret\n"

#endif /* !_PROCDESC_ARCH_X86_64_H_ */
