/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * What a descriptor that is not the owner's own says (wait.c): its
 * process, its exit, through its guardian (NOTES 1.9), and where pdwait
 * finds the event it reports.  Also what pdwait shares with the
 * application's waits (appwait.c): an event's status word and meaning,
 * and the copy-out to a user pointer that may be bad.
 */

#ifndef _PROCDESC_WAIT_H_
#define	_PROCDESC_WAIT_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <signal.h>
#include <stdbool.h>

#include "common.h"

struct procdesc_desc;
struct procdesc_info;

int	procdesc_copyout(void *uaddr, const void *kaddr, size_t len)
	    PROCDESC_HIDDEN;
int	procdesc_probe_int(int *uaddr) PROCDESC_HIDDEN;
int	procdesc_wait_status(const siginfo_t *si) PROCDESC_HIDDEN;
int	procdesc_wait_result(const siginfo_t *si, int options) PROCDESC_HIDDEN;
int	procdesc_wait_event(int fd, const struct procdesc_desc *dp,
	    int options, siginfo_t *si, struct rusage *ru) PROCDESC_HIDDEN;
int	procdesc_wait_foreign(int fd, bool wait, struct procdesc_info *ip,
	    int *pidfdp) PROCDESC_HIDDEN;
int	procdesc_wait_pid(const struct procdesc_info *ip, int pidfd,
	    pid_t *pidp) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_WAIT_H_ */
