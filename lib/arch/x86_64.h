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

#endif /* !_PROCDESC_ARCH_X86_64_H_ */
