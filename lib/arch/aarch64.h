/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * aarch64: no fork trap (Debian's arm64 kernels refuse the dispatch
 * prctl: NOTES 9.2), but pdrfork(RFSPAWN)'s entry (lib/fork.c, NOTES
 * 2.8): clone3 with CLONE_VM and CLONE_VFORK, the child returning to our
 * caller on our caller's stack as after vfork(2).  Only registers live
 * across the clone (the kernel keeps all but x0): x19 holds the request,
 * whose first words keep our return address (x30) and the caller's x19;
 * the stack is written again only once the child has exec'd or exited.
 */

#ifndef _PROCDESC_ARCH_AARCH64_H_
#define	_PROCDESC_ARCH_AARCH64_H_

#define	PROCDESC_ARCH_TRAP	0

#define	PROCDESC_ARCH_VFORK	1
#define	PA_FUNCTION		"%function"
#define	PA_VFORK_ASM							\
	"	hint	#34\n"			/* bti c */		\
	"	mov	w9, #0x80000000\n"	/* RFSPAWN */		\
	"	cmp	w2, w9\n"					\
	"	b.eq	1f\n"						\
	"	b	procdesc_pdrfork_c\n"				\
	"1:	stp	x29, x30, [sp, #-16]!\n"			\
	"	mov	x29, sp\n"					\
	"	bl	procdesc_rfspawn_begin\n"			\
	"	ldp	x29, x30, [sp], #16\n"				\
	"	cbz	x0, 3f\n"					\
	"	str	x30, [x0]\n"					\
	"	str	x19, [x0, #8]\n"				\
	"	mov	x19, x0\n"					\
	"	add	x0, x19, #24\n"					\
	"	mov	x1, #64\n"					\
	"	mov	x8, #435\n"		/* clone3 */		\
	"	svc	#0\n"						\
	"	cbz	x0, 2f\n"					\
	/* The parent: the stack below the caller's is ours again. */	\
	"	mov	x9, sp\n"					\
	"	str	x9, [x19, #88]\n"				\
	"	mov	x1, x0\n"					\
	"	mov	x0, x19\n"					\
	"	bl	procdesc_rfspawn_end\n"				\
	"	ldr	x9, [x19]\n"					\
	"	ldr	x10, [x19, #8]\n"				\
	"	stp	x9, x10, [sp, #-32]!\n"				\
	"	str	x0, [sp, #16]\n"				\
	"	mov	x0, x19\n"					\
	"	bl	procdesc_rfspawn_done\n"			\
	"	ldp	x30, x19, [sp]\n"				\
	"	ldr	x0, [sp, #16]\n"				\
	"	add	sp, sp, #32\n"					\
	"	ret\n"							\
	/* The child: its hook, then back to the caller with 0. */	\
	"2:	mov	x0, x19\n"					\
	"	ldr	x9, [x19, #16]\n"				\
	"	blr	x9\n"						\
	"	ldr	x30, [x19]\n"					\
	"	ldr	x19, [x19, #8]\n"				\
	"	mov	x0, #0\n"					\
	"	ret\n"							\
	"3:	mov	w0, #-1\n"					\
	"	ret\n"

#endif /* !_PROCDESC_ARCH_AARCH64_H_ */
