/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Between the three files of the owner's side of procdesc-guardian:
 * guardian_start.c starts one, guardian_table.c keeps the table of those
 * running, guardian_client.c is the close-kill mechanism built on them
 * (closekill.h) and speaks the protocol (guardian/protocol.h).
 */

#ifndef _PROCDESC_GUARDIAN_H_
#define	_PROCDESC_GUARDIAN_H_

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#include "common.h"

struct pg_msg;

/*
 * A running guardian.  Locking key: (c) constant once in the table,
 * (l) procdesc_mtx.
 */
struct procdesc_guardian {
	int		 gd_sock;	/* (l) Our end of the control socket. */
	dev_t		 gd_dev;	/* (c) Its identity. */
	ino_t		 gd_ino;	/* (c) */
	pid_t		 gd_sentry;	/* (l) Its sentry; -1 once reaped. */
	pid_t		 gd_pid;	/* (c) The guardian itself. */
	uint64_t	 gd_key;	/* (c) Its listener's, its names'. */
	uint32_t	 gd_capacity;	/* (c) Children it can take. */
	bool		 gd_full;	/* (l) It refused one, or is killed. */
	bool		 gd_dead;	/* (l) Reaped; gd_sock still open. */
};

/* guardian_start.c: a new guardian, procdesc_mtx not held. */
int	procdesc_guardian_start(struct procdesc_guardian *g) PROCDESC_HIDDEN;
void	procdesc_guardian_start_atfork_child(void) PROCDESC_HIDDEN;

/* guardian_table.c: procdesc_mtx held, but for pick and the fork hook. */
int	procdesc_guardian_pick(int *slotp, int *sockp, bool *newp)
	    PROCDESC_HIDDEN;
void	procdesc_guardian_commit(int slot, int error, bool held)
	    PROCDESC_HIDDEN;
void	procdesc_guardian_release(int slot) PROCDESC_HIDDEN;
void	procdesc_guardian_drop(int slot) PROCDESC_HIDDEN;
int	procdesc_guardian_sock(int slot) PROCDESC_HIDDEN;
uint64_t procdesc_guardian_key(int slot) PROCDESC_HIDDEN;
bool	procdesc_guardian_sentry(pid_t pid) PROCDESC_HIDDEN;
void	procdesc_guardian_info(int slot, int *sockp, dev_t *devp, ino_t *inop,
	    pid_t *sentryp) PROCDESC_HIDDEN;
void	procdesc_guardian_died(int slot) PROCDESC_HIDDEN;
bool	procdesc_guardian_gone(int slot) PROCDESC_HIDDEN;
void	procdesc_guardian_stalled(int slot) PROCDESC_HIDDEN;
void	procdesc_guardian_atfork_child(void) PROCDESC_HIDDEN;

/* guardian_client.c: one answer, waited for up to PG_REPLY_MS. */
int	procdesc_guardian_recv(int fd, struct pg_msg *m) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_GUARDIAN_H_ */
