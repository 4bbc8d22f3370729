/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The process descriptor as an object (desc.c): an AF_UNIX socket, bound to
 * a name that says which guardian holds its peer, and known by its socket
 * cookie, the kernel's identity of the socket (never reused, Linux 4.12).
 * And the query any holder may send that guardian about it.  Every
 * function returns 0 or an errno value and keeps errno as it was.
 */

#ifndef _PROCDESC_DESC_H_
#define	_PROCDESC_DESC_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "common.h"

/* What a descriptor is, as any holder reads it. */
struct procdesc_desc {
	uint64_t	dd_cookie;	/* SO_COOKIE: its identity. */
	bool		dd_kernel;	/* The kernel's pidfd (autokill.c). */
};

/* What its guardian says of it (procdesc_desc_query()). */
struct procdesc_info {
	pid_t		 in_pid;	/* As the guardian's namespace sees. */
	uint64_t	 in_pidns;	/* The guardian's pid namespace. */
	uint32_t	 in_flags;	/* PD_*, PG_CHILD. */
	uint32_t	 in_state;	/* PG_EXITED, PG_RECORDED, PG_RUSAGE. */
	int		 in_code;	/* CLD_*, once recorded; 0: lost. */
	int		 in_status;
	struct rusage	 in_ru;
	uid_t		 in_uid;	/* The guardian's (SO_PEERCRED). */
};

int	procdesc_desc_cookie(int fd, uint64_t *cookiep) PROCDESC_HIDDEN;
int	procdesc_desc_bind(int fd, uint64_t key, uint64_t id) PROCDESC_HIDDEN;
int	procdesc_desc_query(int fd, bool wait, struct procdesc_info *ip,
	    int *pidfdp) PROCDESC_HIDDEN;
uint64_t procdesc_desc_new_id(void) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_DESC_H_ */
