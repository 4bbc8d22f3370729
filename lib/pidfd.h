/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Facts about a process and its pidfd (pidfd.c), in the library and the
 * guardian program: which pid a pidfd names, what tells a process from a
 * later one with the same pid, what /proc says of it.  Every function
 * returns 0 or an errno value and leaves errno as it was.
 */

#ifndef _PROCDESC_PIDFD_H_
#define	_PROCDESC_PIDFD_H_

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#include "common.h"

/*
 * A process, told from any later one with its pid: the pidfs inode
 * (Linux 6.9, unique for the boot), kind 'i', else the start time in
 * clock ticks, kind 't' (NOTES 4.3).
 */
struct procdesc_proc {
	pid_t		 pp_pid;
	char		 pp_kind;	/* 'i' or 't'. */
	uint64_t	 pp_tag;
};

#define	PROCDESC_PROC_INODE	'i'
#define	PROCDESC_PROC_START	't'

int	procdesc_pidfd_pid(int pidfd, pid_t *pidp) PROCDESC_HIDDEN;
int	procdesc_pidfd_proc(int pidfd, pid_t pid, struct procdesc_proc *pp)
	    PROCDESC_HIDDEN;
int	procdesc_pidfd_open_proc(const struct procdesc_proc *pp, int *pidfdp)
	    PROCDESC_HIDDEN;
int	procdesc_pidfd_uids(int pidfd, pid_t pid, uid_t *ruidp, uid_t *suidp)
	    PROCDESC_HIDDEN;
int	procdesc_pidfd_exit_status(int pidfd, int *wstatusp) PROCDESC_HIDDEN;
void	procdesc_wstatus_split(int st, int *codep, int *statusp)
	    PROCDESC_HIDDEN;
int	procdesc_pidfd_zombie_status(int pidfd, int *wstatusp) PROCDESC_HIDDEN;
void	procdesc_pidfd_kill_reap(int pidfd, siginfo_t *si) PROCDESC_HIDDEN;
bool	procdesc_proc_stopped(pid_t pid) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_PIDFD_H_ */
