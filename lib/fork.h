/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The fork machinery (fork.c): a child made by the C library's own fork()
 * with its clone turned into clone3(CLONE_PIDFD) and exit signal 0, or by
 * a raw clone3 (the fallback, and RFSPAWN).  Before any code of the
 * application runs in it, the new child calls the close-kill mechanism's
 * child hook with the creation's request.
 */

#ifndef _PROCDESC_FORK_H_
#define	_PROCDESC_FORK_H_

#include <sys/types.h>

#include "common.h"

struct procdesc_ck_req;

/* Runs in the new child: raw system calls only (PROCDESC_NOSAN). */
typedef void procdesc_fork_hook_t(const struct procdesc_ck_req *);

int	procdesc_fork_clone(procdesc_fork_hook_t *hook,
	    const struct procdesc_ck_req *cr, pid_t *pidp, int *pidfdp)
	    PROCDESC_HIDDEN;
int	procdesc_fork_spawn(procdesc_fork_hook_t *hook,
	    const struct procdesc_ck_req *cr, pid_t *pidp, int *pidfdp)
	    PROCDESC_HIDDEN;
void	procdesc_fork_atfork_child(void) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_FORK_H_ */
