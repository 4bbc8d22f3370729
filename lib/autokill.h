/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The kernel's close-kill (lib/autokill.c): the choice of path for a new
 * child, and the calls on a descriptor of the kernel's path.  Each returns
 * 0 or an errno value.
 */

#ifndef _PROCDESC_AUTOKILL_H_
#define	_PROCDESC_AUTOKILL_H_

#include <sys/types.h>

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common.h"

int	procdesc_ak_choose(int pdflags, bool full, uint64_t *cflagsp)
	    PROCDESC_HIDDEN;
int	procdesc_ak_ident(int fd) PROCDESC_HIDDEN;
int	procdesc_ak_kill(int fd, int signum) PROCDESC_HIDDEN;
int	procdesc_ak_wait(int fd, int options, siginfo_t *si) PROCDESC_HIDDEN;
int	procdesc_ak_dupfd(int fd, int remotefd, int *newfdp) PROCDESC_HIDDEN;

/*
 * Which kind descriptor number fd was when a call last looked: a hint
 * that orders the two tests in the public calls, never a proof.
 */
#define	PROCDESC_AK_HINTS	1024
extern _Atomic bool procdesc_ak_hints[PROCDESC_AK_HINTS] PROCDESC_HIDDEN;

static inline bool
procdesc_ak_hinted(int fd)
{

	return ((unsigned int)fd < PROCDESC_AK_HINTS &&
	    atomic_load_explicit(&procdesc_ak_hints[fd],
	    memory_order_relaxed));
}

static inline void
procdesc_ak_hint(int fd, bool kernel)
{

	if ((unsigned int)fd < PROCDESC_AK_HINTS &&
	    atomic_load_explicit(&procdesc_ak_hints[fd],
	    memory_order_relaxed) != kernel)
		atomic_store_explicit(&procdesc_ak_hints[fd], kernel,
		    memory_order_relaxed);
}

#endif /* !_PROCDESC_AUTOKILL_H_ */
