/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Architecture code, one header per architecture, for the fork trap and
 * pdrfork(RFSPAWN)'s entry only: everything else in the library is plain
 * system calls through syscall(2).  A header with the trap defines
 * PROCDESC_ARCH_TRAP 1 and:
 *	PA_RESTORER_ASM		the body of an rt_sigreturn(2) restorer
 *	pa_reg_t, PA_REGS(uc)	the registers in a signal's ucontext
 *	PA_A0..PA_A5, PA_RET	a system call's arguments and return value
 *	PA_CLONE_PTID, PA_CLONE_CTID, PA_CLONE_TLS
 *				clone(2)'s arguments, whose order differs
 * Without it, pdfork runs the C library's fork() untrapped (NOTES 1.1),
 * whose child sends SIGCHLD at its exit.  A header with the entry
 * defines PROCDESC_ARCH_VFORK 1 and:
 *	PA_VFORK_ASM		the body of pdrfork (lib/fork.c)
 *	PA_FUNCTION		the assembler's name of a function's type
 * Without it, RFSPAWN's child has a copy of memory (NOTES 2.8).
 */

#ifndef _PROCDESC_ARCH_H_
#define	_PROCDESC_ARCH_H_

#if defined(__x86_64__)
#include "arch/x86_64.h"
#elif defined(__aarch64__)
#include "arch/aarch64.h"
#else
#define	PROCDESC_ARCH_TRAP	0
#define	PROCDESC_ARCH_VFORK	0
#endif

#endif /* !_PROCDESC_ARCH_H_ */
