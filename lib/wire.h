/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * One message of the guardian protocol (guardian/protocol.h) and the
 * descriptors that come with it, sent or received in one call: shared by
 * the library (desc.c) and the guardian (guardian.c, query.c).  The new
 * child's PG_GUARD (guardian_client.c) and the reaper's reads are made
 * with raw system calls instead, and do not come here.
 */

#ifndef _PROCDESC_WIRE_H_
#define	_PROCDESC_WIRE_H_

#include <sys/types.h>

#include <stdbool.h>

#include "guardian/protocol.h"

/* Descriptors one message carries at most. */
#define	PG_WIRE_MAXFDS	(PG_GUARD_FDS + 1)

int	procdesc_wire_send(int s, const struct pg_msg *m, const int *fds,
	    int nfds, int flags);
ssize_t	procdesc_wire_recv(int s, struct pg_msg *m, int *fds, int maxfds,
	    int *nfdsp, bool *truncp, int flags);

#endif /* !_PROCDESC_WIRE_H_ */
