/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The fork machinery (fork.c): a child made by the C library's own fork()
 * with its clone turned into clone3(CLONE_PIDFD) and exit signal 0, or
 * untrapped where there is no trap, or by a raw clone3 (the kernel's path
 * without the trap, and RFSPAWN).  Before any code of the
 * application runs in it, the new child calls the close-kill mechanism's
 * child hook with the creation's request.
 */

#ifndef _PROCDESC_FORK_H_
#define	_PROCDESC_FORK_H_

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#include "common.h"
#include "linux_pidfd.h"
#include "arch/arch.h"

struct procdesc_ck_req;

/* Runs in the new child: raw system calls only (PROCDESC_NOSAN). */
typedef void procdesc_fork_hook_t(const struct procdesc_ck_req *);

/*
 * pdrfork(RFSPAWN) with the child in our memory, as vfork(2) (NOTES 2.8):
 * where the architecture has the entry (lib/arch/), and not under TSan,
 * whose state of the calling thread the child would change under it (its
 * own vfork() is a fork()).  Elsewhere the child gets a copy of memory.
 */
#if PROCDESC_ARCH_VFORK && !PROCDESC_TSAN
#define	PROCDESC_VFORK	1
#else
#define	PROCDESC_VFORK	0
#endif

/*
 * One such creation, made by begin (procdesc.c) and read by the entry
 * (lib/arch/), which knows vf_ret, vf_reg, vf_child, vf_ca and vf_sp by
 * offset (fork.c asserts them).
 */
struct procdesc_vfork {
	uintptr_t	 vf_ret;	/* The entry's: its return address, */
	uintptr_t	 vf_reg;	/* and the register it borrows. */
	void		(*vf_child)(const struct procdesc_vfork *);
	struct procdesc_clone_args vf_ca;
	uintptr_t	 vf_sp;		/* The caller's stack pointer. */
	procdesc_fork_hook_t *vf_hook;
	const struct procdesc_ck_req *vf_cr;
	uint64_t	 vf_mask;	/* The caller's signal mask. */
	int		 vf_pidfd;
};

int	procdesc_fork_clone(procdesc_fork_hook_t *hook,
	    const struct procdesc_ck_req *cr, pid_t *pidp, int *pidfdp)
	    PROCDESC_HIDDEN;
int	procdesc_fork_spawn(procdesc_fork_hook_t *hook,
	    const struct procdesc_ck_req *cr, pid_t *pidp, int *pidfdp)
	    PROCDESC_HIDDEN;
void	procdesc_fork_atfork_child(void) PROCDESC_HIDDEN;
void	procdesc_fork_child_first(void) PROCDESC_HIDDEN;
bool	procdesc_fork_trap(void) PROCDESC_HIDDEN;

/* The entry's halves: before the clone, and after it in the parent. */
void	procdesc_fork_vfork_prepare(struct procdesc_vfork *vf,
	    procdesc_fork_hook_t *hook, const struct procdesc_ck_req *cr)
	    PROCDESC_HIDDEN;
int	procdesc_fork_vfork_finish(struct procdesc_vfork *vf, long ret,
	    pid_t *pidp, int *pidfdp) PROCDESC_HIDDEN;

/*
 * What the entry calls (procdesc.c): begin checks and prepares, NULL and
 * errno set if it fails; end adopts the child (ret: the clone's) and
 * returns what pdrfork returns; done frees vf, errno kept.  And every
 * pdrfork but RFSPAWN.
 */
struct procdesc_vfork *procdesc_rfspawn_begin(int *fdp, int pdflags)
	    PROCDESC_HIDDEN;
pid_t	procdesc_rfspawn_end(struct procdesc_vfork *vf, long ret)
	    PROCDESC_HIDDEN;
void	procdesc_rfspawn_done(struct procdesc_vfork *vf) PROCDESC_HIDDEN;
pid_t	procdesc_pdrfork_c(int *fdp, int pdflags, int rfflags)
	    PROCDESC_HIDDEN;

#endif /* !_PROCDESC_FORK_H_ */
