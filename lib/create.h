/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Making a process descriptor (create.c): with a new child (pdfork,
 * pdrfork), or for a process that exists (pdopenpid).  The arguments are
 * checked by the caller; each returns 0 or an errno value.
 */

#ifndef _PROCDESC_CREATE_H_
#define	_PROCDESC_CREATE_H_

#include <sys/types.h>

#include <stdbool.h>

#include "common.h"
#include "closekill.h"
#include "fork.h"

struct procdesc_child;

/* A creation whose child shares our memory (fork.h), in two halves. */
struct procdesc_create {
	struct procdesc_vfork	 cc_vf;		/* First: the entry's. */
	struct procdesc_ck_req	 cc_cr;
	struct procdesc_child	*cc_ch;		/* NULL: the kernel's path. */
};

int	procdesc_create_vfork_begin(struct procdesc_create *cc, int pdflags)
	    PROCDESC_HIDDEN;
int	procdesc_create_vfork_end(struct procdesc_create *cc, long ret,
	    pid_t *pidp, int *fdp) PROCDESC_HIDDEN;
int	procdesc_create_fork(int pdflags, bool spawn, pid_t *pidp, int *fdp)
	    PROCDESC_HIDDEN;
int	procdesc_create_open(pid_t pid, int pdflags, int *fdp) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_CREATE_H_ */
