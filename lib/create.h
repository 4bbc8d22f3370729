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

int	procdesc_create_fork(int pdflags, bool spawn, pid_t *pidp, int *fdp)
	    PROCDESC_HIDDEN;
int	procdesc_create_open(pid_t pid, int pdflags, int *fdp) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_CREATE_H_ */
